"""Bounded replies (#45): every request carries the most tokens its reply may have, scaled to the
target (`reply_tokens` in the spec, `--reply-tokens`, which wins); a reply the server cut at that
limit is an attempt of its own kind that nothing reads or judges, and the next request is the same
prompt told why. The real openai SDK talks to the scripted server."""

import json

import pytest
from conftest import RIGHT, WRONG
from fake_openai import Reply, ScriptedOpenAI

from bot.cli import main
from bot.core.rounds import CUT

LIMIT_FIELD = {"responses": "max_output_tokens", "chat": "max_tokens"}


def run(task, fake, *extra, api="chat"):
    return main(["run", str(task), "--base-url", fake.base_url, "--model", "m", "--api", api, *extra])


@pytest.mark.parametrize("api", ["responses", "chat"])
def test_every_request_carries_a_limit_scaled_to_the_target(task, capsys, api):
    field = LIMIT_FIELD[api]
    with ScriptedOpenAI([RIGHT]) as fake:  # no target yet: the default
        assert run(task, fake, api=api) == 0
    assert [r.json[field] for r in fake.requests] == [4096]
    # An existing target of 12,000 characters: 3,000 tokens, four times that.
    (task.parent / "unique.py").write_text("# " + "x" * 11997 + "\n")
    with ScriptedOpenAI([RIGHT]) as fake:
        assert run(task, fake, api=api) == 0
    assert [r.json[field] for r in fake.requests] == [12000]
    # A short one: the floor. A huge one (in edit mode): the cap.
    (task.parent / "unique.py").write_text("def unique_items(items):\n    return items\n")
    with ScriptedOpenAI([RIGHT]) as fake:
        assert run(task, fake, api=api) == 0
    assert [r.json[field] for r in fake.requests] == [2048]
    (task.parent / "unique.py").write_text("def unique_items(items):\n    return items\n" + "# x\n" * 30000)
    task.write_text(task.read_text() + "mode: whole\n")
    with ScriptedOpenAI([RIGHT]) as fake:
        assert run(task, fake, api=api) == 0
    assert [r.json[field] for r in fake.requests] == [16384]


def test_the_spec_sets_the_limit_and_the_flag_wins(task, capsys):
    task.write_text(task.read_text() + "reply_tokens: 700\n")
    with ScriptedOpenAI([WRONG, RIGHT]) as fake:
        assert run(task, fake) == 0
    assert [r.json["max_tokens"] for r in fake.requests] == [700, 700]
    with ScriptedOpenAI([RIGHT]) as fake:
        assert run(task, fake, "--reply-tokens", "300") == 0
    assert [r.json["max_tokens"] for r in fake.requests] == [300]


@pytest.mark.parametrize("value", ["0", "15"])
def test_a_limit_too_small_is_a_one_line_error(task, capsys, value):
    with ScriptedOpenAI([]) as fake:
        assert run(task, fake, "--reply-tokens", value) == 2
    assert fake.requests == []
    assert capsys.readouterr().err == "autofix: error: --reply-tokens: must be a whole number of tokens, at least 16\n"


def test_the_spec_refuses_a_limit_too_small(task, capsys):
    task.write_text(task.read_text() + "reply_tokens: 8\n")
    with ScriptedOpenAI([]) as fake:
        assert run(task, fake) == 2
    assert fake.requests == []
    assert "reply_tokens: Input should be greater than or equal to 16" in capsys.readouterr().err


@pytest.mark.parametrize("api", ["responses", "chat"])
def test_a_reply_cut_at_the_limit_is_a_failed_attempt_never_judged(task, capsys, api):
    report = task.parent / "report.json"
    # The cut reply holds code that would pass: it is not read, so it is not judged, nor written.
    with ScriptedOpenAI([Reply(RIGHT + "\nThis works because", finish_reason="length"), WRONG, RIGHT]) as fake:
        assert run(task, fake, "--report", str(report), "--reply-tokens", "64", api=api) == 0
    first, second, third = (r.json["input" if api == "responses" else "messages"] for r in fake.requests)
    told = CUT.format(tokens=64)
    assert told.startswith("Your reply was cut at 64 tokens, the most one reply may have here, before it ended")
    # The same prompt again, told why at the end of its user turn; then the answer goes on as before.
    assert second == [*first[:-1], {**first[-1], "content": f"{first[-1]['content']}\n\n{told}"}]
    assert told not in json.dumps(third) and "order: expected [3, 1, 2], got [1, 2, 3]" in json.dumps(third)
    data = json.loads(report.read_text())
    assert [(a["kind"], a["passed"], a["failing_tests"]) for a in data["attempts"]] == [
        ("reply cut", False, ["(reply cut)"]),
        ("failed", False, ["order", "strings"]),
        ("passed", True, []),
    ]
    assert data["attempts"][0]["feedback"] == told
    out = capsys.readouterr().out.splitlines()
    assert out[2].startswith("attempt 1/3  FAIL  ")
    assert out[3] == f"    {told}"


def test_cut_replies_in_a_row_are_told_once(task, capsys):
    cut = Reply(RIGHT, finish_reason="length")
    with ScriptedOpenAI([cut, cut, cut]) as fake:
        assert run(task, fake, "--reply-tokens", "64") == 1
    first, second, third = (r.json["messages"] for r in fake.requests)
    assert second == third != first
    assert second[-1]["content"].count("Your reply was cut") == 1
    assert not (task.parent / "unique.py").exists()


def test_a_reply_s_own_parametrized_test_is_not_in_the_written_file(task, capsys):
    fix = "def unique_items(items):\n    return list(dict.fromkeys(items))\n"
    own = "\n\n@pytest.mark.parametrize('items', [[1, 1]])\ndef test_unique(items):\n"
    own += "    assert unique_items(items) == [1]\n"
    with ScriptedOpenAI([f"```python\n{fix}{own}```"]) as fake:  # pytest never imported: NameError on import
        assert run(task, fake) == 0
    assert (task.parent / "unique.py").read_text() == fix
