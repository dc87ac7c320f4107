"""A slow model endpoint: the request timeout is a setting (`--request-timeout`, `request_timeout:`
in the spec and in .github/autofix.yml, the `request-timeout` input, which wins), it reaches the
real openai SDK, and a request the server doesn't answer in time is said as a timeout naming the
setting. The scripted server holds each request (`Hang`) until the client gives up. A request that
timed out is not sent again: the server may still be generating its reply, and a retry would wait
behind it (#45); the script's next reply, which a retry would get, is never asked for."""

import pytest
from action_world import REPO, act, labeled
from conftest import RIGHT
from fake_openai import Hang, ScriptedOpenAI

from bot.cli import main
from bot.models.base import ModelSettings
from bot.models.openai_api import OpenAIModel

HANGS = [Hang(5), RIGHT]  # the request, held past the timeout (not the default 120 s); a retry would pass


def timed_out(seconds: str) -> str:
    return (
        f"the model did not answer within {seconds} s (not tried again: it may still be generating); "
        "raise request_timeout for a slow endpoint"
    )


def run(task, fake, *extra) -> int:
    return main(["run", str(task), "--base-url", fake.base_url, "--model", "m", "--api", "chat", *extra])


def test_the_flag_reaches_the_sdk_and_a_timeout_names_the_setting(task, capsys):
    with ScriptedOpenAI(HANGS) as fake:
        assert run(task, fake, "--request-timeout", "0.25") == 3
    assert (len(fake.requests), fake.remaining) == (1, 1)
    assert not (task.parent / "unique.py").exists()
    assert capsys.readouterr().err == f"autofix: error: {timed_out('0.25')}\n"


def test_the_spec_sets_it_and_the_flag_wins(task, capsys):
    task.write_text(task.read_text() + "request_timeout: 0.25\n")
    with ScriptedOpenAI(HANGS) as fake:
        assert run(task, fake) == 3
    assert capsys.readouterr().err == f"autofix: error: {timed_out('0.25')}\n"
    task.write_text(task.read_text().replace("request_timeout: 0.25", "request_timeout: 600"))
    with ScriptedOpenAI(HANGS) as fake:
        assert run(task, fake, "--request-timeout", "0.2") == 3
    assert capsys.readouterr().err == f"autofix: error: {timed_out('0.2')}\n"


@pytest.mark.parametrize("value", ["0", "-1", "nan"])
def test_a_timeout_that_is_no_time_is_a_one_line_error(task, capsys, value):
    with ScriptedOpenAI([]) as fake:
        assert run(task, fake, "--request-timeout", value) == 2
    assert fake.requests == []
    assert capsys.readouterr().err == "autofix: error: --request-timeout: must be a number of seconds above 0\n"


def test_the_sdk_client_is_made_with_the_setting():
    client = OpenAIModel(ModelSettings(name="m", base_url="http://127.0.0.1:9/v1", timeout=7.5)).client()
    assert client.timeout == 7.5


def test_the_input_wins_over_the_config_file(world, github, capsys):
    world.commit_to_origin({".github/autofix.yml": "request_timeout: 600\n"})
    world.input("request-timeout", "0.25")
    world.event("issues", labeled())
    code, out, openai = act(capsys, world, HANGS)
    assert (code, out[-1]) == (3, f"::error::{timed_out('0.25')}")
    assert len(openai.requests) == 1
    assert timed_out("0.25") in github.comments(REPO, 1)[0].body


def test_the_config_file_sets_it(world, github, capsys):
    world.commit_to_origin({".github/autofix.yml": "request_timeout: 0.25\n"})
    world.event("issues", labeled())
    code, out, _ = act(capsys, world, HANGS)
    assert (code, out[-1]) == (3, f"::error::{timed_out('0.25')}")


@pytest.mark.parametrize("value", ["soon", "0", "-3", "inf"])
def test_a_bad_input_is_a_one_line_error(world, github, capsys, value):
    world.input("request-timeout", value)
    world.event("issues", labeled())
    code, out, _ = act(capsys, world)
    assert (code, out[-1]) == (2, f"::error::input request-timeout: must be a number of seconds above 0, got {value!r}")
    assert github.requests == []
