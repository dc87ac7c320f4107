"""What the repair loop is made of: an Answer turns replies into candidates (the whole file, or
SEARCH/REPLACE edits) and says what to ask next; a Judge gives a candidate its verdict (inline
checks and the test command on a scratch copy, or red CI's whole-suite gate); a Budget bounds them."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from bot.core.report import Report
from bot.judge.validate import Verdict

Messages = list[dict[str, str]]


class Kind(StrEnum):
    """What came of one attempt."""

    PASSED = "passed"
    FAILED = "failed"  # judged, and the tests failed
    NO_CODE = "no code"  # the reply held no code to judge
    REFUSED = "edits refused"  # the reply's edits could not be applied; nothing changed
    FORGED = "forged"  # judged, and the run's report was tampered with (bot/judge/canaries.py)
    REPEATED = "same code"  # the code of a candidate judged before (bot/core/repeats.py): not judged again
    CUT = "reply cut"  # the reply stopped at its limit of tokens before it ended: not read, not judged


@dataclass
class Candidate:
    code: str  # what the attempt keeps in the report: the file, or the reply's edits
    diff: str  # what it changes, against the previous attempt or the original
    files: dict[str, str]  # path -> the text a judge writes into its scratch copy ({} when edited in place)


class Unusable(Exception):
    """The reply can't become a candidate: nothing is judged, `feedback` goes back to the model."""

    def __init__(self, kind: Kind, feedback: str):
        super().__init__(feedback)
        self.kind, self.feedback = kind, feedback


class Answer(Protocol):
    def first(self) -> Messages: ...

    def apply(self, reply: str) -> Candidate: ...  # or raises Unusable

    def next(self, feedback: str) -> Messages: ...  # after the reply last applied failed

    def keep(self, candidate: Candidate) -> str: ...  # make the passing candidate the result; its record


class Judge(Protocol):
    def preflight(self) -> list[str]: ...  # before any model call; UserError when nothing can be judged

    def check(self, candidate: Candidate) -> Verdict: ...


@dataclass(frozen=True)
class Budget:
    max_attempts: int
    max_tokens: int | None = None
    max_seconds: float | None = None
    max_cost: float | None = None  # dollars, when the model's price is known

    def spent(self, report: Report, elapsed: float) -> str | None:
        tokens = sum(report.tokens.values())
        if self.max_tokens is not None and tokens >= self.max_tokens:
            return f"token budget spent ({tokens} of {self.max_tokens})"
        cost = report.cost
        if self.max_cost is not None and cost is not None and cost >= self.max_cost:
            return f"cost budget spent (${cost:.4f} of ${self.max_cost:g})"
        if self.max_seconds is not None and elapsed >= self.max_seconds:
            return f"time budget spent ({elapsed:.1f} s of {self.max_seconds:g} s)"
        return None
