"""The repair loop every flow runs: ask, apply the reply, judge it, feed the failures back, until
the tests pass or the budget ends.

Two small protocols make the flows: an Answer turns replies into candidates (the whole file, or
SEARCH/REPLACE edits) and says what to ask next; a Judge gives a candidate its verdict (inline
checks and the test command on a scratch copy, or red CI's whole-suite gate). The loop owns what
they share: the preflight before any model call, the budget checks, the confirmation rerun of a
pass, and the attempt log.

Progress: `on_attempt` gets each attempt once judged; `on_stage` gets a short label of what starts
("attempt 2 of 3"), for a caller that shows where the task is.

Control flow: the model's and the judge's errors (UserError, ModelUnavailable) propagate to the
caller, who still holds `report` with every attempt made so far and a stop reason naming the error.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime

from bot.core.edit_file import WHOLE_LINES, EditFile
from bot.core.protocol import Answer, Budget, Candidate, Judge, Kind, Unusable
from bot.core.report import Attempt, Report
from bot.core.strength import StrengthJudge
from bot.core.whole_file import WholeFile
from bot.errors import ModelUnavailable, UserError
from bot.judge.canaries import FORGED
from bot.judge.validate import Validator, Verdict, current_text
from bot.models.base import Model
from bot.models.prices import price_of
from bot.spec import Spec


def run(
    answer: Answer,
    judge: Judge,
    model: Model,
    budget: Budget,
    report: Report,
    on_attempt: Callable[[Attempt], None] = lambda attempt: None,
    on_note: Callable[[str], None] = lambda note: None,
    clock: Callable[[], float] = time.monotonic,
    on_stage: Callable[[str], None] = lambda stage: None,
) -> Report:
    try:
        for note in judge.preflight():
            report.notes.append(note)
            on_note(note)
        started = clock()
        messages = answer.first()
        for number in range(1, budget.max_attempts + 1):
            on_stage(f"attempt {number} of {budget.max_attempts}")
            attempt_started, started_at = clock(), datetime.now(UTC).isoformat(timespec="seconds")
            reply = model.complete(messages)
            answered = clock()
            try:
                candidate = answer.apply(reply.text)
            except Unusable as why:
                candidate = Candidate(reply.text, "", {})
                kind, verdict = why.kind, Verdict(False, [f"({why.kind})"], why.feedback)
            else:
                verdict = confirmed(judge, candidate)
                kind = Kind.PASSED if verdict.passed else Kind.FORGED if verdict.forged else Kind.FAILED
            judged = clock()
            attempt = Attempt(
                number=number,
                passed=verdict.passed,
                failing_tests=verdict.failing,
                feedback=verdict.feedback,
                seconds=round(judged - attempt_started, 3),
                tokens={"input": reply.input_tokens, "output": reply.output_tokens},
                cached_tokens=reply.cached_tokens,
                code=candidate.code,
                diff=candidate.diff,
                inprocess_checks=verdict.inprocess,
                kind=str(kind),
                started_at=started_at,
                model_seconds=round(answered - attempt_started, 3),
                test_seconds=round(judged - answered, 3),
                prompt=messages,
                reply=reply.text,
            )
            report.attempts.append(attempt)
            on_attempt(attempt)
            if verdict.passed:
                report.passed, report.code = True, answer.keep(candidate)
                report.stop_reason = f"passed on attempt {number}"
                return report
            if verdict.forged:  # a candidate that forges its verdict gets no more attempts, and no proposal
                report.stop_reason = f"stopped: {FORGED} on attempt {number}"
                return report
            spent = budget.spent(report, clock() - started)
            if spent:
                report.stop_reason = spent
                return report
            messages = answer.next(verdict.feedback)
    except (UserError, ModelUnavailable) as exc:
        report.stop_reason = f"stopped: {exc}"
        raise
    report.stop_reason = (
        f"all {budget.max_attempts} attempts failed" if budget.max_attempts > 1 else "the one attempt failed"
    )
    return report


def confirmed(judge: Judge, candidate: Candidate) -> Verdict:
    """A pass counts only if a second run in a clean copy passes too: no luck, no leftover state."""
    verdict = judge.check(candidate)
    if not verdict.passed:
        return verdict
    again = judge.check(candidate)
    if again.passed:
        return Verdict(True, seconds=verdict.seconds + again.seconds, inprocess=verdict.inprocess)
    again.feedback = "The tests passed once, then failed when repeated in a clean copy:\n" + again.feedback
    return again


class FileJudge:
    """The Validator as the loop's judge: the candidate's text for the target, in a scratch copy."""

    def __init__(self, validator: Validator, target: str):
        self.validator, self.target = validator, target

    def preflight(self) -> list[str]:
        return self.validator.preflight()

    def check(self, candidate: Candidate) -> Verdict:
        return self.validator.check(candidate.files[self.target])


def solve(
    spec: Spec,
    model: Model,
    validator: Validator,
    report: Report,
    on_attempt: Callable[[Attempt], None] = lambda attempt: None,
    on_note: Callable[[str], None] = lambda note: None,
    clock: Callable[[], float] = time.monotonic,
    on_stage: Callable[[str], None] = lambda stage: None,
) -> Report:
    """A task that writes one target file, judged by the validator: whole, or by edits (`mode`)."""
    budget = Budget(spec.max_attempts, spec.max_tokens, spec.max_seconds, spec.max_cost)
    if report.price is None:
        report.price = price_of(report.model, spec.price)
    report.spec, report.task = report.spec or str(spec.path), report.task or spec.task
    judge = StrengthJudge(FileJudge(validator, spec.target), validator, spec, report)

    def switched(note: str) -> None:  # edit mode asking for one whole function: said in the log and the report
        note = f"attempt {len(report.attempts) + 1}: {note}"
        report.notes.append(note)
        on_note(note)

    answer = answer_for(spec, validator, switched)
    return run(answer, judge, model, budget, report, on_attempt, on_note, clock, on_stage)


def answer_for(spec: Spec, validator: Validator, on_switch: Callable[[str], None] = lambda note: None) -> Answer:
    """`on_switch`: told when edit mode asks for one whole function instead of edit blocks."""
    current = current_text(spec.target_path)
    long = current is not None and len(current.splitlines()) > WHOLE_LINES
    python = spec.target_kind == "python"  # a document or a query is written whole
    if current is not None and python and (spec.mode == "edit" or (spec.mode == "auto" and long)):
        return EditFile(spec, current, lambda: validator.failures_seen, on_switch)
    return WholeFile(spec, current)
