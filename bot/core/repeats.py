"""What the loop remembers of the candidates it judged, so that no attempt is wasted: a reply whose
code is one already judged in this task (whitespace aside) is not judged again, and the next call
is a fresh sample from the task, restated with every distinct failure so far, a step hotter (a
model shown its code again sends it back again); and a repair that fails the same checks the same
way as the attempt it repaired shows the feedback isn't moving the model, so the next call starts
afresh from the task (Olausson et al.'s hybrid of repair and resampling)."""

from __future__ import annotations

from bot.core.protocol import Candidate
from bot.judge.validate import Verdict

Key = tuple[tuple[str, str], ...]


def normalized(text: str) -> str:
    """`text` without trailing spaces and blank lines: what a model changes in code it sends back."""
    return "\n".join(line for line in (line.rstrip() for line in text.splitlines()) if line)


def key(candidate: Candidate) -> Key:
    """What a candidate is: the files a judge writes, or for a tree edited in place (`files` empty)
    the tree's patch."""
    files = candidate.files or {"": candidate.diff}
    return tuple(sorted((path, normalized(text)) for path, text in files.items()))


class Judged:
    """The failing verdict of every candidate judged in a task, by what the candidate is."""

    def __init__(self) -> None:
        self.seen: dict[Key, tuple[str, Verdict]] = {}

    def add(self, candidate: Candidate, label: str, verdict: Verdict) -> None:
        """`label` names it for the model: "attempt 2", "the current code"."""
        if not verdict.passed:  # current code that passes: the same code in a reply is judged, and passes
            self.seen.setdefault(key(candidate), (label, verdict))

    def find(self, candidate: Candidate) -> tuple[str, Verdict] | None:
        return self.seen.get(key(candidate))


def repeated(label: str, verdict: Verdict) -> Verdict:
    """The verdict of a reply that repeats a judged candidate, no test run: what it is, and the
    feedback it got then."""
    told = (
        f"This is the same code as {label} (whitespace aside), so it was not run again: it fails the tests "
        f"as it did then. Write a different fix.\n\n{verdict.feedback}"
    )
    return Verdict(False, [f"(same code as {label})"], told)


class Streak:
    """The attempts whose code was judged, each with how it fails: a repair that fails the same
    checks the same way as the attempt before it is stuck."""

    def __init__(self) -> None:
        self.last: tuple[int, Verdict] | None = None  # its number, how its code fails

    def stuck(self, number: int, failure: Verdict | None, repair: bool) -> str | None:
        """Why the call after attempt `number` should start afresh, or None. `failure`: how its
        code fails (None: no code judged, or a repeat, which a fresh sample answers); `repair`:
        its prompt was a repair prompt."""
        if failure is None:
            return None
        last, self.last = self.last, (number, failure)
        if not repair or last is None or not same_failure(last[1], failure):
            return None
        return f"attempt {number} failed the same checks the same way as attempt {last[0]}"


def same_failure(a: Verdict, b: Verdict) -> bool:
    """The same checks failing the same way: the same names, and the same messages (the feedback's
    first paragraph lists each failing check with its message; the details after it hold line
    numbers that move with any edit)."""
    return a.failing == b.failing and head(a.feedback) == head(b.feedback)


def head(feedback: str) -> str:
    return feedback.split("\n\n", 1)[0]
