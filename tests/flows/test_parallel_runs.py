"""Runs of the suite that don't depend on each other go side by side, each in a copy of its own:
the baseline's flake check and its run at the base; a passing candidate's whole-suite run and its
confirmation. The real sandbox runs them; a recorder around it notes when each run started and
ended and what it was asked to run, so the tests see them overlap, and see no run started that
the verdict doesn't read."""

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from suite_env import PYTHON as SUITE_PYTHON

from bot.core.gated import GateJudge
from bot.core.proof import ProofJudge
from bot.core.protocol import Candidate
from bot.core.report import Report
from bot.core.reproduce import collected
from bot.core.rounds import confirmed
from bot.core.workspace import Workspace
from bot.judge import gate, side_by_side
from bot.judge.validate import python_paths
from bot.sandbox.tiers import Limits, open_sandbox
from bot.spec import DEFAULT_PROTECT

COMMAND = f"{SUITE_PYTHON} -m pytest -q tests"
CALC = "def add(a, b):\n    return a + b\n"
BROKEN = "def add(a, b):\n    return a - b\n"
TESTS = (
    "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
    "def test_zero():\n    assert add(0, 0) == 0\n"
)
TARGET = "tests.test_calc::test_add"
MEET_SECONDS = 60  # far above any start-up, and a serialized run never ends it sooner


@dataclass
class Run:
    started: float
    ended: float
    argv: list[str]
    seconds: float  # the wall time the run was given


class Recorded:
    """The real sandbox, each run's start, end and argv noted. With `meet` set to N, the first N
    runs each wait, up to MEET_SECONDS, until all N have started: `met` says they did, which a
    loaded machine can't fake or hide as it can a timestamp's order."""

    def __init__(self, sandbox):
        self.sandbox = sandbox
        self.runs: list[Run] = []
        self.meet, self.started, self.met = 0, 0, True
        self.arrived = threading.Condition()
        # (which runs wait before they start, for which run to have started): `met` says it did
        self.hold: tuple[Callable[[list[str]], bool], Callable[[list[str]], bool]] | None = None
        self.begun: list[list[str]] = []

    def run(self, argv, *args, **kwargs):
        with self.arrived:
            self.started += 1
            self.begun.append(list(argv))
            self.arrived.notify_all()
            met = self.started > self.meet or self.arrived.wait_for(
                lambda: self.started >= self.meet, timeout=MEET_SECONDS
            )
            self.met = self.met and met
            if self.hold is not None and self.hold[0](list(argv)):
                until = self.hold[1]
                held = self.arrived.wait_for(lambda: any(until(begun) for begun in self.begun), timeout=MEET_SECONDS)
                self.met = self.met and held
        started = time.monotonic()
        try:
            return self.sandbox.run(argv, *args, **kwargs)
        finally:
            limits = next(arg for arg in (*args, *kwargs.values()) if isinstance(arg, Limits))
            self.runs.append(Run(started, time.monotonic(), list(argv), limits.wall_seconds))

    def __getattr__(self, name):
        return getattr(self.sandbox, name)


def project(folder: Path, calc: str) -> Path:
    (folder / "tests").mkdir(parents=True)
    (folder / "calc.py").write_text(calc)
    (folder / "tests" / "test_calc.py").write_text(TESTS)
    return folder


@pytest.fixture
def sandbox():
    return Recorded(open_sandbox("bwrap", readable=python_paths()))


def overlap(runs: list[Run]) -> bool:
    """Every run started before any of them ended."""
    return max(run.started for run in runs) < min(run.ended for run in runs)


def whole(run: Run) -> bool:
    return whole_argv(run.argv)


def whole_argv(argv: list[str]) -> bool:
    return argv[-1] == "tests" and not any("::" in word for word in argv)


def by_node_id(run: Run, *ids: str) -> bool:
    return run.argv[-len(ids) :] == list(ids) and "tests" not in run.argv


def test_the_flake_check_and_the_run_at_the_base_go_side_by_side_by_node_id(tmp_path, sandbox):
    head, base = project(tmp_path / "head", BROKEN), project(tmp_path / "base", CALC)
    suite = gate.Suite(sandbox, COMMAND, DEFAULT_PROTECT, timeout=60, jobs=2)
    baseline = gate.Baseline.measure(suite, head, base)
    assert (baseline.target, baseline.flaky, baseline.passing) == ([TARGET], [], {"tests.test_calc::test_zero"})
    assert baseline.at_base is not None and baseline.at_base.failing == set()
    assert set(baseline.at_base.results) == {TARGET}  # only what failed at the head ran at the base
    first, *after = sandbox.runs
    assert whole(first) and len(after) == 2
    assert all(by_node_id(run, "tests/test_calc.py::test_add") for run in after)
    assert overlap(after)
    assert baseline.ran == [
        "the whole suite: 2 tests, 1 failing",
        "the 1 failing tests again, to tell flaky ones (by node id)",
        "the 1 failing tests at the base, to tell pre-existing failures",
        "those 2 runs side by side",
    ]
    assert base not in suite.copies  # the base's copy is dropped once measured


def test_the_tests_a_ci_log_names_run_again_and_at_the_base_side_by_side_with_the_whole_suite(tmp_path, sandbox):
    head, base = project(tmp_path / "head", BROKEN), project(tmp_path / "base", CALC)
    suite = gate.Suite(sandbox, COMMAND, DEFAULT_PROTECT, timeout=60, jobs=2)
    sandbox.meet = 2  # the whole suite waits for the flake check to start: they run side by side
    baseline = gate.Baseline.measure(suite, head, base, expected={TARGET})
    assert (baseline.target, baseline.flaky, baseline.passing) == ([TARGET], [], {"tests.test_calc::test_zero"})
    assert baseline.at_base is not None and set(baseline.at_base.results) == {TARGET}
    [first] = [run for run in sandbox.runs if whole(run)]
    early = [run for run in sandbox.runs if run is not first]
    assert len(early) == 2 and all(by_node_id(run, "tests/test_calc.py::test_add") for run in early)
    assert sandbox.met  # the flake check started while the whole suite waited for it: no run after it
    assert baseline.ran[-1] == "the 1 failing tests at the base, to tell pre-existing failures"
    # The failure's message, for the model, is pytest's introspection from the flake check: the
    # whole run read outcomes only.
    assert "assert -1 == 5" in baseline.first.results[TARGET].details
    # The whole run and the run at the base read outcomes only; the flake check, whichever ends
    # first, keeps pytest's introspection.
    assert "--assert=plain" in first.argv and sorted("--assert=plain" in run.argv for run in early) == [False, True]


def test_by_default_one_run_more_than_two_cores_sends_the_whole_suite_and_both_named_runs_at_once(
    tmp_path, sandbox, monkeypatch
):
    monkeypatch.setattr(side_by_side, "cores", lambda: 2)
    head, base = project(tmp_path / "head", BROKEN), project(tmp_path / "base", CALC)
    suite = gate.Suite(sandbox, COMMAND, DEFAULT_PROTECT, timeout=60, jobs=side_by_side.jobs_for(None))
    baseline = gate.Baseline.measure(suite, head, base, expected={TARGET})
    assert (baseline.target, baseline.at_base is not None) == ([TARGET], True)
    assert len(sandbox.runs) == 3 and overlap(sandbox.runs)  # with 2 at once, the run at the base waited


def test_a_wrong_or_hostile_guess_costs_runs_never_the_verdict(tmp_path, sandbox):
    head, base = project(tmp_path / "head", BROKEN), project(tmp_path / "base", CALC)
    suite = gate.Suite(sandbox, COMMAND, DEFAULT_PROTECT, timeout=60, jobs=2)
    # The log names a test that passes and misses the one that fails: that one runs after, as without a log.
    baseline = gate.Baseline.measure(suite, head, base, expected={"tests.test_calc::test_zero"})
    assert (baseline.target, baseline.flaky, baseline.passing) == ([TARGET], [], {"tests.test_calc::test_zero"})
    assert baseline.at_base is not None and baseline.at_base.failing == set()
    late = sorted(sandbox.runs, key=lambda run: run.started)[-2:]
    assert all(by_node_id(run, "tests/test_calc.py::test_add") for run in late) and overlap(late)


NEEDS_REWRITING = (
    "def test_introspected():\n    try:\n        assert 1 == 2\n    except AssertionError as e:\n"
    "        assert '1 == 2' in str(e)  # pytest's message, which only its assertion rewriting writes\n"
)


def test_a_test_that_needs_assertion_rewriting_is_neither_flaky_nor_failing_at_baseline(tmp_path, sandbox):
    head = project(tmp_path / "head", BROKEN)
    (head / "tests" / "test_rewrite.py").write_text(NEEDS_REWRITING)
    baseline = gate.Baseline.measure(gate.Suite(sandbox, COMMAND, DEFAULT_PROTECT, timeout=60, jobs=2), head)
    assert (baseline.target, baseline.flaky) == ([TARGET], [])
    assert baseline.passing == {"tests.test_calc::test_zero", "tests.test_rewrite::test_introspected"}
    assert "1 of them do" in baseline.ran[-1]


def test_a_suite_that_passes_runs_once_at_baseline(tmp_path, sandbox):
    head, base = project(tmp_path / "head", CALC), project(tmp_path / "base", CALC)
    baseline = gate.Baseline.measure(gate.Suite(sandbox, COMMAND, DEFAULT_PROTECT, timeout=60, jobs=2), head, base)
    assert baseline.target == [] and baseline.at_base is None
    assert len(sandbox.runs) == 1 and baseline.ran == [
        "the whole suite: 2 tests, 0 failing",
        "nothing failed: no run again",
    ]


def measured(tmp_path, sandbox, jobs: int = 2):
    head = project(tmp_path / "head", BROKEN)
    suite = gate.Suite(sandbox, COMMAND, DEFAULT_PROTECT, timeout=60, jobs=jobs)
    baseline = gate.Baseline.measure(suite, head)
    sandbox.runs.clear()
    return head, suite, GateJudge(suite, baseline, Workspace(head, DEFAULT_PROTECT, ()))


def test_a_passing_candidate_and_its_confirmation_run_at_the_same_time_in_two_copies(tmp_path, sandbox):
    """The confirmation is the target tests alone: the tests whose outcome the candidate changed."""
    head, suite, judge = measured(tmp_path, sandbox)
    (head / "calc.py").write_text(CALC)
    verdict = confirmed(judge, Candidate("", "", {}))
    assert verdict.passed and verdict.confirmed
    both = sandbox.runs  # no quick run of the failing tests first: the two take about what one takes
    assert len(both) == 2 and overlap(both)
    assert whole(both[0]) or whole(both[1])
    assert by_node_id(both[0], "tests/test_calc.py::test_add") or by_node_id(both[1], "tests/test_calc.py::test_add")
    assert len(suite.copies[head].idle) == 2
    # what the reports count is the whole suite's run
    assert judge.run is not None and set(judge.run.results) == {TARGET, "tests.test_calc::test_zero"}


@pytest.mark.parametrize("jobs", [2, 3])  # 3: the default on 2 cores, a slot more than the two runs
def test_a_candidate_failing_one_of_the_two_runs_is_refused(tmp_path, sandbox, jobs):
    head, suite, judge = measured(tmp_path, sandbox, jobs)
    [copy] = suite.copies[head].idle
    # Passes as the copy's own uid, which one of the runs gets again; fails as any other, which the other gets.
    (head / "calc.py").write_text(
        f"import os\n\n\ndef add(a, b):\n    return a + b if os.getuid() == {copy.uid} else a - b\n"
    )
    verdict = confirmed(judge, Candidate("", "", {}))
    assert not verdict.passed and not verdict.confirmed
    assert verdict.failing == [TARGET] and TARGET in verdict.feedback
    assert len(sandbox.runs) == 2 and overlap(sandbox.runs)


def test_with_one_job_a_candidate_the_quick_run_rejects_starts_no_other_run(tmp_path, sandbox):
    head, suite, judge = measured(tmp_path, sandbox, jobs=1)
    (head / "calc.py").write_text("def add(a, b):\n    return a * b\n")
    verdict = confirmed(judge, Candidate("", "", {}))
    assert not verdict.passed and verdict.failing == [TARGET]
    [quick] = sandbox.runs
    assert by_node_id(quick, "tests/test_calc.py::test_add")


BREAKS_ZERO = "def add(a, b):\n    return a + b + (a == 0)\n"  # test_add passes, test_zero fails


def test_with_one_job_a_pass_is_confirmed_by_its_quick_run_and_a_failure_never(tmp_path, sandbox):
    """The quick run of the target tests, then the whole suite, each in a clean copy: the target
    tests passed twice, which is the confirmation; no third run."""
    head, suite, judge = measured(tmp_path, sandbox, jobs=1)
    (head / "calc.py").write_text(CALC)
    verdict = confirmed(judge, Candidate("", "", {}))
    assert verdict.passed and verdict.confirmed
    quick, first = sandbox.runs
    assert by_node_id(quick, "tests/test_calc.py::test_add") and whole(first) and quick.ended <= first.started
    sandbox.runs.clear()
    (head / "calc.py").write_text(BREAKS_ZERO)
    judge.last_failing = set()  # as after a pass: nothing to run first
    verdict = confirmed(judge, Candidate("", "", {}))
    assert not verdict.passed and verdict.failing == ["tests.test_calc::test_zero"]
    [only] = sandbox.runs
    assert whole(only)


def variant(argv: list[str]) -> bool:
    """A run of the proof's: the target test alone, outcomes only."""
    return "--assert=plain" in argv and argv[-1] == "tests/test_calc.py::test_add"


def test_the_proofs_mutants_are_judged_side_by_side_each_in_a_copy_of_its_own(tmp_path, sandbox):
    head, suite, judge = measured(tmp_path, sandbox, jobs=3)  # the whole suite's run holds one of the 3
    judge.work.originals["calc.py"] = BROKEN  # what the edits changed, as applying them records it
    (head / "calc.py").write_text(CALC)
    proof = ProofJudge(judge, [TARGET], [], Report(model="m", sandbox="bwrap", target="calc", max_attempts=1))
    assert confirmed(proof, Candidate("", "", {})).passed
    mutants = [run for run in sandbox.runs if variant(run.argv)]
    assert proof.strength is not None and proof.strength.killed > 0 and len(mutants) >= 2
    assert overlap(mutants[:2])
    assert (head / "calc.py").read_text() == CALC  # no variant was ever written into the work tree


def test_a_mutant_s_run_stops_after_three_times_the_fix_s_own_run_of_its_tests_and_ten_seconds(tmp_path, sandbox):
    """A mutant that loops would hold the step for the suite's whole timeout; a null mutant keeps
    it (stopped early on a loaded machine, it would void a right fix's proof)."""
    head, suite, judge = measured(tmp_path, sandbox, jobs=3)  # the suite's timeout: 60 s
    judge.work.originals["calc.py"] = BROKEN
    (head / "calc.py").write_text(CALC)
    proof = ProofJudge(judge, [TARGET], [], Report(model="m", sandbox="bwrap", target="calc", max_attempts=1))
    assert confirmed(proof, Candidate("", "", {})).passed
    confirmation = next(run for run in sandbox.runs if not variant(run.argv) and not whole(run))
    assert judge.targets_seconds is not None and 0 < judge.targets_seconds <= confirmation.ended - confirmation.started
    bound = 3 * judge.targets_seconds + 10
    given = [run.seconds for run in sandbox.runs if variant(run.argv)]
    assert proof.strength is not None and proof.strength.total > 0
    assert given.count(bound) == proof.strength.total and given.count(60) == len(given) - proof.strength.total > 0


def test_the_proof_starts_once_the_confirmation_passed_beside_the_whole_suites_run(tmp_path, sandbox):
    """The whole suite's run waits to start until a variant of the proof has started: which only
    the confirmation passing, while the whole run has not ended, starts."""
    head, suite, judge = measured(tmp_path, sandbox, jobs=3)
    judge.work.originals["calc.py"] = BROKEN
    (head / "calc.py").write_text(CALC)
    proof = ProofJudge(judge, [TARGET], [], Report(model="m", sandbox="bwrap", target="calc", max_attempts=1))
    sandbox.hold = (whole_argv, variant)
    assert confirmed(proof, Candidate("", "", {})).passed
    assert sandbox.met and proof.strength is not None and proof.strength.killed > 0


def test_a_proof_measured_beside_a_whole_run_that_fails_is_kept_by_no_one(tmp_path, sandbox):
    """The target test passes (so the proof starts), the whole suite fails: no strength reported."""
    head, suite, judge = measured(tmp_path, sandbox, jobs=3)
    judge.work.originals["calc.py"] = BROKEN
    (head / "calc.py").write_text(BREAKS_ZERO)
    report = Report(model="m", sandbox="bwrap", target="calc", max_attempts=1)
    proof = ProofJudge(judge, [TARGET], [], report)
    sandbox.hold = (whole_argv, variant)
    verdict = confirmed(proof, Candidate("", "", {}))
    assert not verdict.passed and verdict.failing == ["tests.test_calc::test_zero"]
    assert sandbox.met  # the proof did run
    assert proof.strength is None and report.strength is None


def test_a_reproduction_outside_the_commands_paths_is_named_from_its_first_run(tmp_path, sandbox):
    head = project(tmp_path / "head", BROKEN)
    (head / "repro").mkdir()
    (head / "repro" / "test_issue.py").write_text(
        "from calc import add\n\n\ndef test_it():\n    assert add(1, 1) == 2\n"
    )
    suite = gate.Suite(sandbox, COMMAND, DEFAULT_PROTECT, timeout=60)
    run = collected(suite, head, "repro/test_issue.py")
    assert run.failing == {"repro.test_issue::test_it"} and suite.also == ("repro/test_issue.py",)
    [only] = sandbox.runs  # `pytest tests` never collects it: no run to find that out
    assert by_node_id(only, "repro/test_issue.py")
