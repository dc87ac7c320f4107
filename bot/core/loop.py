"""The repair loop: generate, run the tests, feed the failures back, until they pass or the budget ends.

Control flow: the model's errors (UserError, ModelUnavailable) propagate to the caller, who
still holds `report` with every attempt made so far and a stop reason that names the error.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

from bot.core import prompts
from bot.core.extract import NoCode, extract_code
from bot.core.report import Attempt, Report, code_diff, write_atomically
from bot.errors import ModelUnavailable, UserError
from bot.judge.validate import Verdict
from bot.models.base import Model
from bot.spec import Spec


class Judge(Protocol):
    """What the loop needs of a judge: a verdict on one candidate (bot.judge.validate.Validator)."""

    def check(self, code: str) -> Verdict: ...


def solve(
    spec: Spec,
    model: Model,
    validator: Judge,
    report: Report,
    on_attempt: Callable[[Attempt], None] = lambda attempt: None,
    clock: Callable[[], float] = time.monotonic,
) -> Report:
    started = clock()
    messages = prompts.first(spec)
    previous: str | None = None
    for number in range(1, spec.max_attempts + 1):
        attempt_started = clock()
        try:
            reply = model.complete(messages)
        except (UserError, ModelUnavailable) as exc:
            report.stop_reason = f"stopped: {exc}"
            raise
        try:
            code = extract_code(reply.text, spec.required_name)
            verdict = confirmed(validator, code)
        except NoCode as exc:
            code = reply.text
            verdict = Verdict(
                False,
                ["(no code)"],
                f"Your reply could not be used: {exc}. Reply with the whole file in one ```python block.",
            )
        attempt = Attempt(
            number=number,
            passed=verdict.passed,
            failing_tests=verdict.failing,
            feedback=verdict.feedback,
            seconds=round(clock() - attempt_started, 3),
            tokens={"input": reply.input_tokens, "output": reply.output_tokens},
            code=code,
            diff=code_diff(previous, code, spec.target),
            inprocess_checks=verdict.inprocess,
        )
        report.attempts.append(attempt)
        on_attempt(attempt)
        if verdict.passed:
            write_target(spec, code)
            report.passed, report.code = True, code
            report.stop_reason = f"passed on attempt {number}"
            return report
        exhausted = budget_exhausted(spec, report, clock() - started)
        if exhausted:
            report.stop_reason = exhausted
            return report
        messages = prompts.repair(spec, code, verdict.feedback)
        previous = code
    report.stop_reason = f"all {spec.max_attempts} attempts failed"
    return report


def confirmed(validator: Judge, code: str) -> Verdict:
    """A pass counts only if a second run in a fresh copy passes too: no luck, no leftover state."""
    verdict = validator.check(code)
    if not verdict.passed:
        return verdict
    again = validator.check(code)
    if again.passed:
        return Verdict(True, seconds=verdict.seconds + again.seconds, inprocess=verdict.inprocess)
    again.feedback = "The tests passed once, then failed when repeated in a fresh copy:\n" + again.feedback
    return again


def budget_exhausted(spec: Spec, report: Report, elapsed: float) -> str | None:
    tokens = sum(report.tokens.values())
    if spec.max_tokens is not None and tokens >= spec.max_tokens:
        return f"token budget spent ({tokens} of {spec.max_tokens})"
    if spec.max_seconds is not None and elapsed >= spec.max_seconds:
        return f"time budget spent ({elapsed:.1f} s of {spec.max_seconds:g} s)"
    return None


def write_target(spec: Spec, code: str) -> None:
    """Only passing code reaches the target, and never half-written."""
    target = spec.target_path
    write_atomically(target, code, target.stat().st_mode & 0o777 if target.exists() else 0o644)
