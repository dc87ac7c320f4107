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
from collections.abc import Callable, Sequence

from bot.core.edit_file import WHOLE_LINES, EditFile
from bot.core.languages import language_of
from bot.core.protocol import Answer, Budget, Candidate, Judge, Kind, Messages
from bot.core.repeats import Judged, Streak, same_failure
from bot.core.report import Attempt, Report
from bot.core.rounds import NUMBER, Draw, apply, ask, judge_round, representative
from bot.core.strength import StrengthJudge
from bot.core.whole_file import WholeFile
from bot.errors import ModelUnavailable, UserError
from bot.judge.canaries import FORGED
from bot.judge.validate import Validator, Verdict, current_text
from bot.models.base import Model, reply_tokens, scaled_reply_tokens
from bot.models.prices import price_of
from bot.spec import Spec, Strategy
from bot.text import count


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
    restart: Callable[[Sequence[str]], Answer] | None = None,
    judged: Judged | None = None,
    candidates: int = 1,
    strategy: Strategy = "repair+resample",
) -> Report:
    """`restart` makes a fresh answer from the task, its first prompt restating the failures
    given. The `strategy` says what follows a failed round (bot/spec.py): resample, a fresh answer
    whose first prompt is the task's alone (an independent sample); repair, a repair, but a reply
    repeating code judged before gets a fresh sample restating every distinct failure so far;
    repair+resample, as repair, and a fresh start when a repair fails as the attempt before it did.
    Without `restart`, every round repairs. A repeat makes the next round a step hotter.
    `judged` holds what was judged before the loop (the current code). `candidates`: replies asked
    at once per round (bot/core/rounds.py); `budget.max_attempts` counts every call."""
    seen = judged if judged is not None else Judged()
    try:
        for note in judge.preflight():
            report.notes.append(note)
            on_note(note)
        started = clock()
        messages = asked = answer.first()  # asked: the prompt as the answer made it, before a cut reply's note
        repeats = 0  # rounds in a row that repeated a judged candidate: the next is that much hotter
        streak, repairing = Streak(), False  # whether this round's prompt is a repair prompt
        failures: list[Verdict] = []  # every distinct failure of a candidate judged: a fresh sample restates them
        number = 1  # the next call's attempt number
        while number <= budget.max_attempts:
            size = min(candidates, budget.max_attempts - number + 1)
            calls = f"attempt {number}" if size == 1 else f"attempts {number}-{number + size - 1}"
            on_stage(f"{calls} of {budget.max_attempts}")
            draws = ask(model, messages, answer, number, size, repeats, clock)
            for draw in draws:
                apply(draw)
            judge_round(draws, judge, seen, clock)
            number += size
            kept = None
            for draw in draws:
                attempt = recorded(draw, messages)
                report.attempts.append(attempt)
                on_attempt(attempt)
                if (
                    draw.kind == Kind.FAILED
                    and draw.verdict
                    and not any(same_failure(draw.verdict, f) for f in failures)
                ):
                    failures.append(draw.verdict)
                if kept is None and draw.kind == Kind.PASSED:
                    kept = draw
            stop = next((d for d in draws if d.kind in (Kind.PASSED, Kind.FORGED)), None)
            if stop is not None and stop.kind == Kind.PASSED:
                assert stop.candidate is not None
                report.passed, report.code = True, stop.answer.keep(stop.candidate)
                report.stop_reason = f"passed on attempt {stop.number}"
                return report
            if stop is not None:  # a candidate that forges its verdict gets no more attempts, and no proposal
                report.stop_reason = f"stopped: {FORGED} on attempt {stop.number}"
                return report
            spent = budget.spent(report, clock() - started)
            if spent:
                report.stop_reason = spent
                return report
            best = representative(draws)
            verdict = best.verdict
            assert verdict is not None
            answer = best.answer
            repeat = best.kind == Kind.REPEATED
            repeats = repeats + 1 if repeat else 0
            stuck = streak.stuck(best.number, None if repeat else best.failure, repairing)
            if best.kind == Kind.CUT:  # the answer never saw the reply: the same prompt again, told why
                messages = cut_short(asked, verdict.feedback)
                continue
            if restart is not None and (repeat or strategy == "resample"):
                # resample's every sample is the task's own first prompt (as measured); the others restate
                shown = [] if strategy == "resample" else [failure.feedback for failure in failures]
                note = ""
                if repeat:
                    label = verdict.failing[0].removeprefix("(same code as ").removesuffix(")")
                    restated = f", restated with {count(len(shown), 'failure')} so far" if shown else ""
                    note = (
                        f"attempt {best.number} sent back "
                        f"{label if label.startswith('the ') else f'the code of {label}'}: the next call is a fresh "
                        f"sample from the task{restated}, {count(repeats, 'step')} hotter"
                    )
                answer, repairing = restart(shown), False
                messages = answer.first()
            elif restart is not None and strategy == "repair+resample" and stuck:
                note = f"{stuck}: the next call starts afresh from the task"
                answer, repairing = restart(()), False
                messages = answer.first()
            else:
                note = ""
                messages, repairing = answer.next(verdict.feedback), True
            if note:
                report.notes.append(note)
                on_note(note)
            asked = messages
    except (UserError, ModelUnavailable) as exc:
        report.stop_reason = f"stopped: {exc}"
        raise
    report.stop_reason = (
        f"all {budget.max_attempts} attempts failed" if budget.max_attempts > 1 else "the one attempt failed"
    )
    return report


def recorded(draw: Draw, messages: Messages) -> Attempt:
    verdict, candidate = draw.verdict, draw.candidate or Candidate(draw.reply.text, "", {})
    assert verdict is not None
    reply = draw.reply
    return Attempt(
        number=draw.number,
        passed=verdict.passed,
        failing_tests=verdict.failing,
        feedback=verdict.feedback,
        seconds=round(draw.judged - draw.started, 3),
        tokens={"input": reply.input_tokens, "output": reply.output_tokens},
        cached_tokens=reply.cached_tokens,
        code=candidate.code,
        diff=candidate.diff,
        inprocess_checks=verdict.inprocess,
        tests_passed=verdict.tests,
        kind=str(draw.kind),
        started_at=draw.started_at,
        model_seconds=round(draw.answered - draw.started, 3),
        test_seconds=round(draw.judged - draw.answered, 3),
        prompt=messages,
        reply=reply.text,
    )


def cut_short(messages: list[dict[str, str]], feedback: str) -> list[dict[str, str]]:
    """The prompt a cut reply answered, with `feedback` at the end of its last user turn (a turn
    of its own would make two user turns in a row, which some chat templates refuse)."""
    last = len(messages) - 1
    if last < 0 or messages[last]["role"] != "user":
        return [*messages, {"role": "user", "content": feedback}]
    return [*messages[:last], {**messages[last], "content": f"{messages[last]['content']}\n\n{feedback}"}]


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
    strategy: Strategy | None = None,
) -> Report:
    """A task that writes one target file, judged by the validator: whole, or by edits (`mode`).
    `strategy` (else the spec's): how the loop goes on after a failed attempt (bot/spec.py)."""
    budget = Budget(spec.max_attempts, spec.max_tokens, spec.max_seconds, spec.max_cost)
    if report.price is None:
        report.price = price_of(report.model, spec.price)
    report.spec, report.task = report.spec or str(spec.path), report.task or spec.task
    current, judged = current_text(spec.target_path), Judged()
    file_judge = FileJudge(validator, spec.target, current, judged)
    judge = StrengthJudge(file_judge, validator, spec, report)

    def noted(note: str) -> None:  # how a reply was taken or asked for: said in the log and the report
        note = f"attempt {NUMBER.get() or len(report.attempts) + 1}: {note}"
        report.notes.append(note)
        on_note(note)

    def answer(restated: Sequence[str] = ()) -> Answer:
        failing = lambda: validator.failures_seen or file_judge.failures  # noqa: E731
        return answer_for(spec, current, failing, noted, lambda: file_judge.failures, restated)

    # Every reply is bounded by the target's size, or the spec's `reply_tokens` (a flag, in the settings, wins).
    with reply_tokens(spec.reply_tokens or scaled_reply_tokens(len(current) if current else None)):
        return run(
            answer(), judge, model, budget, report, on_attempt, on_note, clock, on_stage,
            restart=answer, judged=judged, candidates=spec.candidates, strategy=strategy or spec.strategy,
        )  # fmt: skip


def answer_for(
    spec: Spec,
    current: str | None,
    failures: Callable[[], str],
    on_note: Callable[[str], None] = lambda note: None,
    shown: Callable[[], str] = lambda: "",
    restated: Sequence[str] = (),
) -> Answer:
    """`failures`: the current code's, known once the preflight ran (an edit's windows follow them).
    `on_note`: told when edit mode asks for one whole function instead of edit blocks, or puts a
    reply's definitions in place of the edit blocks it lacks, and when lines of a reply that run its
    own tests are left out. `shown`: how the current code fails, as a repair prompt says it, in
    every first prompt. `restated`: how earlier answers failed, for a fresh sample's first prompt."""
    long = current is not None and len(current.splitlines()) > WHOLE_LINES
    language = language_of(spec)  # None for a document or a query: written whole
    if current is not None and language is not None and (spec.mode == "edit" or (spec.mode == "auto" and long)):
        return EditFile(spec, language, current, failures, on_note, shown, restated)
    return WholeFile(spec, current, shown, on_note, restated)
