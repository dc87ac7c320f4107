"""No repeat costs a round (#45): through `autofix run`, the real openai SDK against the scripted
server and the real sandbox. A reply whose code was judged before is answered by a fresh sample:
for existing code too, the first prompt (the code as it is, how it fails now) restated with how
every earlier answer failed and not their code, a step hotter; the log says so. `temperature`
comes from the spec, or `--temperature`, which wins."""

import json

import pytest
from conftest import RIGHT
from fake_openai import ScriptedOpenAI

from bot.cli import main

CURRENT = "def unique_items(items):\n    return items\n"
SORTED = "```python\ndef unique_items(items):\n    return sorted(set(items))\n```"
SORTED_AGAIN = "```python\ndef unique_items(items):\n    return sorted(set(items))   \n\n```"  # whitespace aside


def run(task, fake, *extra):
    report = task.parent / "report.json"
    argv = ["run", str(task), "--base-url", fake.base_url, "--model", "m", "--api", "chat", "--report", str(report)]
    return main([*argv, *extra]), json.loads(report.read_text())


def test_a_repeated_candidate_of_existing_code_is_answered_by_a_fresh_sample_a_step_hotter(task, capsys):
    (task.parent / "unique.py").write_text(CURRENT)
    task.write_text(task.read_text() + "temperature: 0.4\n")
    with ScriptedOpenAI([SORTED, SORTED_AGAIN, RIGHT]) as fake:
        code, report = run(task, fake)
    out = capsys.readouterr().out
    assert code == 0, out
    assert [a["kind"] for a in report["attempts"]] == ["failed", "same code", "passed"]
    first, repair, fresh = (request.json for request in fake.requests)
    assert [first["temperature"], repair["temperature"], fresh["temperature"]] == [0.4, 0.4, 0.7]
    # The repair continued the conversation; the fresh sample is the first prompt restated: the current
    # code and how it fails now, then how attempt 1 failed, without its code.
    assert repair["messages"][:2] == first["messages"] and repair["messages"][2]["role"] == "assistant"
    failed = report["attempts"][0]["feedback"]
    assert fresh["messages"] == [
        first["messages"][0],
        {
            "role": "user",
            "content": f"{first['messages'][1]['content']}\n\nEarlier answers failed the tests. Their code is not "
            f"shown: start again from the code shown above, so that these checks pass too.\n\nAnswer 1:\n{failed}",
        },
    ]
    assert "It fails the tests now:\n" in first["messages"][1]["content"] and "sorted(set" not in str(fresh)
    note = (
        "attempt 2 sent back the code of attempt 1: the next call is a fresh sample from the task, restated with "
        "1 failure so far, 1 step hotter"
    )
    assert f"autofix: note: {note}\n" in out and report["notes"] == [note]


def test_the_current_code_sent_back_is_answered_by_a_fresh_sample_too(task, capsys):
    (task.parent / "unique.py").write_text(CURRENT)
    with ScriptedOpenAI([f"```python\n{CURRENT}```", RIGHT]) as fake:
        code, report = run(task, fake, "--temperature", "0")
    assert code == 0
    first, fresh = (request.json for request in fake.requests)
    assert (first["temperature"], fresh["temperature"]) == (0, 0.3)
    assert fresh["messages"] == first["messages"]  # no earlier answer failed: the task as first asked
    assert report["notes"][0].startswith("attempt 1 sent back the current code: the next call is a fresh sample")


@pytest.mark.parametrize("value", ["-0.1", "2.5"])
def test_a_temperature_out_of_range_is_a_one_line_error(task, capsys, value):
    with ScriptedOpenAI([]) as fake:
        assert main(["run", str(task), "--base-url", fake.base_url, "--model", "m", "--temperature", value]) == 2
    assert fake.requests == []
    assert capsys.readouterr().err == "autofix: error: --temperature: must be between 0 and 2\n"
