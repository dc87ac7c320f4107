"""The proof a CI fix must give: the repository's whole suite, run in the sandbox in a scratch copy.

The baseline runs the suite twice at the pull request's head: tests failing both times are the
target; tests whose outcome differs between the two runs are flaky, named and left out of the
judgement. Tests failing at the base the pull request branched from too are pre-existing (the
environment, or an old breakage): named, neither targets nor counted against a candidate. A
candidate counts only when every target test passes AND no test that passed at baseline fails,
errors, is skipped or is missing.
"""

from __future__ import annotations

import secrets
import shlex
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence, Set
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from bot import safefs
from bot.errors import UserError
from bot.judge import launch, nodeids
from bot.judge.canaries import FORGED
from bot.judge.drawn_order import in_drawn_order
from bot.judge.failures import with_whole_values
from bot.judge.integrity import Case
from bot.judge.runners import Runner, Unread, runner_for
from bot.judge.scratch import Copies
from bot.judge.side_by_side import at_once
from bot.judge.verdict import (
    Plugins,
    TestRun,
    refuse_broken_command,
    refuse_tree_writes,
    run_tests,
    writable_in,
)
from bot.sandbox.tiers import Limits, Sandbox, allowed_environ
from bot.text import DETAIL_CHARS, FEEDBACK_CHARS, clip_tail


@dataclass
class SuiteRun:
    results: dict[str, Case]
    returncode: int | None
    output: str
    killed: str | None
    root: str  # the scratch folder the run saw, to turn the paths of its tracebacks relative
    tampered: list[tuple[str, str]] = field(default_factory=list)
    machinery: list[str] = field(default_factory=list)  # what changed in the test runner's own code
    sealed: bool = False  # the runner's hook reported the finished suite (pytest, unittest)
    forged: list[str] = field(default_factory=list)  # how the canaries came back wrong (bot/judge/canaries.py)
    by_node_ids: bool = False  # the tests asked for went on pytest's command line: it collected no others
    runner: str = "pytest"  # how the failing list names the runner that ran (`jest`, `go`)
    seconds: float = 0.0  # the run's wall time

    def ids(self, *outcomes: str) -> set[str]:
        return {r.test_id for r in self.results.values() if r.outcome in outcomes}

    @property
    def failing(self) -> set[str]:
        return self.ids("failed", "error")


class Suite:
    """The repository's test command, run in the sandbox in a scratch copy of a folder: copied
    once, then each run takes in what changed in the folder and puts back what the last run
    changed (bot/judge/scratch.py). Runs going at once (`side_by_side`, at most `jobs`) each
    have a copy of their own."""

    def __init__(
        self,
        sandbox: Sandbox,
        command: str,
        protected: tuple[str, ...],
        timeout: float,
        exempt: tuple[str, ...] = (),
        jobs: int = 1,
    ):
        self.sandbox = sandbox
        self.jobs = jobs
        self.command = command
        self.protected = protected
        self.exempt = exempt
        self.limits = Limits(wall_seconds=timeout)
        # Test files pytest must collect beyond what the command names (a command that names its
        # own paths never collects a reproduction test autofix added elsewhere).
        self.also: tuple[str, ...] = ()
        self.copies: dict[Path, Copies] = {}  # of each folder judged
        self.lock = threading.Lock()
        self.variants = threading.local()  # `files`: what this thread's runs write over the folder's (overlay)
        self.known: set[str] = set()  # the suite's test ids, once a run reported them: the canaries' words
        # The environment's pytest plugins, found by the baseline's whole run; until then runs load
        # none on their own, but those of the folders as the repository has them (`discovering`).
        self.plugins: Plugins | None = None
        self.discovering = False
        self.failing: set[str] = set()  # what the baseline's whole run failed: the canaries' twins' originals
        self.flaky: set[str] = set()  # what the baseline found flaky: never twinned
        self.twinned: dict[str, str] = {}  # a started runner's tests whose twins behave (its calibrate)
        self.notes: list[str] = []  # what the log should say once about how the suite is run

    @property
    def limits_now(self) -> Limits:
        """The limits of this thread's runs: the suite's, or a bound set for them (`bounded`)."""
        return getattr(self.variants, "limits", None) or self.limits

    @contextmanager
    def bounded(self, seconds: float | None) -> Iterator[None]:
        """This thread's runs in the block stop after `seconds` (never later than the suite's
        timeout); None: the suite's timeout."""
        self.variants.limits = (
            None if seconds is None else replace(self.limits, wall_seconds=min(self.limits.wall_seconds, seconds))
        )
        try:
            yield
        finally:
            self.variants.limits = None

    def side_by_side(self, *runs: Callable[[], SuiteRun]) -> list[SuiteRun]:
        """The runs, each in a copy of its own, at most `jobs` at once; their results in order."""
        return at_once(runs, self.jobs)

    @contextmanager
    def overlay(self, files: Mapping[str, str]) -> Iterator[None]:
        """This thread's runs in the block judge the folder with `files` (path: text) written over
        it in their copy alone, put back after each run: variants of a fix (the proof's mutants)
        judged side by side, the folder itself never changed."""
        self.variants.files = files
        try:
            yield
        finally:
            self.variants.files = None

    def started(self, runner: Runner, work: Path, only: set[str] | None, baseline: bool) -> TestRun:
        """A run of a runner autofix starts itself (runners.py): `only` runs those tests (as finely
        as the runner selects); the baseline's run learns which tests can be twinned, for every
        later run to plant."""
        writable = writable_in(work, self.exempt)
        run = runner.run(
            self.sandbox,
            work,
            self.limits_now,
            self.twinned,
            prefer=only or self.failing,
            avoid=self.flaky,
            writable=writable,
            only=only,
            baseline=baseline,
        )
        if baseline and run.cases and not self.twinned:
            self.twinned, note = runner.calibrate(self.sandbox, work, self.limits, run.cases, writable)
            if note and note not in self.notes:
                self.notes.append(note)
        return run

    def names_elsewhere(self, folder: Path, path: str) -> bool:
        """Whether the test command names paths of `folder` (`pytest tests/unit`), none holding the
        file at `path`: it collects that file only when told it too (`also`)."""
        started = launch.direct(self.command, allowed_environ())
        return started is not None and nodeids.outside(started.rest, path, folder)

    def new_test_file(self, folder: Path, stem: str) -> str:
        """Where a pytest file autofix adds goes (`stem`: issue_12): tests/autofix/test_issue_12.py,
        unless the command names folders none of which holds it (`pytest toolz/tests`): then in the
        first of them (toolz/tests/test_autofix_issue_12.py), where the project's CI collects it
        after the merge too."""
        default = f"tests/autofix/test_{stem}.py"
        started = launch.direct(self.command, allowed_environ())
        if started is None or not nodeids.outside(started.rest, default, folder):
            return default
        named = nodeids.named_folder(started.rest, folder)
        return f"{named}/test_autofix_{stem}.py" if named else default

    @contextmanager
    def discovery(self) -> Iterator[None]:
        """The block's runs judge the folders as the repository has them (the baseline, before any
        edit): pytest may discover the environment's plugins there, and the baseline's run says
        which. After it, every run loads exactly those."""
        self.discovering = True
        try:
            yield
        finally:
            self.discovering = False
            if self.plugins is None:
                self.plugins = Plugins()

    def copies_of(self, folder: Path) -> Copies:
        """The scratch copies of `folder`, made at its first run."""
        with self.lock:
            copies = self.copies.get(folder)
            if copies is None:
                copies = self.copies[folder] = Copies(folder, self.sandbox, self.protected, self.exempt, follow=True)
            return copies

    def forget(self, folder: Path) -> None:
        """Drop the copies of a folder no run will judge again (the base's checkout)."""
        with self.lock:
            self.copies.pop(folder, None)

    def run(
        self, folder: Path, only: set[str] | None = None, baseline: bool = False, outcomes_only: bool = False
    ) -> SuiteRun:
        """The whole suite, or with `only` just those tests (pytest; any other runner runs whole).
        `baseline`: the run that measures the code as it is, where a suite that writes into the
        tree it judges is a configuration error (UserError). `outcomes_only`: a run whose failure
        messages no one reads (the baseline's whole run and its run at the base, the proof's
        mutants): faster (verdict.PLAIN)."""
        copies = self.copies_of(folder)
        with copies.use() as scratch:
            work = scratch.work
            for path, text in (getattr(self.variants, "files", None) or {}).items():
                safefs.write_file(work, path, text.encode("utf-8"))
            also = " ".join(shlex.quote(path) for path in self.also)
            modules = sorted({test.split("::")[0] for test in only or () if "::" in test})
            runner = runner_for(self.command, work)
            if runner is not None and not isinstance(runner, Unread):
                run = self.started(runner, work, only, baseline)
            else:
                run = run_tests(
                    self.sandbox,
                    self.command,
                    work,
                    self.limits_now,
                    extra_options=also,
                    only=only,
                    known=self.known,
                    hint=secrets.choice(modules) if modules else "",
                    prefer=only or self.failing,
                    avoid=self.flaky,
                    writable=writable_in(work, self.exempt),
                    outcomes_only=outcomes_only,
                    plugins=None if self.plugins is None and self.discovering else self.plugins or Plugins(),
                )
            tampered = scratch.restore()
            if baseline:
                refuse_tree_writes(run, work, f"tests.command `{self.command}`")
                # A suite that can't start (no pytest in the environment) fails at the head and at
                # the base alike: taken for pre-existing failures, it would be told as "not caused".
                refuse_broken_command(run, self.command, "tests.command")
        if run.cases and not self.known:
            self.known = {case.test_id for case in run.cases}
        if baseline and run.plugins is not None and self.plugins is None:
            self.plugins = run.plugins
        if baseline and run.cases:
            self.failing = {case.test_id for case in run.cases if case.outcome in ("failed", "error")}
        return self.finished(run, work, tampered, runner)

    def run_variants(
        self, folder: Path, variants: Sequence[Mapping[str, str]], only: set[str]
    ) -> list[SuiteRun] | None:
        """Each of `variants` (files written over the folder's: the proof's mutants) judged by the
        tests `only`, all in one run when the folder's runner can (Runner.run_variants), in order;
        None when it can't: then each is a run of its own (`overlay`). The run takes them in an
        order drawn for it (drawn_order.py)."""
        copies = self.copies_of(folder)
        with copies.use() as scratch:
            work = scratch.work
            runner = runner_for(self.command, work)
            if runner is None or isinstance(runner, Unread):
                return None
            together = partial(
                runner.run_variants,
                self.sandbox,
                work,
                self.limits_now,
                self.twinned,
                only=only,
                prefer=only,
                avoid=self.flaky,
                writable=writable_in(work, self.exempt),
            )
            runs = in_drawn_order(variants, together)
            tampered = scratch.restore()
        return None if runs is None else [self.finished(run, work, tampered, runner) for run in runs]

    def finished(
        self, run: TestRun, work: Path, tampered: list[tuple[str, str]], runner: Runner | Unread | None
    ) -> SuiteRun:
        """What the judges read of a run."""
        outcome, cases = run.outcome, run.cases
        if cases is None:  # not pytest, or it died: the command itself is the one test
            problems = run.unittest.failing() if run.unittest else []
            passed = outcome.returncode == 0 and not outcome.killed and not problems
            why = outcome.killed or "; ".join(problems) or f"exited with code {outcome.returncode}"
            cases = [
                Case(
                    self.command,
                    "passed" if passed else "failed",
                    "" if passed else why,
                    outcome.output[-DETAIL_CHARS:],
                )
            ]
        results = by_id(cases)
        sealed = run.cases is not None or run.unittest is not None
        return SuiteRun(
            results,
            outcome.returncode,
            outcome.output,
            outcome.killed,
            str(work),
            tampered,
            run.tampered,
            sealed,
            run.forged,
            run.by_node_ids,
            runner.name if runner is not None and not isinstance(runner, Unread) else "pytest",
            outcome.seconds,
        )


@dataclass
class Baseline:
    first: SuiteRun
    target: list[str]  # failing in both runs
    flaky: list[str]  # outcome differs between the runs
    passing: set[str]  # passed in both runs
    pre_existing: list[str] = field(default_factory=list)  # failing at the base too: not the pull request's
    at_base: SuiteRun | None = None  # the run at the base, when measured with one
    ran: list[str] = field(default_factory=list)  # what was run and why, for the log

    @classmethod
    def measure(
        cls, suite: Suite, folder: Path, base: Path | None = None, expected: Set[str] = frozenset()
    ) -> Baseline:
        """The suite at the head, outcomes only (verdict.PLAIN); then, side by side, the flake check
        (the tests that failed, run again, with the messages the model reads; all of it when the
        runner can't select, or the first run died) and, given `base`
        (the folder of the commit the pull request branched from), those tests there: failing
        twice is the target, once is flaky. Nothing more runs when the first run passed.

        `expected`: the tests a CI log says fail (a guess, untrusted). With a core to spare, their
        flake check and base run go side by side with the whole suite instead of after it; only
        the tests failing in that run are read of them, and any it fails beyond them run after."""
        early = set(expected) if suite.jobs > 1 else set()
        with suite.discovery():
            try:
                first, *guessed = suite.side_by_side(
                    partial(suite.run, folder, baseline=True, outcomes_only=True),
                    *cls.again(suite, folder, base, early),
                )
                if first.forged:
                    raise UserError(
                        f"`{suite.command}`: at the pull request's head, {FORGED} ({first.forged[0]}): a plugin or "
                        "conftest of the suite changes what pytest reports, so autofix can't trust its verdict"
                    )
                ran = [f"the whole suite: {len(first.results)} tests, {len(first.failing)} failing"]
                if early:
                    at = " and at the base" if base is not None else ""
                    ran.append(f"the {len(early)} tests the CI log names as failing again{at}, side by side with it")
                if not first.failing and not first.killed:
                    return cls(first, [], [], first.ids("passed"), ran=[*ran, "nothing failed: no run again"])
                again = None if first.killed or not first.sealed else first.failing
                covered = again is not None and bool(guessed) and all(run.sealed for run in guessed)
                rest = again - early if covered and again is not None else again
                later = cls.again(suite, folder, base, rest)
                second, *at_base = suite.side_by_side(*later) if later else guessed
                if later and covered:
                    second, *at_base = [
                        combined(one, two) for one, two in zip(guessed, [second, *at_base], strict=True)
                    ]
                # The base's run read outcomes only: what fails there too runs there again as the gate
                # runs, so a test that needs assertion rewriting is never called pre-existing.
                failing = first.failing & second.failing
                also_at_base = at_base[0].failing & failing if at_base else set()
                if also_at_base and base is not None:
                    at_base = [combined(at_base[0], suite.run(base, only=also_at_base))]
            finally:
                if base is not None:
                    suite.forget(base)
        if again is None:
            why = first.killed or "its runner reported no result for each test"
            ran.append(f"the whole suite again (the first run's failure is outside the tests: {why})")
        else:
            how = "by node id" if second.by_node_ids else "selected from the whole suite"
            early_ones = f"; {len(again) - len(rest or ())} of them ran side by side with it" if covered else ""
            ran.append(f"the {len(again)} failing tests again, to tell flaky ones ({how}{early_ones})")
        if at_base:
            what = "the whole suite" if again is None else f"the {len(again)} failing tests"
            ran.append(f"{what} at the base, to tell pre-existing failures")
            if also_at_base:
                ran.append(f"the {len(also_at_base)} failing there too again at the base, as the gate runs them")
        if len(later) > 1:
            ran.append(
                f"those {len(later)} runs " + ("side by side" if suite.jobs > 1 else "one after the other (jobs: 1)")
            )
        ids = first.failing if again is not None else first.results.keys() | second.results.keys()
        flips = {i for i in ids if outcome_of(first, i) != outcome_of(second, i)}
        # The first run read outcomes only (no assertion rewriting), the second as the gate runs: a
        # test may differ for that alone. Those flipping again in a third run as the first are flaky.
        third = suite.run(folder, only=flips, outcomes_only=True) if flips and again is not None else None
        rewritten = {i for i in flips if third is not None and outcome_of(third, i) == outcome_of(first, i)}
        if third is not None:
            ran.append(
                f"the {len(flips)} tests passing the second time once more as the first, to tell flaky ones from "
                f"tests that need pytest's assertion rewriting: {len(rewritten)} of them do"
            )
        flaky = sorted(flips - rewritten)
        suite.flaky = set(flaky)
        passing = first.ids("passed") - (second.ids("failed", "error") if again is None else set()) | rewritten
        return cls(
            with_details(first, second),
            sorted(failing),
            flaky,
            passing - set(flaky),
            at_base=at_base[0] if at_base else None,
            ran=ran,
        )

    @staticmethod
    def again(suite: Suite, folder: Path, base: Path | None, only: set[str] | None) -> list[Callable[[], SuiteRun]]:
        """The flake check of `only` (None: the whole suite), whose failures' messages the model
        reads, and, given `base`, those tests there, outcomes only. No test asked: no run."""
        if only is not None and not only:
            return []
        runs: list[Callable[[], SuiteRun]] = [partial(suite.run, folder, only=only)]
        if base is not None:
            runs.append(partial(suite.run, base, only=only, outcomes_only=True))
        return runs

    def without_pre_existing(self, at_base: SuiteRun) -> Baseline:
        """The target less the tests that fail at the base the pull request branched from too."""
        old = [test for test in self.target if test in at_base.failing]
        return replace(self, target=[test for test in self.target if test not in old], pre_existing=old)

    @property
    def errored_everywhere(self) -> bool:
        """Every test of the head's run errored (none passed or failed on its own): the suite
        couldn't even import, which is the environment's doing when the base does the same."""
        outcomes = {result.outcome for result in self.first.results.values()}
        return outcomes == {"error"}

    @property
    def total(self) -> int:
        return len(self.first.results)


def by_id(cases: Sequence[Case]) -> dict[str, Case]:
    """Each test's case by its id. A runner may report two tests of one name (Jest's `it.each`,
    ESLint's RuleTester): the name's outcome is the one that didn't pass, so a pass after it
    can't hide a failure."""
    results: dict[str, Case] = {}
    for case in cases:
        kept = results.get(case.test_id)
        if kept is None or (kept.outcome == "passed" and case.outcome != "passed"):
            results[case.test_id] = case
    return results


def with_details(first: SuiteRun, again: SuiteRun) -> SuiteRun:
    """The first run, each test failing in both runs as the flake check reported it: with pytest's
    introspection of both sides, which the first run (outcomes only) skips."""
    failed = {test: again.results[test] for test in first.failing & again.failing}
    return replace(first, results={**first.results, **failed}) if failed else first


def combined(one: SuiteRun, two: SuiteRun) -> SuiteRun:
    """Two runs of different tests of one folder, as one: the second's results over the first's."""
    return replace(
        one,
        results={**one.results, **two.results},
        output=f"{one.output}\n{two.output}",
        killed=one.killed or two.killed,
        tampered=one.tampered + two.tampered,
        machinery=one.machinery + two.machinery,
        sealed=one.sealed and two.sealed,
        forged=one.forged + two.forged,
        by_node_ids=one.by_node_ids and two.by_node_ids,
    )


def outcome_of(run: SuiteRun, test_id: str) -> str:
    result = run.results.get(test_id)
    return result.outcome if result else "missing"


@dataclass
class Judgement:
    still_failing: list[tuple[str, str]] = field(default_factory=list)  # target tests, why
    newly_broken: list[tuple[str, str]] = field(default_factory=list)  # passed at baseline, why
    other: list[tuple[str, str]] = field(default_factory=list)  # the run itself

    forged: bool = False  # the run's report was tampered with: the flow proposes nothing more

    @property
    def passed(self) -> bool:
        return not (self.still_failing or self.newly_broken or self.other)

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.still_failing + self.newly_broken + self.other]


def judge(baseline: Baseline, run: SuiteRun, only: set[str] | None = None) -> Judgement:
    """The candidate's run against the baseline; with `only` (a quick run of those tests), the
    tests outside it count neither way."""
    verdict = Judgement()
    if run.forged:
        verdict.forged = True
        verdict.other.append((f"({run.runner})", f"{FORGED}: {'; '.join(run.forged)}"))
    if run.killed:
        verdict.other.append(("(suite)", run.killed))
    for change in run.machinery:
        verdict.other.append((f"({run.runner})", f"{change} during the test run; the tests' machinery may not change"))
    if baseline.first.sealed and not run.sealed and not run.killed:
        verdict.other.append(
            ("(suite)", f"the test run ended before the test runner finished the suite (exit code {run.returncode})")
        )
    for path, change in run.tampered:
        if (path, change) in baseline.first.tampered:  # the suite itself does that, at baseline too
            continue
        verdict.other.append((path, f"{change} during the test run; protected paths may not change"))
    asked = [test for test in baseline.target if only is None or test in only]
    for test_id in asked:
        result = run.results.get(test_id)
        if result is None:
            verdict.still_failing.append((test_id, "did not run"))
        elif result.outcome != "passed":
            verdict.still_failing.append((test_id, f"{result.outcome}: {result.message}"))
    for test_id in sorted(test for test in baseline.passing if only is None or test in only):
        result = run.results.get(test_id)
        if result is None:
            verdict.newly_broken.append((test_id, "passed before the change and did not run now"))
        elif result.outcome != "passed":
            verdict.newly_broken.append((test_id, f"passed before the change, {result.outcome} now: {result.message}"))
    return verdict


def feedback(verdict: Judgement, run: SuiteRun, budget: int = FEEDBACK_CHARS) -> str:
    """What the model is told: the target tests still failing, then the tests it broke, then
    their tracebacks, within `budget` characters."""
    parts = []
    if verdict.other:
        parts.append("The test run failed:\n" + lines(verdict.other))
    if verdict.still_failing:
        parts.append("Target tests still failing:\n" + lines(verdict.still_failing))
    elif verdict.newly_broken:
        parts.append("The target tests pass now.")
    if verdict.newly_broken:
        parts.append("Tests that passed before the change and fail with it:\n" + lines(verdict.newly_broken))
    head = "\n\n".join(parts)
    names = [name for name, _ in verdict.still_failing + verdict.newly_broken]
    details = "\n\n".join(
        f"{name}:\n{with_whole_values(run.results[name]).strip()}"
        for name in names
        if name in run.results and run.results[name].details.strip()
    )
    if verdict.other and not details:
        details = run.output
    details = details.replace(run.root + "/", "")
    room = budget - len(head) - 20
    if not details or room <= 200:
        return head[:budget]
    return f"{head}\n\nDetails:\n{clip_tail(details, room)}"


def lines(pairs: list[tuple[str, str]]) -> str:
    return "\n".join(f"- {name}: {' '.join(why.split())[:300]}" for name, why in pairs)
