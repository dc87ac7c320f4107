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
from bot.core.languages import language_of
from bot.core.protocol import Answer, Budget, Candidate, Judge, Kind, Unusable
from bot.core.repeats import Judged, Streak, repeated
from bot.core.report import Attempt, Report
from bot.core.strength import StrengthJudge
from bot.core.whole_file import WholeFile
from bot.errors import ModelUnavailable, UserError
from bot.judge.canaries import FORGED
from bot.judge.validate import Validator, Verdict, current_text
from bot.models.base import Model, reply_tokens, scaled_reply_tokens, warmer
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
    *,
    restart: Callable[[], Answer] | None = None,
    judged: Judged | None = None,
) -> Report:
    """`restart` makes a fresh answer: given, a repair that fails as the last attempt judged did
    is followed by a fresh sample from the task. `judged` holds what was judged before the loop
    (the current code)."""
    seen = judged if judged is not None else Judged()
    try:
        for note in judge.preflight():
            report.notes.append(note)
            on_note(note)
        started = clock()
        messages = asked = answer.first()  # asked: the prompt as the answer made it, before a cut reply's note
        repeats = 0  # replies in a row that repeated a judged candidate: the next call is that much hotter
        streak, repairing = Streak(), False  # whether this call's prompt is a repair prompt
        for number in range(1, budget.max_attempts + 1):
            on_stage(f"attempt {number} of {budget.max_attempts}")
            attempt_started, started_at = clock(), datetime.now(UTC).isoformat(timespec="seconds")
            with warmer(repeats):
                reply = model.complete(messages)
            answered = clock()
            if reply.cut_at is not None:  # half a reply: its code is unfinished, or its edits unmatched
                candidate, failure = Candidate(reply.text, "", {}), None
                kind, verdict = Kind.CUT, Verdict(False, [f"({Kind.CUT})"], CUT.format(tokens=reply.cut_at))
            else:
                try:
                    candidate = answer.apply(reply.text)
                except Unusable as why:
                    candidate, failure = Candidate(reply.text, "", {}), None
                    kind, verdict = why.kind, Verdict(False, [f"({why.kind})"], why.feedback)
                else:
                    earlier = seen.find(candidate)
                    if earlier is not None:  # a model call, but no test run: the verdict is known
                        kind, verdict, failure = Kind.REPEATED, repeated(*earlier), earlier[1]
                    else:
                        verdict = failure = confirmed(judge, candidate)
                        kind = Kind.PASSED if verdict.passed else Kind.FORGED if verdict.forged else Kind.FAILED
                        seen.add(candidate, f"attempt {number}", verdict)
            repeats = repeats + 1 if kind == Kind.REPEATED else 0
            judged_at = clock()
            attempt = Attempt(
                number=number,
                passed=verdict.passed,
                failing_tests=verdict.failing,
                feedback=verdict.feedback,
                seconds=round(judged_at - attempt_started, 3),
                tokens={"input": reply.input_tokens, "output": reply.output_tokens},
                cached_tokens=reply.cached_tokens,
                code=candidate.code,
                diff=candidate.diff,
                inprocess_checks=verdict.inprocess,
                tests_passed=verdict.tests,
                kind=str(kind),
                started_at=started_at,
                model_seconds=round(answered - attempt_started, 3),
                test_seconds=round(judged_at - answered, 3),
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
            stuck = streak.stuck(number, failure, kind == Kind.REPEATED, repairing)
            if kind == Kind.CUT:  # the answer never saw the reply: the same prompt again, told why
                messages = cut_short(asked, verdict.feedback)
                continue
            if restart is not None and stuck:
                note = f"{stuck}: the next call starts afresh from the task"
                report.notes.append(note)
                on_note(note)
                answer = restart()
                messages, repairing = answer.first(), False
            else:
                messages, repairing = answer.next(verdict.feedback), True
            asked = messages
    except (UserError, ModelUnavailable) as exc:
        report.stop_reason = f"stopped: {exc}"
        raise
    report.stop_reason = (
        f"all {budget.max_attempts} attempts failed" if budget.max_attempts > 1 else "the one attempt failed"
    )
    return report


CUT = (
    "Your reply was cut at {tokens} tokens, the most one reply may have here, before it ended, so none of it "
    "was used. Answer again in fewer tokens: only what the format asks for (edit blocks for just the lines "
    "that change, or the code alone), with no explanation and no tests of your own."
)


def cut_short(messages: list[dict[str, str]], feedback: str) -> list[dict[str, str]]:
    """The prompt a cut reply answered, with `feedback` at the end of its last user turn (a turn
    of its own would make two user turns in a row, which some chat templates refuse)."""
    last = len(messages) - 1
    if last < 0 or messages[last]["role"] != "user":
        return [*messages, {"role": "user", "content": feedback}]
    return [*messages[:last], {**messages[last], "content": f"{messages[last]['content']}\n\n{feedback}"}]


REPEATED_FAILED = "The tests passed once, then failed when repeated in a clean copy:\n"


def confirmed(judge: Judge, candidate: Candidate) -> Verdict:
    """A pass counts only if a second run in a clean copy passes too: no luck, no leftover state.
    A judge that ran both at once (`confirmed`) is not asked again."""
    verdict = judge.check(candidate)
    if not verdict.passed or verdict.confirmed:
        return verdict
    again = judge.check(candidate)
    if again.passed:
        return Verdict(True, seconds=verdict.seconds + again.seconds, inprocess=verdict.inprocess, tests=again.tests)
    again.feedback = REPEATED_FAILED + again.feedback
    return again


class FileJudge:
    """The Validator as the loop's judge: the candidate's text for the target, in a scratch copy.
    Existing code is judged in the preflight too (after the baseline, a run of the tests it failed
    there): how it fails goes in the first prompt as a repair prompt would say it, and a reply that
    gives it back unchanged is known for what it is (`judged`)."""

    def __init__(self, validator: Validator, target: str, current: str | None = None, judged: Judged | None = None):
        self.validator, self.target, self.current = validator, target, current
        self.judged = judged if judged is not None else Judged()
        self.failures = ""  # how the current code fails its tests; "" when it passes, or there is none

    def preflight(self) -> list[str]:
        notes = self.validator.preflight()
        if self.current is not None:
            verdict = self.validator.check(self.current)
            self.failures = "" if verdict.passed else verdict.feedback
            self.judged.add(Candidate(self.current, "", {self.target: self.current}), "the current code", verdict)
        return notes

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
    *,
    restart_when_stuck: bool = True,
) -> Report:
    """A task that writes one target file, judged by the validator: whole, or by edits (`mode`).
    `restart_when_stuck`: a repair that fails as the attempt before it did is followed by a fresh
    answer from the task and the original file (the eval's `repair` turns it off, to compare)."""
    budget = Budget(spec.max_attempts, spec.max_tokens, spec.max_seconds, spec.max_cost)
    if report.price is None:
        report.price = price_of(report.model, spec.price)
    report.spec, report.task = report.spec or str(spec.path), report.task or spec.task
    current, judged = current_text(spec.target_path), Judged()
    file_judge = FileJudge(validator, spec.target, current, judged)
    judge = StrengthJudge(file_judge, validator, spec, report)

    def noted(note: str) -> None:  # how a reply was taken or asked for: said in the log and the report
        note = f"attempt {len(report.attempts) + 1}: {note}"
        report.notes.append(note)
        on_note(note)

    def answer() -> Answer:
        return answer_for(
            spec, current, lambda: validator.failures_seen or file_judge.failures, noted, lambda: file_judge.failures
        )

    # Every reply is bounded by the target's size, or the spec's `reply_tokens` (a flag, in the settings, wins).
    with reply_tokens(spec.reply_tokens or scaled_reply_tokens(len(current) if current else None)):
        return run(
            answer(), judge, model, budget, report, on_attempt, on_note, clock, on_stage,
            restart=answer if restart_when_stuck else None, judged=judged,
        )  # fmt: skip


def answer_for(
    spec: Spec,
    current: str | None,
    failures: Callable[[], str],
    on_note: Callable[[str], None] = lambda note: None,
    shown: Callable[[], str] = lambda: "",
) -> Answer:
    """`failures`: the current code's, known once the preflight ran (an edit's windows follow them).
    `on_note`: told when edit mode asks for one whole function instead of edit blocks, or puts a
    reply's definitions in place of the edit blocks it lacks, and when lines of a reply that run its
    own tests are left out. `shown`: how the current code fails, as a repair prompt says it, in
    every first prompt."""
    long = current is not None and len(current.splitlines()) > WHOLE_LINES
    language = language_of(spec)  # None for a document or a query: written whole
    if current is not None and language is not None and (spec.mode == "edit" or (spec.mode == "auto" and long)):
        return EditFile(spec, language, current, failures, on_note, shown)
    return WholeFile(spec, current, shown, on_note)
