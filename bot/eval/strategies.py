"""The three strategies `autofix eval` compares, each given the same number of model calls.

All three run through `loop.solve`, so a candidate is extracted, validated (and a pass
confirmed) exactly as `autofix run` does it, and repair's feedback is the loop's own:
- one-shot: the loop with a budget of 1 call;
- repair: the loop with K calls, each after the first carrying the test feedback;
- resample: the loop with K calls whose model never sees the feedback: every call sends
  the first prompt again, so each is a fresh independent sample and the first pass wins.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from bot.core import prompts
from bot.core.loop import solve
from bot.core.protocol import Kind
from bot.core.report import Report
from bot.eval.results import Result, budget
from bot.eval.tasks import Task
from bot.judge.validate import Validator, Verdict
from bot.models.base import Model, Reply
from bot.sandbox.tiers import Sandbox
from bot.spec import Spec
from bot.text import clip_head

FAILURE_CHARS = 300  # of the final failure reason kept per result
ERROR_CHARS = 4_000  # of a failure's feedback kept per result
CODE_CHARS = 20_000  # of a failure's final candidate kept per result


class FreshSamples:
    """A model wrapper that withholds the feedback: whatever the loop asks, the model
    gets the task's first prompt, so every call is an independent sample."""

    def __init__(self, model: Model, spec: Spec):
        self.model, self.spec = model, spec
        self.name, self.banner = model.name, model.banner

    def complete(self, messages: list[dict[str, str]]) -> Reply:
        return self.model.complete(prompts.first(self.spec))


class TimedValidator(Validator):
    """Adds up the time spent validating, for the share of time outside validation."""

    seconds = 0.0

    def check(self, code: str) -> Verdict:
        verdict = super().check(code)
        self.seconds += verdict.seconds
        return verdict


def run_pair(
    task: Task,
    strategy: str,
    attempts: int,
    model: Model,
    sandbox: Sandbox,
    solutions: Path,
    clock: Callable[[], float] = time.monotonic,
) -> Result:
    """Run one strategy on one task. The passing code lands under `solutions`, never in the
    task's own folder: an eval leaves the repository it reads untouched."""
    calls = budget(strategy, attempts)
    # Equal budgets mean equal calls: a spec's own token or time budget would cut some
    # strategies short and not others.
    spec = task.spec.model_copy(
        update={
            "max_attempts": calls,
            "max_tokens": None,
            "max_seconds": None,
            "workdir": solutions / strategy / task.id,
        }
    )
    spec.target_path.parent.mkdir(parents=True, exist_ok=True)
    validator = TimedValidator(task.spec, sandbox)
    asked = FreshSamples(model, spec) if strategy == "resample" else model
    report = Report(model=model.name, sandbox=sandbox.describe(), target=spec.target, max_attempts=calls)
    started = clock()
    solve(spec, asked, validator, report, clock=clock)
    return Result(
        task=task.id,
        strategy=strategy,
        passed=report.passed,
        calls=len(report.attempts),
        attempts=sum(a.kind != Kind.NO_CODE for a in report.attempts),
        tokens_in=report.tokens["input"],
        tokens_out=report.tokens["output"],
        seconds=round(clock() - started, 3),
        validation_seconds=round(validator.seconds, 3),
        failure=None if report.passed else failure_reason(report),
        error="" if report.passed or not report.attempts else clip_head(report.attempts[-1].feedback, ERROR_CHARS),
        code="" if report.passed or not report.attempts else clip_head(report.attempts[-1].code, CODE_CHARS),
    )


def failure_reason(report: Report) -> str:
    last = report.attempts[-1]
    first = next((line[2:] for line in last.feedback.splitlines() if line.startswith("- ")), None)
    reason = f"{report.stop_reason}; last: {first}" if first else report.stop_reason
    return reason if len(reason) <= FAILURE_CHARS else reason[: FAILURE_CHARS - 3] + "..."
