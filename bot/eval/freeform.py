"""The `freeform` strategy on a `humaneval-repo` task: the free-form pipeline (bot/core/freeform.py)
on a fresh repository with one injected bug, from an issue written from the failing example.

    setup      the bug chosen in the sandbox (bot/eval/repo_tasks.py) and the repository written
    baseline   the repository's suite as it is: green, as the broken module's check is hidden
    localize, reproduce, repair   the pipeline, exactly as `autofix action` runs it on an issue
    hidden     when the gate passed: the problem's own check, on the tree the repair left

A task is resolved when the gate passed and the hidden check passes: the gate alone trusts the
model's own reproduction, which may test less than the bug.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bot.core.freeform import Outcome, Task, solve
from bot.core.protocol import Kind
from bot.core.report import Report, StageUse
from bot.core.workspace import Workspace
from bot.eval.repo_tasks import Problem, RepoTask, inject, write_repository
from bot.eval.results import REPO_STRATEGIES, Result
from bot.eval.strategies import CODE_CHARS, ERROR_CHARS, failure_reason
from bot.judge import gate
from bot.models.base import Model
from bot.sandbox.tiers import Sandbox
from bot.spec import DEFAULT_PROTECT
from bot.text import DETAIL_CHARS, clip_head, clip_tail

STRATEGY = REPO_STRATEGIES[0]  # the one strategy of a repository task set
TEST_PATH = "tests/autofix/test_issue.py"  # where the reproduction goes, as for issue #N on GitHub
# The whole suite takes about 2 s on all 164 problems; a repair that loops forever is stopped.
SUITE_TIMEOUT = 120.0
STAGES = ("setup", "baseline", "localize", "reproduce", "repair", "hidden")


class TimedSuite(gate.Suite):
    """Adds up the time its runs take: the share of a task spent running tests."""

    seconds = 0.0

    def run(
        self, folder: Path, only: set[str] | None = None, baseline: bool = False, outcomes_only: bool = False
    ) -> gate.SuiteRun:
        started = time.monotonic()
        try:
            return super().run(folder, only, baseline, outcomes_only)
        finally:
            self.seconds += time.monotonic() - started


def run_freeform(
    task: RepoTask,
    attempts: int,
    model: Model,
    sandbox: Sandbox,
    solutions: Path,
    clock: Callable[[], float] = time.monotonic,
) -> Result:
    """One task: `attempts` repair calls after the localize call and up to three reproduce calls.
    A resolved task's patch (the reproduction test and the fix) lands under `solutions`."""
    started = clock()
    bug = inject(task.problem, sandbox)
    if isinstance(bug, str):
        return Result(
            task=task.id, strategy=STRATEGY, passed=False, calls=0, attempts=0, tokens_in=0, tokens_out=0,
            seconds=round(clock() - started, 3), validation_seconds=0.0, failure=f"skipped: {bug}", skipped=bug,
        )  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="autofix-repo-") as folder:
        root = Path(folder)
        write_repository(root, task, bug.mutation.source)
        seconds = {"setup": clock() - started}
        suite = TimedSuite(sandbox, pytest_command("tests"), DEFAULT_PROTECT, SUITE_TIMEOUT)
        mark = clock()
        baseline = gate.Baseline.measure(suite, root)
        seconds["baseline"] = clock() - mark
        work = Workspace(root, DEFAULT_PROTECT)
        report = Report(model=model.name, sandbox=sandbox.describe(), target=task.id, max_attempts=attempts)
        outcome = solve(model, suite, work, baseline, Task(bug.issue, [], TEST_PATH, attempts), report, say=ignore)
        patch = work.patch()
        mark = clock()
        # Its own command names its one file: pytest then collects that file alone, not all 164.
        judge = TimedSuite(sandbox, pytest_command(task.problem.test_path), DEFAULT_PROTECT, SUITE_TIMEOUT)
        hidden = hidden_check(judge, root, task.problem) if report.passed else None
        seconds["hidden"] = clock() - mark
    resolved = report.passed and hidden is None
    if resolved:
        fix = solutions / STRATEGY / task.id / "fix.diff"
        fix.parent.mkdir(parents=True, exist_ok=True)
        fix.write_text(patch, encoding="utf-8")
    failure, error = (None, "") if resolved else why_not(outcome, report, hidden)
    figures = stage_figures(report, seconds)
    return Result(
        task=task.id,
        strategy=STRATEGY,
        passed=resolved,
        calls=int(sum(stage["calls"] for stage in figures.values())),
        attempts=sum(a.kind not in (Kind.NO_CODE, Kind.REPEATED) for a in report.attempts),  # test runs
        tokens_in=report.tokens["input"],
        tokens_out=report.tokens["output"],
        seconds=round(clock() - started, 3),
        validation_seconds=round(suite.seconds + judge.seconds, 3),
        failure=failure,
        error=clip_head(error, ERROR_CHARS),
        code="" if resolved else clip_head(patch, CODE_CHARS),
        bug=bug.where,
        shown=bug.problem.path in outcome.located.shown,
        located=bug.problem.path in outcome.located.chosen,
        reproduced=outcome.reproduction is not None,
        gate_passed=report.passed,
        stages=figures,
    )


def pytest_command(tests: str) -> str:
    return f"{sys.executable} -m pytest -q {tests}"


def ignore(line: str) -> None:
    """The pipeline's progress lines: the result holds what they say, and tasks run side by side."""


def hidden_check(suite: gate.Suite, root: Path, problem: Problem) -> str | None:
    """None when the problem's own check passes on the tree, else how it fails."""
    (root / problem.test_path).write_text(problem.test_file(), encoding="utf-8")
    run = suite.run(root, only={problem.test_module})
    if run.killed:
        return f"the hidden check was stopped: {run.killed}"
    cases = [case for test, case in run.results.items() if test.split("::")[0] == problem.test_module]
    if not cases:
        return f"the hidden check did not run:\n{clip_tail(run.output, DETAIL_CHARS)}"
    failing = [case for case in cases if case.outcome != "passed"]
    if not failing:
        return None
    case = failing[0]
    return f"{case.outcome}: {case.message}\n{case.details.replace(run.root + '/', '')}"


def why_not(outcome: Outcome, report: Report, hidden: str | None) -> tuple[str, str]:
    """An unresolved task's failure (one line) and its evidence."""
    if isinstance(outcome.found, list):
        tried = outcome.found
        last = tried[-1].refused.splitlines()[0] if tried else ""
        return (
            f"no reproduction: none of {len(tried)} test files showed the bug; last: {last}",
            "\n\n".join(f"test file {n}: {t.refused}" for n, t in enumerate(tried, 1)),
        )
    if not report.passed:
        return failure_reason(report), report.attempts[-1].feedback if report.attempts else ""
    assert hidden is not None
    return f"the gate passed, the hidden check fails: {hidden.splitlines()[0]}", hidden


def stage_figures(report: Report, seconds: dict[str, float]) -> dict[str, dict[str, float]]:
    """Model calls, tokens and seconds by stage, in STAGES' order; `seconds` holds the stages
    that call no model (setup, baseline, hidden)."""
    figures = {name: stage(0, 0, 0, spent) for name, spent in seconds.items()}
    for name in ("localize", "reproduce"):
        use = report.stages.get(name, StageUse())
        figures[name] = stage(use.calls, use.input, use.output, use.seconds)
    attempts = report.attempts
    figures["repair"] = stage(
        len(attempts),
        sum(a.tokens["input"] for a in attempts),
        sum(a.tokens["output"] for a in attempts),
        sum(a.seconds for a in attempts),
    )
    return {name: figures[name] for name in STAGES}


def stage(calls: int, tokens_in: int, tokens_out: int, seconds: float) -> dict[str, float]:
    return {"calls": calls, "tokens_in": tokens_in, "tokens_out": tokens_out, "seconds": round(seconds, 3)}
