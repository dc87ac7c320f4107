"""No wasted attempt, through `autofix run`: the real openai SDK against the scripted server, the
real sandbox and pytest. The first prompt for existing code carries how it fails now; code judged
before is a model call, not a test run, answered by a fresh sample; a repair stuck on the same failure
is followed by a fresh start from the task and the original file; every request opens with the
same system message; the report has each call's prompt tokens."""

import json

from conftest import RIGHT, WRONG
from fake_openai import Reply, ScriptedOpenAI
from test_existing_code import BROKEN, FIXED, PYTEST, TESTS, WRONG_FIX, autofix, big_module, edit, write_task

from bot.cli import main

# Wrong as WRONG_FIX is, with the same values: the same checks fail the same way.
SAME_WRONG = "def window_sums(items, size):\n    return [sum(items[i : i + 1]) for i in range(len(items))]\n"
TOLD = "\n\nIt fails the tests now:\n"


def big_task(tmp_path):
    (tmp_path / "big.py").write_text(big_module())
    (tmp_path / "test_big.py").write_text(TESTS)
    return write_task(tmp_path, f"{PYTEST} test_big.py")


def test_the_first_edit_prompt_carries_the_failures_the_preflight_found(tmp_path, capsys):
    spec = big_task(tmp_path)
    with ScriptedOpenAI([edit(BROKEN, FIXED)]) as fake:
        assert autofix(spec, fake) == 0, capsys.readouterr()
    [first] = fake.prompts()
    view, told, failures = first.partition(TOLD)
    assert told and " | def window_sums(items, size):" in view  # where to look, as before
    # ... and what is wrong there: each failing test, with pytest's own values.
    assert "test_big.py::test_window_sums\n" in failures and "assert [3, 5] == [3, 5, 7]" in failures
    assert "test_big.py::test_window_sums_whole\n" in failures and "assert [] == [3]" in failures
    assert "test_helper" not in failures  # it passes


def test_code_sent_back_as_it_was_is_not_run_again_and_the_report_says_so(task, capsys):
    report = task.parent / "report.json"
    again = WRONG.replace("(items):", "(items):   ").replace("\n    return", "\n\n\n    return")
    replies = [Reply(WRONG, 100, 20), Reply(again, 200, 21), Reply(RIGHT, 300, 22)]
    with ScriptedOpenAI(replies) as fake:
        code = main(
            ["run", str(task), "--base-url", fake.base_url, "--model", "m", "--api", "chat", "--report", str(report)]
        )
    out = capsys.readouterr().out.splitlines()
    assert code == 0, out
    assert [line[:19] for line in out if line.startswith("attempt ")] == [
        "attempt 1/3  FAIL  ",
        "attempt 2/3  SAME  ",
        "attempt 3/3  PASS  ",
    ]
    # Not told it sent the same code (a small model sends it again): a fresh sample, with how attempt 1 failed.
    first, third = fake.prompts()[0], fake.prompts()[2]
    assert third.startswith(
        f"{first}\n\nEarlier answers failed the tests. Their code is not shown: write the file anew"
    )
    assert "order: expected [3, 1, 2], got [1, 2, 3]" in third and "same code" not in third
    note = (
        "attempt 2 sent back the code of attempt 1: the next call is a fresh sample from the task, restated with "
        "1 failure so far, 1 step hotter"
    )
    assert f"autofix: note: {note}" in out

    data = json.loads(report.read_text())
    attempts = data["attempts"]
    assert [a["kind"] for a in attempts] == ["failed", "same code", "passed"]
    assert attempts[1]["failing_tests"] == ["(same code as attempt 1)"]
    # every call's prompt tokens, as the endpoint counted them: the repeat is a call like the others
    assert [a["tokens"] for a in attempts] == [
        {"input": 100, "output": 20},
        {"input": 200, "output": 21},
        {"input": 300, "output": 22},
    ]
    assert data["tokens"] == {"input": 600, "output": 63}
    # one system message, first and the same in every request: a server caching prefixes reuses it
    systems = [request.json["messages"][0] for request in fake.requests]
    assert systems[0]["role"] == "system" and systems == [systems[0]] * 3


def test_a_stuck_edit_repair_starts_afresh_from_the_task_and_the_original_file(tmp_path, capsys):
    spec = big_task(tmp_path)
    replies = [edit(BROKEN, WRONG_FIX), edit(WRONG_FIX, SAME_WRONG), edit(BROKEN, FIXED)]
    with ScriptedOpenAI(replies) as fake:
        code = autofix(spec, fake)
    out = capsys.readouterr().out.splitlines()
    assert code == 0, out
    note = "attempt 2 failed the same checks the same way as attempt 1: the next call starts afresh from the task"
    assert f"autofix: note: {note}" in out
    first, second, third = fake.prompts()
    assert third == first != second  # the task alone, the file as it was
    assert " |     return [sum(items[i : i + size]) for i in range(len(items) - size)]" in third
    assert (tmp_path / "big.py").read_text() == big_module().replace(BROKEN, FIXED)
