"""The model registry: a name's prefix picks a provider by dotted path, any other name goes to the
OpenAI SDK, every model comes back masked, and a missing name or key says how to give one."""

from pathlib import Path

import pytest

from bot.errors import UserError
from bot.models import registry
from bot.models.base import ModelSettings, Reply
from bot.models.replay import ReplayModel


class Recorder:
    name, banner = "recorder", "model: recorder"

    def __init__(self):
        self.seen: list[list[dict[str, str]]] = []

    def complete(self, messages):
        self.seen.append(messages)
        return Reply("ok")


def test_a_prefix_opens_its_provider_from_a_dotted_path(tmp_path: Path):
    replies = tmp_path / "r.yml"
    replies.write_text("replies:\n  - first\n")
    model = registry.open_model(ModelSettings(name=f"replay:{replies}"), str)
    assert isinstance(model.model, ReplayModel) and model.complete([]).text == "first"


def test_prompts_are_masked_before_any_model_sees_them(monkeypatch):
    recorder = Recorder()
    monkeypatch.setitem(registry.PROVIDERS, "rec", lambda rest, settings: recorder)
    model = registry.open_model(ModelSettings(name="rec:x"), lambda text: text.replace("s3cret", "***"))
    model.complete([{"role": "user", "content": "token s3cret here"}])
    assert recorder.seen == [[{"role": "user", "content": "token *** here"}]]


def test_other_names_go_to_the_openai_sdk_and_need_a_key_or_an_endpoint():
    with pytest.raises(UserError, match="^no API key: set OPENAI_API_KEY"):
        registry.open_model(ModelSettings(name="llama3:8b"), str)
    opened = registry.open_model(ModelSettings(name="llama3:8b", base_url="http://127.0.0.1:9/v1"), str)
    assert type(opened.model).__name__ == "OpenAIModel" and opened.name == "llama3:8b"


def test_the_flow_says_how_to_name_a_model():
    hints = registry.Hints(name="set the `model` input", key="set the `openai-api-key` input")
    with pytest.raises(UserError, match="^no model configured: set the `model` input$"):
        registry.open_model(ModelSettings(name=None), str, hints)
    with pytest.raises(UserError, match="^no API key: set the `openai-api-key` input$"):
        registry.open_model(ModelSettings(name="gpt-x"), str, hints)


def test_flags_win_over_the_spec_which_wins_over_the_environment():
    environ = {"AUTOFIX_MODEL": "env-model", "OPENAI_BASE_URL": "http://env/v1", "OPENAI_API_KEY": "k"}
    assert registry.settings_from(None, None, None, None, None, environ) == ModelSettings(
        name="env-model", api="responses", base_url="http://env/v1", api_key="k"
    )
    assert registry.settings_from("flag", "http://flag/v1", "chat", "spec", "responses", environ) == ModelSettings(
        name="flag", api="chat", base_url="http://flag/v1", api_key="k"
    )
    assert registry.settings_from(None, None, None, "spec", "chat", {}).name == "spec"


def test_a_replay_counts_its_replies_and_says_how_to_go_on_when_they_run_out(tmp_path: Path):
    one = tmp_path / "one.yml"
    one.write_text("replies:\n  - first\n")
    model = ReplayModel(one)
    assert model.banner == f"model: replaying 1 recorded reply from {one} (no model is called)"
    model.complete([])
    with pytest.raises(UserError) as spent:
        model.complete([])
    assert str(spent.value) == (
        f"replay:{one}: the 1 recorded reply was used; add replies to the file, or allow fewer attempts"
    )
