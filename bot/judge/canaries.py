"""Canaries: tests autofix plants in every pytest run, whose outcomes it knows in advance.

Each run draws new ones: two pairs, each a test that must fail and one that must pass, named like
the suite's own tests and planted by the plugin among them, in one of its test modules (the one
the last failures came from, when autofix knows it). They go through pytest as the suite's tests
do: collected, run, reported through every hook. So code that rewrites the run's outcomes, a
conftest, a patched plugin, a replaced report, has to recognise them to leave them alone; one that
turns failures into passes, or drops them, reports a canary wrongly, and the run's report is
forged. The terminal neither shows nor counts them, and nothing else autofix reports does.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from bot.judge.integrity import Case

# Words for a canary's name when the suite's own test names give too few.
WORDS = (
    "empty",
    "single",
    "order",
    "repeat",
    "large",
    "negative",
    "unicode",
    "none",
    "nested",
    "mixed",
    "default",
    "boundary",
)
PAIRS = 2
FORGED = "the test run's report was tampered with"


@dataclass(frozen=True)
class Canary:
    name: str
    must_fail: bool
    left: int
    right: int
    hint: str  # the test module to plant it in (`tests.test_x`), or "" for one the draw picks
    module_pick: int
    place_pick: int

    def line(self) -> str:
        fields = (self.name, str(self.left), str(self.right), self.hint, str(self.module_pick), str(self.place_pick))
        return "\t".join(fields)


def draw(known: Iterable[str] = (), hint: str = "") -> list[Canary]:
    """Fresh canaries, named from the words of the suite's test ids (`known`) and a few of autofix's,
    never one of those ids' names."""
    taken = {test_id.rsplit("::", 1)[-1] for test_id in known}
    words = sorted({w for name in taken for w in re.findall(r"[a-z]+", name) if w != "test" and len(w) > 2})
    vocabulary = words + list(WORDS) if len(words) >= 4 else list(WORDS) + words
    drawn: list[Canary] = []
    while len(drawn) < 2 * PAIRS:
        first, second = secrets.choice(vocabulary), secrets.choice(vocabulary)
        name = f"test_{first}_{second}_{secrets.randbelow(90) + 10}"
        if name in taken or not name.isidentifier():
            continue
        taken.add(name)
        must_fail = len(drawn) % 2 == 0
        left = secrets.randbelow(1000)
        right = left + 1 + secrets.randbelow(1000) if must_fail else left
        module_pick = drawn[-1].module_pick if not must_fail else secrets.randbelow(1 << 30)
        drawn.append(Canary(name, must_fail, left, right, hint, module_pick, secrets.randbelow(1 << 30)))
    return drawn


def plantable(module_id: str) -> bool:
    """The plugin's test of a module id (bot/judge/sandboxed/pytest_plugin.py `plantable`)."""
    parts = module_id.split(".")
    return parts[-1].startswith("test_") or parts[-1].endswith("_test") or "tests" in parts[:-1]


def sift(
    cases: Sequence[Case], canaries: Sequence[Canary], twins: Mapping[str, str] | None = None
) -> tuple[list[Case], list[str]]:
    """The run's cases without the canaries, and why the report is forged ([] when it isn't).

    Canaries are due when some test of a test module ran (passed or failed): then each must be
    there once. A must-fail canary reported passed is forged; reported skipped, only when its
    must-pass partner, planted beside it, wasn't skipped too (a module's own skip reaches both).
    A must-fail canary that is the twin of one of the suite's tests (`twins`: its name, that
    test's id) expects what that test doesn't: the two reported passed is forged, and so is the
    twin reported skipped when its original wasn't."""
    names = {canary.name: canary for canary in canaries}
    twins = twins or {}
    outcomes = {case.test_id: case.outcome for case in cases}
    found: dict[str, list[Case]] = {}
    kept = []
    for case in cases:
        module, _, rest = case.test_id.partition("::")
        name = rest.split("[", 1)[0].rsplit("::", 1)[-1]  # a twin of a parametrized test has its ids, any text
        if rest and name in names:
            found.setdefault(name, []).append(case)
        else:
            kept.append(case)
    due = any(
        case.outcome in ("passed", "failed") and "::" in case.test_id and plantable(case.test_id.split("::")[0])
        for case in kept
    )
    problems = []
    for index, canary in enumerate(canaries):
        seen = found.get(canary.name, [])
        if not seen:
            if due:
                problems.append(f"a test autofix planted (a canary) is missing from the report: {canary.name}")
            continue
        if len(seen) > 1:
            problems.append(f"a canary was reported {len(seen)} times: {canary.name}")
        outcome = seen[0].outcome
        if canary.name in twins:
            original = outcomes.get(twins[canary.name])
            if outcome == "passed" and original == "passed":
                problems.append(f"a canary and the test it contradicts were both reported passed: {canary.name}")
            elif outcome == "skipped" and original != "skipped":
                problems.append(f"a canary was reported skipped, the test it is the twin of {original}: {canary.name}")
            elif original is None:
                problems.append(f"the test a canary is the twin of is missing from the report: {canary.name}")
        elif canary.must_fail and outcome == "passed":
            problems.append(f"a canary that fails by construction was reported passed: {canary.name}")
        elif canary.must_fail and outcome == "skipped":
            twin = found.get(canaries[index + 1].name, []) if index + 1 < len(canaries) else []
            if not twin or twin[0].outcome != "skipped":
                problems.append(f"a canary that fails by construction was reported skipped: {canary.name}")
    return kept, problems


def scrub(output: str, canaries: Sequence[Canary]) -> str:
    """The run's output without a line that names a canary (`-v`, `-rA` and the like print them)."""
    if not canaries:
        return output
    named = re.compile("|".join(re.escape(canary.name) for canary in canaries))
    return "\n".join(line for line in output.split("\n") if not named.search(line))


def planted_check(statements: Sequence[dict]) -> dict:
    """A canary for inline checks: one of the task's comparisons again, last, against a value
    drawn now, so it fails whatever the candidate returns; where the task compares nothing, a
    comparison of two different numbers. It runs where its original would (the checker, or the
    candidate's process for values that can't cross), so a record forged there shows."""
    compares = [s for s in statements if s["kind"] == "compare" and s["op"] == "Eq"]
    drawn = secrets.randbelow(10**12) + 10**11
    if compares:
        original = secrets.choice(compares)
        planted = {key: original[key] for key in ("line", "uses", "binds", "left")}
        return {**planted, "kind": "compare", "op": "Eq", "right": str(drawn)}
    line = statements[-1]["line"] if statements else 1
    return {
        "line": line,
        "uses": [],
        "binds": [],
        "kind": "compare",
        "op": "Eq",
        "left": str(drawn),
        "right": str(drawn + 1),
    }
