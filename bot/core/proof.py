"""What a fix must show besides passing the gate (free-form and red CI), judged once per pass:

- a reproduction that failed on a name the issue asked for (`from calc import add_fixed`) must
  fail again once that name's body only raises NotImplementedError: else the test never runs
  the new code, and defining the name alone "fixed" it;
- the lines the fix changed are mutated (bot/judge/strength.py) and each mutant judged by the
  tests the fix had to make pass: when none of them fails any mutant, the fix is unproven (the
  proof line says so); when a null mutant fails, the fix tells its own variants apart (it reads
  its own source or bytecode) and is refused.

Each variant is written into a scratch copy of the work tree (gate.Suite.overlay), judged by the
suite's run of those tests alone there, at most `jobs` side by side; the work tree keeps the fix.
The proof starts as soon as the gate's confirmation (those tests, in a clean copy) passed, beside
the whole suite's run (GateJudge.then); a candidate the whole suite then refuses keeps nothing of it."""

from __future__ import annotations

import ast
import time
from collections.abc import Callable

from bot import syntax
from bot.core.gated import GateJudge
from bot.core.protocol import Candidate
from bot.core.report import Report
from bot.core.reproduce import Wanted
from bot.judge import gate
from bot.judge.strength import Mutant, Strength, judged
from bot.judge.validate import Verdict
from bot.lang import registry

BUDGET = 12  # mutants of a fix judged at most: each is a run of its tests
SECONDS = 300.0  # no mutant starts after this
# A mutant's run stops after FACTOR times what the fix's own run of the same tests took, plus
# GRACE (never later than the suite's timeout): one that loops would otherwise hold the step for
# the whole timeout (10 minutes by default), twice when a run of all variants stops first. Stopped,
# it counts as killed, as a mutation tool counts a timeout (Stryker: 1.5 times, plus 5 s).
FACTOR, GRACE = 3.0, 10.0
STUB = "raise NotImplementedError"
VOID_FEEDBACK = (
    "Your change passes the tests, but not once a line that does nothing is added to it: {why}. Code must not "
    "read its own source, file or bytecode, nor behave differently when they change."
)
UNUSED_FEEDBACK = (
    "The reproduction test still passes when {names} only raise NotImplementedError: it never runs the code you "
    "added, so defining the name is not what it checks. Make the code it does run behave as the issue asks."
)


class ProofJudge:
    """Wraps the gate's judge; `tests`: those the fix had to make pass."""

    def __init__(
        self,
        inner: GateJudge,
        tests: list[str],
        wanted: list[Wanted],
        report: Report,
        skip: tuple[str, ...] = (),
        budget: int = BUDGET,
        seconds: float = SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.inner, self.tests, self.wanted, self.report = inner, tests, wanted, report
        self.skip = skip  # paths never mutated (the reproduction test)
        self.budget, self.seconds, self.clock = budget, seconds, clock
        self.strength: Strength | None = None  # of the last candidate the gate passed
        # The proof of the candidate being judged, once measured: its strength and refusal.
        self.measured: tuple[Candidate, Strength | None, Verdict | None] | None = None
        self.judging: Candidate | None = None
        inner.then = self.early

    @property
    def verdict(self) -> gate.Judgement | None:
        return self.inner.verdict

    @property
    def run(self) -> gate.SuiteRun | None:
        return self.inner.run

    @property
    def unproven(self) -> bool:
        """The fix passed, but no mutant of it fails its tests."""
        strength = self.strength
        return strength is not None and strength.total > 0 and strength.killed == 0

    def preflight(self) -> list[str]:
        return self.inner.preflight()

    def check(self, candidate: Candidate) -> Verdict:
        self.judging = candidate
        try:
            verdict = self.inner.check(candidate)
        finally:
            self.judging = None
        if not verdict.passed:
            return verdict
        if self.measured is None or self.measured[0] is not candidate:
            self.measured = candidate, *self.refusal()
        _, strength, refusal = self.measured
        if strength is not None:
            self.strength = self.report.strength = strength
        return refusal or verdict

    def early(self, jobs: int) -> None:
        """The proof of the candidate being judged, measured while the whole suite runs (in at
        most `jobs` runs at once): its confirmation passed, so the proof is likely read."""
        if self.judging is not None:
            self.measured = self.judging, *self.refusal(jobs)

    def refusal(self, jobs: int | None = None) -> tuple[Strength | None, Verdict | None]:
        """The fix's strength, when measured, and why the passing fix proves nothing, or None."""
        work = self.inner.work
        files = {
            path: (text, original)
            for path, original in sorted(work.originals.items())
            if (path.endswith(".py") or registry.for_path(path) is not None) and path not in self.skip
            for text in [work.read(path)]
            if text is not None
        }
        if not self.tests:  # no test the fix had to make pass (an unproven fix): nothing to judge mutants by
            return None, None
        if self.wanted:
            stubbed = stubs({path: both for path, both in files.items() if path.endswith(".py")}, self.wanted)
            if isinstance(stubbed, str):
                return None, Verdict(False, ["(proof) the new names"], stubbed)
            # As the gate runs: in plain mode a candidate could fail this check on purpose, and a
            # void proof's fallback to the gate's mode would never come back to it.
            if self.passes(stubbed):
                names = ", ".join(f"`{wanted.name}`" for wanted in self.wanted)
                return None, Verdict(False, ["(proof) the new names"], UNUSED_FEEDBACK.format(names=names))
        jobs = jobs or self.inner.suite.jobs  # each variant is judged in a copy of its own, side by side
        strength = self.mutated(files, outcomes_only=True, jobs=jobs)
        if strength.void:  # a test that needs pytest's assertion rewriting to pass? Judged as the gate runs it
            strength = self.mutated(files, outcomes_only=False, jobs=jobs)
        if strength.void:
            return strength, Verdict(False, ["(strength) void"], VOID_FEEDBACK.format(why=strength.void))
        return strength, None

    @property
    def bound(self) -> float | None:
        """How long a mutant's run may take: from the fix's own run of the tests it had to make
        pass (None when none was timed: the suite's timeout)."""
        seconds = self.inner.targets_seconds
        return None if seconds is None else FACTOR * seconds + GRACE

    def mutated(self, files: dict[str, tuple[str, str | None]], outcomes_only: bool, jobs: int) -> Strength:
        """The fix's mutants and null mutants, each judged by the tests it had to make pass;
        `outcomes_only`: without the failure messages no one reads (gate.Suite.run). A null
        mutant's run has the suite's whole timeout: stopped, it would void a right fix's proof."""
        return judged(
            files,
            lambda path, mutant: self.passes(
                {path: mutant.code}, outcomes_only, None if mutant.operator == "null" else self.bound
            ),
            self.budget,
            self.seconds,
            jobs,
            self.clock,
            self.together,
        )

    def together(self, variants: list[tuple[str, Mutant]]) -> list[bool] | None:
        """Whether the tests still pass each variant, all judged in one run where the suite's
        runner can (gate.Suite.run_variants), else None."""
        work, suite, baseline = self.inner.work, self.inner.suite, self.inner.baseline
        only = set(self.tests)
        bound = self.bound
        with suite.bounded(None if bound is None else bound * (len(variants) + 1)):
            runs = suite.run_variants(work.root, [{path: mutant.code} for path, mutant in variants], only)
        if runs is None:
            return None
        if any(run.killed for (_, mutant), run in zip(variants, runs, strict=True) if mutant.operator == "null"):
            return None  # a null mutant stopped by its time (a loaded machine) is judged again, alone
        return [gate.judge(baseline, run, only).passed for run in runs]

    def passes(self, variant: dict[str, str], outcomes_only: bool = False, bound: float | None = None) -> bool:
        """Whether the tests still pass with the files of `variant` written over the fix's, in the
        run's copy alone (the work tree keeps the fix), the run stopped after `bound` seconds."""
        work, suite, baseline = self.inner.work, self.inner.suite, self.inner.baseline
        only = set(self.tests)
        with suite.overlay(variant), suite.bounded(bound):
            return gate.judge(baseline, suite.run(work.root, only=only, outcomes_only=outcomes_only), only).passed


def stubs(files: dict[str, tuple[str, str | None]], wanted: list[Wanted]) -> dict[str, str] | str:
    """The changed files with each wanted name's body replaced by `raise NotImplementedError` (a
    class or an assignment: by a function that raises it), or why a name can't be found."""
    stubbed: dict[str, str] = {}
    for name in sorted({one.name for one in wanted}):
        found = False
        for path, (text, _) in files.items():
            code = stubbed.get(path, text)
            replaced = stub(code, name)
            if replaced is not None:
                stubbed[path], found = replaced, True
        if not found:
            return (
                f"The reproduction test fails on the current code because `{name}` doesn't exist; the fix must "
                f"define it with a `def`, `class` or assignment at the top of a file it changes, and none does."
            )
    return stubbed


def stub(code: str, name: str) -> str | None:
    """`code` with the top-level definition of `name` doing nothing but raise; None: there is none."""
    try:
        tree = syntax.parse(code)
    except SyntaxError:
        return None
    lines = code.splitlines(keepends=True)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            first, last = node.body[0], node.body[-1]
            head = "".join(lines[: first.lineno - 1]) + lines[first.lineno - 1][: first.col_offset]
            tail = "".join(lines[last.end_lineno or last.lineno :])
            return f"{head}{STUB}\n{tail}"
        if (isinstance(node, ast.ClassDef) and node.name == name) or (
            isinstance(node, (ast.Assign, ast.AnnAssign))
            and any(isinstance(target, ast.Name) and target.id == name for target in targets_of(node))
        ):
            start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
            head = "".join(lines[: start - 1])
            tail = "".join(lines[node.end_lineno or node.lineno :])
            return f"{head}def {name}(*args, **kwargs):\n    {STUB}\n{tail}"
    return None


def targets_of(node: ast.Assign | ast.AnnAssign) -> list[ast.expr]:
    return node.targets if isinstance(node, ast.Assign) else [node.target]
