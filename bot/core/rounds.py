"""One round of the repair loop: the same prompt asked `candidates` times at once (each call with a
seed of its own), every reply applied to a copy of the answer, the new candidates judged side by
side (bot/judge/side_by_side.py), a candidate that repeats one judged before (in the task, or in
this round) not judged again, and a pass confirmed in a clean copy before it counts.

The round's draws come back in the order they were asked (their attempt numbers); the loop keeps
the first that passes and repairs from the one with the fewest failures (`representative`)."""

from __future__ import annotations

import copy
from collections.abc import Callable
from contextvars import ContextVar, copy_context
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import partial

from bot.core.protocol import Answer, Candidate, Judge, Kind, Messages, Unusable
from bot.core.repeats import Judged, key, repeated
from bot.judge.side_by_side import at_once, jobs_for
from bot.judge.validate import Verdict
from bot.models.base import Model, Reply, holding, seed_offset, seeded, warmer

CUT = (
    "Your reply was cut at {tokens} tokens, the most one reply may have here, before it ended, so none of it "
    "was used. Answer again in fewer tokens: only what the format asks for (edit blocks for just the lines "
    "that change, or the code alone), with no explanation and no tests of your own."
)
REPEATED_FAILED = "The tests passed once, then failed when repeated in a clean copy:\n"
NUMBER: ContextVar[int] = ContextVar(
    "attempt", default=0
)  # the attempt whose reply is being applied: its notes' number


@dataclass
class Draw:
    """One call of a round: its reply, what became of it, and when."""

    number: int  # its attempt number: the call's place in the task
    reply: Reply
    answer: Answer  # the answer that applied the reply: the one to go on from, if this draw is
    started: float  # the clock when it was asked
    started_at: str  # UTC, ISO 8601
    answered: float  # the clock when the reply came
    candidate: Candidate | None = None  # None: no code (cut, refused, none found)
    kind: Kind = Kind.FAILED
    verdict: Verdict | None = None
    failure: Verdict | None = None  # how its code fails: its verdict, or a repeat's earlier one; None: no code
    judged: float = 0.0  # the clock when its verdict was known


def ask(
    model: Model,
    messages: Messages,
    answer: Answer,
    first: int,
    size: int,
    warmth: int,
    clock: Callable[[], float],
) -> list[Draw]:
    """`size` calls of `messages` at once, numbered from `first`; each sends the seed offset of its
    number (a seed even when none is set, with more than one: they must differ) and the warmth of
    the repeats before it. One call is made on this thread, with `answer` itself; several each
    apply their reply to a copy of it."""

    def call(number: int) -> Draw:
        started, at = clock(), datetime.now(UTC).isoformat(timespec="seconds")
        with warmer(warmth), seed_offset(number - 1), seeded(size > 1):
            reply = model.complete(messages)
        return Draw(number, reply, answer if size == 1 else copy.copy(answer), started, at, clock())

    # Each call in a copy of this context: the reply limit and the settings' variables reach its thread.
    calls = [partial(copy_context().run, call, number) for number in range(first, first + size)]
    return at_once(calls, size)


def apply(draw: Draw) -> None:
    """The reply made a candidate by its answer; a cut reply is not read."""
    reply = draw.reply
    if reply.cut_at is not None:  # half a reply: its code is unfinished, or its edits unmatched
        draw.kind, draw.verdict = Kind.CUT, Verdict(False, [f"({Kind.CUT})"], CUT.format(tokens=reply.cut_at))
        return
    try:
        with holding(NUMBER, draw.number):
            draw.candidate = draw.answer.apply(reply.text)
    except Unusable as why:
        draw.kind, draw.verdict = why.kind, Verdict(False, [f"({why.kind})"], why.feedback)


def judge_round(draws: list[Draw], judge: Judge, seen: Judged, clock: Callable[[], float]) -> None:
    """Every draw with a new candidate judged, side by side; one repeating a candidate judged
    before, in the task or earlier in this round, gets that verdict without a run. A pass is
    confirmed (a second run in a clean copy) in the order asked, up to the first that holds: the
    one kept."""
    first_of: dict[tuple, Draw] = {}
    new, repeats = [], []
    for draw in draws:
        if draw.candidate is None:
            draw.judged = clock()
            continue
        earlier = seen.find(draw.candidate)
        if earlier is not None:  # a model call, but no test run: the verdict is known
            draw.kind, draw.verdict, draw.failure = Kind.REPEATED, repeated(*earlier), earlier[1]
            draw.judged = clock()
        elif key(draw.candidate) in first_of:
            repeats.append(draw)
        else:
            first_of[key(draw.candidate)] = draw
            new.append(draw)

    def check(draw: Draw) -> Verdict:
        assert draw.candidate is not None
        verdict = judge.check(draw.candidate)
        draw.judged = clock()
        return verdict

    verdicts = at_once([partial(check, draw) for draw in new], jobs_for(None))
    kept = False
    for draw, verdict in zip(new, verdicts, strict=True):
        assert draw.candidate is not None
        if verdict.passed and not kept and not verdict.confirmed:
            verdict = confirm(judge, draw.candidate, verdict)
            draw.judged = clock()
        kept = kept or verdict.passed
        draw.verdict = draw.failure = verdict
        draw.kind = Kind.PASSED if verdict.passed else Kind.FORGED if verdict.forged else Kind.FAILED
        seen.add(draw.candidate, f"attempt {draw.number}", verdict)
    for draw in repeats:
        assert draw.candidate is not None
        original = first_of[key(draw.candidate)]
        assert original.verdict is not None
        label = f"attempt {original.number}"
        draw.kind, draw.failure, draw.judged = Kind.REPEATED, original.verdict, original.judged
        draw.verdict = repeated(label, original.verdict) if not original.verdict.passed else same_as_passed(label)


def confirmed(judge: Judge, candidate: Candidate) -> Verdict:
    """The candidate's verdict, a pass confirmed. A judge that ran both at once (`confirmed`) is
    not asked again."""
    verdict = judge.check(candidate)
    return verdict if not verdict.passed or verdict.confirmed else confirm(judge, candidate, verdict)


def confirm(judge: Judge, candidate: Candidate, verdict: Verdict) -> Verdict:
    """A pass counts only if a second run in a clean copy passes too: no luck, no leftover state."""
    again = judge.check(candidate)
    if again.passed:
        return Verdict(True, seconds=verdict.seconds + again.seconds, inprocess=verdict.inprocess, tests=again.tests)
    again.feedback = REPEATED_FAILED + again.feedback
    return again


def same_as_passed(label: str) -> Verdict:
    return Verdict(False, [f"(same code as {label})"], f"This is the same code as {label} (whitespace aside).")


def representative(draws: list[Draw]) -> Draw:
    """The draw the next prompt goes on from: of the candidates judged, the one with the fewest
    failures (the first of them); else a repeat; else a reply that could not be used, a cut one
    last (its prompt is asked again)."""
    judged = [d for d in draws if d.kind in (Kind.FAILED, Kind.PASSED) and d.verdict is not None]
    if judged:
        return min(judged, key=lambda d: len(d.verdict.failing) if d.verdict else 0)
    return next((d for d in draws if d.kind == Kind.REPEATED), None) or next(
        (d for d in draws if d.kind != Kind.CUT), draws[0]
    )
