"""The red-CI gate on a test command that is not pytest: the command itself is the one test."""

from bot import gate
from bot.sandbox import open_sandbox
from bot.spec import DEFAULT_PROTECT
from bot.validate import python_paths

COMMAND = "grep -q fixed state.txt"


def suite() -> gate.Suite:
    return gate.Suite(open_sandbox("bwrap", readable=python_paths()), COMMAND, DEFAULT_PROTECT, timeout=10)


def test_a_command_without_junit_is_judged_by_its_exit_code(tmp_path):
    (tmp_path / "state.txt").write_text("broken\n")
    baseline = gate.Baseline.measure(suite(), tmp_path)
    assert baseline.target == [COMMAND] and baseline.flaky == [] and baseline.passing == set()
    assert baseline.first.results[COMMAND].message == "exited with code 1"

    (tmp_path / "state.txt").write_text("fixed\n")
    run = suite().run(tmp_path)
    assert [(r.test_id, r.outcome) for r in run.results.values()] == [(COMMAND, "passed")]
    assert gate.judge(baseline, run).passed


def test_a_command_that_stays_red_is_named_in_the_feedback(tmp_path):
    (tmp_path / "state.txt").write_text("broken\n")
    baseline = gate.Baseline.measure(suite(), tmp_path)
    run = suite().run(tmp_path)
    verdict = gate.judge(baseline, run)
    assert verdict.names == [COMMAND]
    assert gate.feedback(verdict, run).startswith(f"Target tests still failing:\n- {COMMAND}: failed: exited with code 1")
