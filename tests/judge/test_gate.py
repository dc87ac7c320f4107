"""The red-CI gate on a test command that is not pytest: the command itself is the one test."""

import pytest
from suite_env import PYTHON as SUITE_PYTHON

from bot.errors import UserError
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


def test_a_suite_that_writes_into_the_tree_is_told_to_exempt_the_path_then_judged_on_its_tests(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_cache.py").write_text(HYPOTHESIS_LIKE)
    (tmp_path / "state.py").write_text("def value():\n    return 1\n")
    sandbox = open_sandbox("bwrap", readable=python_paths())
    command = f"{SUITE_PYTHON} -m pytest -q tests"
    with pytest.raises(UserError, match=r"the tests write tests/\.hypothesis, and the tree under test is read-only"):
        gate.Baseline.measure(gate.Suite(sandbox, command, DEFAULT_PROTECT, timeout=30), tmp_path)
    pytest_suite = gate.Suite(sandbox, command, DEFAULT_PROTECT, timeout=30, exempt=("tests/.hypothesis",))
    baseline = gate.Baseline.measure(pytest_suite, tmp_path)
    assert baseline.target == ["tests.test_cache::test_writes_its_example_database"]
    (tmp_path / "state.py").write_text("def value():\n    return 2\n")
    run = pytest_suite.run(tmp_path)
    assert run.tampered == []
    assert gate.judge(baseline, run).passed
    assert not (tmp_path / "tests" / ".hypothesis").exists()  # written in the copy, and gone with it


PYTEST_SUITE = {
    "calc.py": "def add(a, b):\n    return a - b\n",
    "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    "tests/test_more.py": "".join(f"def test_more_{i}():\n    assert True\n\n\n" for i in range(6)),
}


def pytest_gate(tmp_path) -> gate.Suite:
    for relpath, text in PYTEST_SUITE.items():
        (tmp_path / relpath).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relpath).write_text(text)
    command = f"{SUITE_PYTHON} -m pytest -q -p no:cacheprovider tests"
    return gate.Suite(open_sandbox("bwrap", readable=python_paths()), command, DEFAULT_PROTECT, timeout=30)


def test_the_baseline_runs_the_failing_tests_again_and_only_them(tmp_path):
    baseline = gate.Baseline.measure(pytest_gate(tmp_path), tmp_path)
    assert baseline.target == ["tests.test_calc::test_add"] and baseline.flaky == []
    assert baseline.passing == {f"tests.test_more::test_more_{i}" for i in range(6)}
    rerun = pytest_gate(tmp_path).run(tmp_path, only={"tests.test_calc::test_add"})
    assert list(rerun.results) == ["tests.test_calc::test_add"] and "1 failed, 6 deselected" in rerun.output


def test_a_quick_run_judges_only_its_tests_and_never_stands_for_the_suite(tmp_path):
    suite = pytest_gate(tmp_path)
    baseline = gate.Baseline.measure(suite, tmp_path)
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (tmp_path / "tests/test_more.py").write_text("def test_more_0():\n    assert False\n")  # broken elsewhere
    only = set(baseline.target)
    quick = suite.run(tmp_path, only=only)
    assert gate.judge(baseline, quick, only).passed  # the target passes; the rest wasn't asked
    assert not gate.judge(baseline, suite.run(tmp_path)).passed  # the whole suite finds the break


def test_a_run_whose_messages_no_one_reads_gives_the_same_outcomes_without_rewriting_asserts(tmp_path):
    suite = pytest_gate(tmp_path)
    only = {"tests.test_calc::test_add", "tests.test_more::test_more_0"}
    full, plain = suite.run(tmp_path, only=only), suite.run(tmp_path, only=only, outcomes_only=True)
    outcomes = {test: case.outcome for test, case in full.results.items()}
    assert outcomes == {test: case.outcome for test, case in plain.results.items()}
    assert outcomes == {"tests.test_calc::test_add": "failed", "tests.test_more::test_more_0": "passed"}
    # pytest's introspection of both sides, in the run whose feedback a model reads only.
    assert "assert -1 == 5" in full.results["tests.test_calc::test_add"].details
    assert "assert -1 == 5" not in plain.results["tests.test_calc::test_add"].details


def test_a_forged_report_is_named_by_the_runner_that_ran():
    """A Go or JavaScript run's forgery is its runner's, not pytest's (the gate's label was fixed)."""
    from bot.judge.integrity import Case

    passed = {"calc::TestAdd": Case("calc::TestAdd", "passed", "", "")}
    head = gate.SuiteRun(passed, 0, "", None, "/w", sealed=True, runner="go")
    baseline = gate.Baseline(head, [], [], {"calc::TestAdd"})
    run = gate.SuiteRun(passed, 0, "", None, "/w", sealed=True, forged=["a canary is missing"], runner="go")
    verdict = gate.judge(baseline, run)
    assert (verdict.forged, verdict.names) == (True, ["(go)"])
