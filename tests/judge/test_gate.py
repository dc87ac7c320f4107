"""The red-CI gate on a test command that is not pytest: the command itself is the one test."""

import sys

from bot.judge import gate
from bot.judge.validate import python_paths
from bot.sandbox.tiers import open_sandbox
from bot.spec import DEFAULT_PROTECT

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
    assert gate.feedback(verdict, run).startswith(
        f"Target tests still failing:\n- {COMMAND}: failed: exited with code 1"
    )


HYPOTHESIS_LIKE = """\
import os


def test_writes_its_example_database():
    os.makedirs(os.path.join(os.path.dirname(__file__), ".hypothesis", "examples"), exist_ok=True)
    with open(os.path.join(os.path.dirname(__file__), ".hypothesis", "examples", "x"), "w") as db:
        db.write("saved")
    from state import value
    assert value() == 2
"""


def test_a_suite_that_writes_its_cache_under_tests_is_judged_on_its_tests(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_cache.py").write_text(HYPOTHESIS_LIKE)
    (tmp_path / "state.py").write_text("def value():\n    return 1\n")
    pytest_suite = gate.Suite(
        open_sandbox("bwrap", readable=python_paths()),
        f"{sys.executable} -m pytest -q tests",
        DEFAULT_PROTECT,
        timeout=30,
    )
    baseline = gate.Baseline.measure(pytest_suite, tmp_path)
    assert baseline.target == ["tests.test_cache::test_writes_its_example_database"]
    (tmp_path / "state.py").write_text("def value():\n    return 2\n")
    run = pytest_suite.run(tmp_path)
    assert run.tampered == []
    assert gate.judge(baseline, run).passed
