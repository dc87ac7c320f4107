"""`autofix run` on existing code: a large module is edited with SEARCH/REPLACE blocks, the model
sees the code it must change and never the whole file; and a test command that can't judge
anything stops before any model call, blaming the environment, not a candidate."""

import json
from pathlib import Path

from fake_openai import ScriptedOpenAI
from suite_env import PYTHON as SUITE_PYTHON

from bot.cli import main

PYTEST = f"{SUITE_PYTHON} -m pytest -q -p no:cacheprovider"
BROKEN = "def window_sums(items, size):\n    return [sum(items[i : i + size]) for i in range(len(items) - size)]\n"
FIXED = "def window_sums(items, size):\n    return [sum(items[i : i + size]) for i in range(len(items) - size + 1)]\n"
WRONG_FIX = "def window_sums(items, size):\n    return [sum(items[i : i + size - 1]) for i in range(len(items))]\n"
TESTS = """\
from big import helper_0007, window_sums


def test_window_sums():
    assert window_sums([1, 2, 3, 4], 2) == [3, 5, 7]


def test_window_sums_whole():
    assert window_sums([1, 2], 2) == [3]


def test_helper():
    assert helper_0007(1) == 8
"""


def big_module() -> str:
    """5,000 lines and more: 1,250 small helpers, and the broken function in the middle."""
    helpers = [f"def helper_{i:04d}(x):\n    y = x + {i}\n    return y\n\n" for i in range(1, 1251)]
    return "".join(helpers[:600]) + BROKEN + "\n" + "".join(helpers[600:])


def edit(search: str, replace: str) -> str:
    return f"I'll fix the range.\n\nbig.py\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n"


def write_task(folder: Path, command: str, **extra: str) -> Path:
    spec = folder / "task.yml"
    lines = [
        "task: window_sums(items, size) must return the sums of every window of `size` consecutive items.",
        "target: big.py",
        f"tests:\n  command: {json.dumps(command)}",
        "timeout: 60",
        "strategy: repair+resample",  # these tests follow repairs: the default, resample, shows no feedback
        *(f"{key}: {value}" for key, value in extra.items()),
    ]
    spec.write_text("\n".join(lines) + "\n")
    return spec


def autofix(spec: Path, fake: ScriptedOpenAI, *extra: str) -> int:
    return main(["run", str(spec), "--base-url", fake.base_url, "--model", "m", "--api", "chat", *extra])


def test_a_large_module_is_repaired_with_edits_and_never_sent_whole(tmp_path, capsys):
    module = big_module()
    assert len(module.splitlines()) >= 5000
    (tmp_path / "big.py").write_text(module)
    (tmp_path / "test_big.py").write_text(TESTS)
    spec = write_task(tmp_path, f"{PYTEST} test_big.py")
    report = tmp_path / "report.json"
    replies = [edit(BROKEN, WRONG_FIX), edit(WRONG_FIX, FIXED)]
    with ScriptedOpenAI(replies) as fake:
        code = autofix(spec, fake, "--report", str(report))
    out = capsys.readouterr().out
    assert code == 0, out
    assert (tmp_path / "big.py").read_text() == module.replace(BROKEN, FIXED)

    first, second = fake.prompts()
    for prompt in (first, second):
        assert len(prompt) < len(module) // 10  # the outline and windows, not the file
        assert "helper_0300(x):\n" not in prompt and "y = x + 300" not in prompt  # far from the bug: no body
    # The first prompt shows the broken function, numbered, where the failing tests point.
    assert " | def window_sums(items, size):" in first
    assert " |     return [sum(items[i : i + size]) for i in range(len(items) - size)]" in first
    assert "<<<<<<< SEARCH" in first  # the format is explained
    # The second shows the file as the first edit left it, and what came of it.
    assert " |     return [sum(items[i : i + size - 1]) for i in range(len(items))]" in second
    assert "- test_big.py::test_window_sums: " in second

    data = json.loads(report.read_text())
    assert [a["kind"] for a in data["attempts"]] == ["failed", "passed"]
    assert data["code"].startswith("--- a/big.py\n+++ b/big.py\n") and "+    return [sum(items" in data["code"]
    assert data["attempts"][1]["diff"].count("\n-    return") == 1  # the attempt's own change only


def test_an_edit_to_another_file_is_refused_and_nothing_changes(tmp_path, capsys):
    module = big_module()
    (tmp_path / "big.py").write_text(module)
    (tmp_path / "test_big.py").write_text(TESTS)
    spec = write_task(tmp_path, f"{PYTEST} test_big.py", max_attempts="2")
    cheat = (
        "test_big.py\n<<<<<<< SEARCH\n    assert window_sums([1, 2], 2) == [3]\n=======\n    pass\n>>>>>>> REPLACE\n"
    )
    with ScriptedOpenAI([cheat, edit(BROKEN, FIXED)]) as fake:
        assert autofix(spec, fake) == 0
    second = fake.prompts()[1]
    assert "block 1 (test_big.py): this task edits only `big.py`" in second
    assert (tmp_path / "test_big.py").read_text() == TESTS


def stopped_before_the_model(tmp_path: Path, capsys, command: str) -> str:
    (tmp_path / "big.py").write_text(BROKEN)
    (tmp_path / "test_big.py").write_text(TESTS.replace("helper_0007, ", ""))
    spec = write_task(tmp_path, command)
    with ScriptedOpenAI([edit(BROKEN, FIXED)] * 3) as fake:
        code = autofix(spec, fake)
    captured = capsys.readouterr()
    assert (code, fake.requests) == (2, []), captured  # configuration error; the model never asked
    [line] = captured.err.splitlines()
    assert line.startswith(f"autofix: error: {spec}: tests.command: `{command}`")
    return line


def test_a_command_that_cannot_start_stops_before_the_model(tmp_path, capsys):
    line = stopped_before_the_model(tmp_path, capsys, "no-such-runner -q test_big.py")
    assert "can't start (exit code 127): '/bin/sh: 1: no-such-runner: not found'; the tests run with your PATH" in line


def test_a_typo_in_the_test_path_stops_before_the_model(tmp_path, capsys):
    line = stopped_before_the_model(tmp_path, capsys, f"{PYTEST} test_bgi.py")
    assert "pytest refused it: 'ERROR: file or directory not found: test_bgi.py'; fix the test path" in line


def test_a_command_that_collects_no_tests_stops_before_the_model(tmp_path, capsys):
    line = stopped_before_the_model(tmp_path, capsys, f"{PYTEST} -k no_such_test test_big.py")
    assert "collects no tests: " in line and "deselected" in line


def test_a_suite_whose_hook_raises_stops_before_the_model(tmp_path, capsys):
    """pytest's INTERNALERROR ends the session with what it reported so far (none of the tests, or a
    twin of one: found on toolz, whose baseline then read "1 test, 0 failing"): nothing to judge by."""
    (tmp_path / "conftest.py").write_text("def pytest_collection_modifyitems(items):\n    raise RuntimeError('boom')\n")
    line = stopped_before_the_model(tmp_path, capsys, f"{PYTEST} test_big.py")
    assert "pytest stopped with an internal error: 'INTERNALERROR> RuntimeError: boom'; a hook of a plugin" in line


def test_exitfirst_is_lifted_for_judging_and_said_once(tmp_path, capsys):
    (tmp_path / "big.py").write_text(BROKEN + "\n\ndef helper_0007(x):\n    return x\n")
    (tmp_path / "test_big.py").write_text(TESTS)
    spec = write_task(tmp_path, f"{PYTEST} -x test_big.py", max_attempts="1", mode="edit")
    report = tmp_path / "report.json"
    with ScriptedOpenAI([edit(BROKEN, WRONG_FIX)]) as fake:
        assert autofix(spec, fake, "--report", str(report)) == 1
    notes = [line for line in capsys.readouterr().out.splitlines() if line.startswith("autofix: note: ")]
    assert notes == [
        "autofix: note: tests.command stops at the first failure (-x or --maxfail=1); "
        "autofix runs the whole suite to judge a candidate"
    ]
    # Judged on the whole suite: every failure is named, not only the first.
    [attempt] = json.loads(report.read_text())["attempts"]
    assert sorted(attempt["failing_tests"]) == [
        "test_big::test_helper", "test_big::test_window_sums", "test_big::test_window_sums_whole"
    ]  # fmt: skip
