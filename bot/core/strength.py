"""Test strength as a judge: once the tests pass a candidate, its mutants are judged too
(bot/judge/strength.py). `report` records the score in the report; `gate` also fails a candidate
whose tests kill too few of them, and tells the model which mutants survived."""

from __future__ import annotations

import threading

from bot.core.protocol import Candidate, Judge
from bot.core.report import Report
from bot.judge.strength import Strength, measure
from bot.judge.validate import Validator, Verdict
from bot.spec import Spec

GATE_FEEDBACK = (
    "Your code passes the tests, but the tests can't tell it from these variants of it, each of which changes one "
    "thing in the code you wrote and still passes (the tests failed {killed} of {total}; they must fail at least "
    "{least:.0%}):\n{survivors}\n\n"
    "A mistake like one of these would go unnoticed. Write a more careful solution: one where each part of the code "
    "matters to the results the tests check, with no branch, constant or condition they can't see (less code often "
    "does that). The tests can't be changed."
)
VOID_FEEDBACK = (
    "Your code passes the tests, but not once a line that does nothing is added to it: {why}. Code must not read "
    "its own source, file or bytecode, nor behave differently when they change. Write it plainly."
)


MUTATED = ("python", "javascript", "typescript", "go")  # the kinds with mutants: Python's, and bot/lang's


class StrengthJudge:
    """Wraps the judge of a task that writes one Python, JavaScript or TypeScript target."""

    def __init__(self, inner: Judge, validator: Validator, spec: Spec, report: Report):
        self.inner, self.validator, self.spec, self.report = inner, validator, spec, report
        # The loop judges a pass twice (a confirmation in a clean copy): the mutants run once for
        # each candidate, however many of a round's pass at once.
        self.measured: dict[int, tuple[Candidate, Strength]] = {}
        self.lock = threading.Lock()

    def preflight(self) -> list[str]:
        return self.inner.preflight()

    def check(self, candidate: Candidate) -> Verdict:
        verdict = self.inner.check(candidate)
        if not verdict.passed or self.spec.strength == "off" or self.spec.target_kind not in MUTATED:
            return verdict
        strength = self.strength_of(candidate)
        if not strength.too_weak:
            return verdict
        if strength.void:
            return Verdict(
                passed=False,
                failing=["(strength) void"],
                feedback=VOID_FEEDBACK.format(why=strength.void),
                seconds=verdict.seconds,
                inprocess=verdict.inprocess,
            )
        survivors = "\n".join(
            f"- {survivor}" + (f", the line becoming `{survivor.mutated_line}`" if survivor.mutated_line else "")
            for survivor in strength.survivors
        )
        feedback = GATE_FEEDBACK.format(
            killed=strength.killed, total=strength.total, least=self.spec.min_strength, survivors=survivors
        )
        return Verdict(
            passed=False,
            failing=[f"(strength) {survivor}" for survivor in strength.survivors],
            feedback=feedback,
            seconds=verdict.seconds,
            inprocess=verdict.inprocess,
        )

    def strength_of(self, candidate: Candidate) -> Strength:
        """The candidate's strength, which the report holds from now on: the last one asked for is
        the confirmation of the one kept."""
        with self.lock:
            known = self.measured.get(id(candidate))
        if known is None or known[0] is not candidate:
            spec = self.spec
            code = candidate.files[spec.target]
            strength = measure(self.validator, code, spec.target, spec.strength_budget, spec.strength_seconds)
            strength.min_strength = spec.min_strength if spec.strength == "gate" else None
            known = candidate, strength
            with self.lock:
                self.measured[id(candidate)] = known
        self.report.strength = known[1]
        return known[1]
