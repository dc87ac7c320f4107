"""The repository map's budget follows the model: `map_tokens` when set, else smaller for a model
on this machine (a loopback endpoint, or in-process), whose CPU reads a prompt slowly."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core.localize import localize
from bot.core.repomap import LOCAL_MAP_TOKENS, MAP_TOKENS, budget_of, estimated_tokens
from bot.core.report import Report
from bot.models.base import ModelSettings, Reply
from bot.models.registry import open_model

ISSUE = "parse_row drops the last field"


class Recorder:
    name, banner = "recorder", "model: recorder"

    def __init__(self):
        self.seen: list[list[dict[str, str]]] = []

    def complete(self, messages):
        self.seen.append(messages)
        return Reply("```\nmod_00.py\n```", 10, 2)


@pytest.mark.parametrize(
    "base_url, budget",
    [
        ("http://127.0.0.1:8080/v1", LOCAL_MAP_TOKENS),
        ("http://127.5.6.7:8080/v1", LOCAL_MAP_TOKENS),
        ("http://localhost:11434/v1", LOCAL_MAP_TOKENS),
        ("http://[::1]:8000/v1", LOCAL_MAP_TOKENS),
        ("https://api.openai.com/v1", MAP_TOKENS),
        ("http://10.0.0.5:8000/v1", MAP_TOKENS),  # another machine of the network: its own hardware
        ("http://localhost.example.com/v1", MAP_TOKENS),
    ],
)
def test_the_budget_is_smaller_for_a_model_behind_a_loopback_address(base_url, budget):
    assert budget_of(open_model(ModelSettings(name="m", base_url=base_url), str)) == budget


def test_the_setting_wins_and_an_in_process_model_is_local_and_a_bare_model_gets_the_default():
    assert budget_of(open_model(ModelSettings(name="m", base_url="http://127.0.0.1:1/v1", map_tokens=900), str)) == 900
    assert budget_of(open_model(ModelSettings(name="m", api_key="k", map_tokens=9000), str)) == 9000
    assert budget_of(open_model(ModelSettings(name="m", api_key="k"), str)) == MAP_TOKENS
    assert ModelSettings(name="local:model.gguf").local and not ModelSettings(name="replay:r.yml").local
    assert budget_of(Recorder()) == MAP_TOKENS


def repository(root: Path) -> Path:
    """40 modules of 12 documented functions: an outline of about 8,000 tokens."""
    for m in range(40):
        functions = "".join(
            f'def parse_{m:02d}_{f:02d}(row, sep=","):\n    """Field {f} of a row of table {m}, parsed."""\n'
            "    return row.split(sep)\n\n"
            for f in range(12)
        )
        (root / f"mod_{m:02d}.py").write_text(functions)
    return root


def outline_shown(model, root: Path) -> str:
    localize(model, root, ISSUE, [], Report(model="m", sandbox="none", target="", max_attempts=1))
    return model.model.seen[-1][1]["content"].partition("The repository's outline:\n\n")[2]


def test_localize_shows_a_local_model_a_shorter_outline(tmp_path):
    root = repository(tmp_path)
    local = open_model(ModelSettings(name="m", base_url="http://127.0.0.1:1/v1"), str)
    hosted = open_model(ModelSettings(name="m", base_url="https://models.example.com/v1"), str)
    local.model = hosted.model = Recorder()  # the prompt as it would be sent, with no server
    near, far = outline_shown(local, tmp_path), outline_shown(hosted, root)
    assert LOCAL_MAP_TOKENS - 100 < estimated_tokens(near) <= LOCAL_MAP_TOKENS
    assert MAP_TOKENS - 100 < estimated_tokens(far) <= MAP_TOKENS


def test_the_report_has_each_stage_calls_prompt_tokens(tmp_path):
    model = open_model(ModelSettings(name="m", api_key="k"), str)
    model.model = Recorder()
    report = Report(model="m", sandbox="none", target="", max_attempts=1)
    for _ in range(2):
        localize(model, repository(tmp_path), ISSUE, [], report)
    assert report.stages["localize"].input_per_call == [10, 10]
    assert report.to_dict()["stages"]["localize"]["input_per_call"] == [10, 10]
