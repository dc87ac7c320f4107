"""Judge one candidate: a scratch copy of the work folder, the tests run in the sandbox."""

from __future__ import annotations

import functools
import marshal
import os
import re
import secrets
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from bot.errors import UserError
from bot.judge import checks, guard, guards, hooks, integrity
from bot.judge.canaries import FORGED, planted_check
from bot.judge.documents import DocumentCheck
from bot.judge.failures import node_id, per_test, summary_line
from bot.judge.go import std_cache
from bot.judge.go.run import module_cache
from bot.judge.hung import hung, trimmed
from bot.judge.integrity import Case
from bot.judge.runners import Runner, Unread, runner_for
from bot.judge.scratch import Copies
from bot.judge.sql import QueryCheck
from bot.judge.targets import Checked, TargetCheck
from bot.judge.verdict import (
    DETERMINISTIC,
    Plugins,
    TestRun,
    UnittestCounts,
    memfd_of,
    refuse_broken_command,
    refuse_forging_suite,
    refuse_hidden_plugin,
    refuse_shadows,
    refuse_tree_writes,
    run_tests,
    writable_in,
)
from bot.sandbox.tiers import Limits, Sandbox, SandboxWarning, allowed_environ, open_sandbox, within
from bot.spec import Spec
from bot.text import FEEDBACK_CHARS, MESSAGE_CHARS, clip_head, clip_tail

TIMING = re.compile(r" in [0-9.]+s( \([0-9:]+\))?$")  # pytest's "in 0.04s" / "in 61.2s (0:01:01)"
RUNNER_SOURCE = (Path(__file__).parent / "sandboxed" / "checks_runner.py").read_text(encoding="utf-8")
# How the runner's processes start: from its compiled code, read from the descriptor argv[2] and
# closed before the runner runs (compiled once per autofix process: runner_code).
RUNNER_BOOT = (
    "import marshal, os, sys\n"
    "with os.fdopen(int(sys.argv[2]), 'rb') as _boot:\n"
    "    _boot = marshal.loads(_boot.read())\n"
    "exec(_boot)\n"
)


@functools.cache
def runner_code() -> bytes:
    return marshal.dumps(compile(RUNNER_SOURCE, "checks_runner.py", "exec"))


@dataclass
class Verdict:
    passed: bool
    failing: list[str] = field(default_factory=list)  # names of failing checks or test ids
    feedback: str = ""  # what the model is told
    seconds: float = 0.0
    inprocess: list[str] = field(default_factory=list)  # checks judged inside the candidate's process
    forged: bool = False  # a canary came back wrong: the run's report was tampered with
    killed: bool = False  # a run was stopped (its time, memory or output ran out): no test said no
    confirmed: bool = False  # a pass a second run in another clean copy, at the same time, passed too
    tests: int | None = None  # the command's tests that passed in this run, as its report counts them; None: uncounted


@dataclass
class Findings:
    """What one run found wrong: names for the report, messages and details for the model."""

    names: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)
    inprocess: list[str] = field(default_factory=list)
    cases: list[Case] = field(default_factory=list)  # failing tests of a pytest run, told one by one
    blocks: list[str] = field(default_factory=list)  # failing checks told one by one, before the details
    sources: str = ""  # the work folder, whose test files show a failing test's lines
    root: str = ""  # the scratch folder their tracebacks name
    forged: bool = False
    killed: bool = False
    tests: int | None = None  # the command's tests that passed, from the run's report (pytest, unittest, JS, Go)

    def add_forged(self, runner: str, why: list[str]) -> None:
        self.forged = True
        self.add(runner, f"{FORGED}: {'; '.join(why)}")

    def add_cases(self, failing: list[Case], output: str, root: str, runner: str = "pytest") -> None:
        """A run's failing tests: the model gets each one's traceback, not the output's tail; pytest's
        summary line too (a JavaScript runner's counts count the twins: its output leaves them out)."""
        self.cases += failing
        self.root = root
        line = summary_line(output) if runner == "pytest" else ""
        if line:
            # Without pytest's timing: the same failures make the same prompt, which a server's
            # prefix cache reuses and an eval's strategies share as one first call.
            self.details.append(f"pytest: {TIMING.sub('', line)}")

    def add(self, name: str, message: str, detail: str = "", label: str = "") -> None:
        """`label`: how the model reads the name (a pytest node id, where `name` is the report's id)."""
        self.names.append(name)
        self.messages.append(f"{label or name}: {message}")
        if detail:
            self.details.append(detail)


Screen = Callable[[str, "str | None"], list]  # (code, the target's current text) -> findings


class Validator:
    def __init__(
        self,
        spec: Spec,
        sandbox: Sandbox,
        limits: Limits | None = None,
        screen: Screen | None = guard.findings,
        leave_out: frozenset[str] = frozenset(),  # paths of the work folder no scratch copy holds
    ):
        self.spec = spec
        self.sandbox = sandbox
        # The static guard refuses code that reaches into the test machinery before it runs;
        # for a file that exists, only the lines the candidate adds are judged. `screen` is
        # Python's (None: no guard at all); another language's is its own (bot/judge/guards.py).
        language = None if spec.target_kind == "python" or screen is None else guards.for_path(spec.target)
        self.screen = screen if spec.target_kind == "python" else None
        if language is not None:
            check, target = language, spec.target
            self.screen = lambda code, original: check(code, original, target)
        self.original = current_text(spec.target_path)
        self.limits = limits or Limits(
            wall_seconds=spec.timeout,
            cpu_seconds=spec.limits.cpu_seconds,
            memory_mb=spec.limits.memory_mb,
            processes=spec.limits.processes,
            file_size_mb=spec.limits.file_size_mb,
            output_bytes=spec.limits.output_mb * 2**20,
            disk_mb=spec.limits.disk_mb,
        )
        self.target_check = target_check(spec, sandbox, self.limits)
        # One copy of the work folder for every check, put back after each (bot/judge/scratch.py).
        self.copies = Copies(
            spec.workdir, sandbox, spec.protected, spec.exempt, target=spec.target, leave_out=leave_out
        )
        self.statements = checks.prepare(spec.tests.code) if spec.tests.code else []
        # The runner's import path: this interpreter's, never the original work folder's.
        self.runner_paths = [str(p) for p in python_paths(spec.workdir) if str(p) in sys.path]
        self.notes: list[str] = []  # what the log should say once about how the tests are run
        self.failures_seen = ""  # the current code's failing tests, as the preflight saw them
        self.last_failing: set[str] = set()  # test ids the last run failed: the next check runs them first
        self.plugins = Plugins()  # the environment's pytest plugins, as the baseline found them
        self.twinned: dict[str, str] = {}  # a started runner's tests whose twins behave, and their outcomes
        # False: not measured yet (None is a measured answer: a command that is neither runner).
        self._baseline: integrity.OriginalSuite | UnittestCounts | None | Literal[False] = False

    def preflight(self) -> list[str]:
        """Before any model call: the test command runs once on the current code, and one that
        can't judge anything stops the task (UserError, exit 2). Notes for the log come back."""
        self.notes += self.copies.prepare()
        if self.spec.tests.command:
            self.baseline()
        if self.target_check:
            self.notes += self.target_check.preflight()
        return self.notes

    def check(self, code: str) -> Verdict:
        """Run every test on `code` in a scratch copy of the work folder as it was."""
        started = time.monotonic()
        refused = self.screen(code, self.original) if self.screen else []
        if refused:
            names = [f"(guard) line {finding.line}" for finding in refused]
            return Verdict(False, names, guard.feedback(refused), time.monotonic() - started)
        if self.spec.tests.command:
            self.baseline()  # measured in a copy of its own, before this check takes one
        found = Findings(sources=str(self.spec.workdir))
        with self.copies.use() as scratch:
            work = scratch.work
            scratch.write(self.spec.target, code)
            checked = self.target_check.check(code, work) if self.target_check else Checked()
            for name, message, detail in checked.problems:
                found.add(name, message, detail)
            if self.spec.tests.code and checked.parsed:
                self.run_checks(work, found, code)
            if self.spec.tests.command:
                self.run_command(work, found)
            for path, change in scratch.restore():
                found.add(path, f"{change} during the run; protected paths may not change")
        return Verdict(
            passed=not found.messages,
            failing=found.names,
            feedback=compose_feedback(found.messages, found.details, found, self.spec.target),
            seconds=time.monotonic() - started,
            inprocess=found.inprocess,
            forged=found.forged,
            killed=found.killed,
            tests=found.tests,
        )

    def run_checks(self, work: Path, found: Findings, code: str) -> None:
        # Not `-I`: it would ignore PYTHONHASHSEED. The environment is an allowlist already, and
        # -S skips site's .pth files: the runner gets autofix's sys.path instead.
        # The nonce travels in a memfd the checker reads and closes before the candidate exists:
        # never in an argument, the environment or a file the candidate could read.
        nonce = f"@@autofix-{secrets.token_hex(16)}@@"
        target, kind = str(work / self.spec.target), self.spec.target_kind
        runner = runner_code()
        statements = [*self.statements, planted_check(self.statements)]
        wired = (nonce, target, kind, checks.wire(statements), self.runner_paths, RUNNER_BOOT, runner)
        payload = marshal.dumps((*wired, str(work)))
        fd, code_fd = memfd_of("autofix-checks", payload), memfd_of("autofix-runner", runner)
        try:
            argv = [sys.executable, "-S", "-s", "-P", "-c", RUNNER_BOOT, "check", str(code_fd), str(fd)]
            env = allowed_environ(DETERMINISTIC)
            writable = writable_in(work, self.spec.exempt)  # as for the suite: the copy is read-only but these
            outcome = self.sandbox.run(argv, work, env, self.limits, pass_fds=(code_fd, fd), writable=writable)
        finally:
            os.close(fd)
            os.close(code_fd)
        if outcome.killed:
            found.add("checks", outcome.killed, outcome.output)
            return
        results = checks.judge(outcome.output, nonce, statements, outcome.returncode, planted=1)
        if results.forged:
            found.add_forged("(checks)", results.forged)
            return
        found.inprocess += results.inprocess
        found.names += results.names
        found.messages += results.failures
        if results.failures:
            found.blocks += results.blocks
            found.details.append(without_result_line(outcome.output, nonce))

    def run_command(self, work: Path, found: Findings) -> None:
        baseline = self.baseline()
        command = self.spec.tests.command
        assert command is not None  # check() runs the command only when the spec has one
        if isinstance(baseline, integrity.OriginalSuite) and self.last_failing and self.rejected_quickly(work, found):
            return
        run = self.tests_in(work, **self.canary_places(baseline))
        if run.forged:  # its outcomes can't be believed: say how it was forged, and nothing of them
            found.add_forged(self.runner_name(), run.forged)
            for change in run.tampered:
                found.add("(pytest)", f"{change} during the run; the tests' machinery may not change")
            return
        if run.cases is not None:
            self.last_failing = {case.test_id for case in run.cases if case.outcome in ("failed", "error")}
        outcome = run.outcome
        if outcome.killed:
            stopped(run, command, work, found)
            return
        failed = outcome.returncode != 0
        found.tests = passed_in(run)
        if isinstance(baseline, UnittestCounts):
            if run.unittest is None:
                found.add(
                    command,
                    f"the test run ended before unittest finished the suite (exit code {outcome.returncode}); "
                    "code that exits the interpreter or kills the run fails",
                    outcome.output,
                )
                return
            problems = [(command, problem) for problem in baseline.violations(run.unittest)]
        elif baseline is not None:
            if run.cases is None:
                name = self.runner_name()
                found.add(
                    name,
                    f"the test run ended before {name.strip('()')} finished its session (exit code "
                    f"{outcome.returncode}); code that exits the interpreter or kills the run fails",
                    outcome.output,
                )
                return
            refuse_shadows(run, self.spec.workdir, work, self.spec.target)
            problems = baseline.violations(run.cases)
            failed = failed or run.exitstatus != 0
        else:  # neither pytest nor unittest: the exit code decides
            problems = []
        for change in run.tampered:
            found.add(
                "(pytest)" if run.unittest is None else "(unittest)",
                f"{change} during the run; the tests' machinery may not change",
            )
        tracebacks = {case.test_id: case.details for case in run.cases or []}
        for name, problem in problems:
            pytest = isinstance(baseline, integrity.OriginalSuite)
            found.add(name, problem, label=pytest_label(name, tracebacks.get(name, "")) if pytest else "")
        if failed and not problems:
            found.add(command, f"exited with code {outcome.returncode}")
        failing = [case for case in run.cases or [] if case.outcome in ("failed", "error")]
        if failing:
            found.add_cases(failing, outcome.output, str(work), self.runner_name().strip("()"))
        elif problems or failed or run.tampered:
            found.details.append(outcome.output)

    def rejected_quickly(self, work: Path, found: Findings) -> bool:
        """Only the tests that failed last time, first: a candidate that still fails one is
        rejected in the time those take. A quick run never passes anyone: when they all pass (or
        the run says nothing), the whole suite decides."""
        command = self.spec.tests.command
        assert command is not None
        quick = self.tests_in(work, only=self.last_failing, **self.canary_places(self.baseline()))
        if quick.forged:
            found.add_forged(self.runner_name(), quick.forged)
            for change in quick.tampered:
                found.add("(pytest)", f"{change} during the run; the tests' machinery may not change")
            return True
        if quick.running is not None and (quick.outcome.killed or "").startswith("timed out"):
            stopped(quick, command, work, found)  # the whole suite, which holds this test, would time out too
            return True
        if quick.outcome.killed or quick.cases is None:
            return False
        refuse_shadows(quick, self.spec.workdir, work, self.spec.target)
        failing = [case for case in quick.cases if case.outcome in ("failed", "error")]
        if not failing and not quick.tampered:
            return False
        for case in failing:
            found.add(case.test_id, f"{case.outcome}: {case.message}", label=node_id(case.test_id, case.details))
        for change in quick.tampered:
            found.add("(pytest)", f"{change} during the run; the tests' machinery may not change")
        found.add_cases(failing, quick.outcome.output, str(work), self.runner_name().strip("()"))
        self.last_failing = {case.test_id for case in failing} or self.last_failing
        return True

    def tests_in(self, work: Path, discover: bool = False, **how) -> TestRun:
        """The test command in the scratch copy `work`, which the run may write only where
        tests.exempt says (verdict.run_tests takes the rest of `how`). `discover`: the copy is the
        work folder as it is, and pytest may find the environment's plugins on its own; every
        other run loads the ones the baseline found, by name. A runner autofix starts itself
        (runners.py: JavaScript's, Go's) is started as its module starts it."""
        command = self.spec.tests.command
        assert command is not None
        writable = writable_in(work, self.spec.exempt)
        runner = self.runner(work)
        if runner is not None:
            return runner.run(
                self.sandbox,
                work,
                self.limits,
                self.twinned,
                prefer=how.get("prefer", ()),
                writable=writable,
                only=how.get("only"),
                planted=how.get("planted", True),
                baseline=discover,
            )
        plugins = None if discover else self.plugins
        how.pop("planted", None)
        return run_tests(
            self.sandbox, command, work, self.limits, self.spec.target, writable=writable, plugins=plugins, **how
        )

    def runner_name(self) -> str:
        """How the failing list names the runner: `(pytest)`, or the runner's name (`(jest)`, `(go)`)."""
        command = self.spec.tests.command
        found = runner_for(command, self.spec.workdir) if command else None
        return "(pytest)" if found is None or isinstance(found, Unread) else f"({found.name})"

    def runner(self, work: Path) -> Runner | None:
        """The runner autofix starts itself for the command in `work` (runners.py), or None (pytest,
        unittest, or a command judged by its exit code; why, noted once for the log)."""
        command = self.spec.tests.command
        found = runner_for(command, work) if command else None
        if found is None:
            return None
        if isinstance(found, Unread):
            note = f"tests.command: {found.why}; autofix judges it by its exit code alone"
            if note not in self.notes:
                self.notes.append(note)
            return None
        return found

    def canary_places(self, baseline: object) -> dict:
        """Where this run's canaries go: among the module of a test that failed last, named from
        the suite's own test ids, the must-fail ones twins of the tests that failed last."""
        known = baseline.ids if isinstance(baseline, integrity.OriginalSuite) else ()
        modules = sorted({test.split("::")[0] for test in self.last_failing if "::" in test})
        return {"known": known, "hint": secrets.choice(modules) if modules else "", "prefer": self.last_failing}

    def baseline(self) -> integrity.OriginalSuite | UnittestCounts | None:
        """The original suite, measured once per task: its tests (pytest), its counts (unittest),
        or None for any other command. A suite that imports the target from anywhere but the copy
        is a configuration error."""
        if self._baseline is False:
            command = self.spec.tests.command
            assert command is not None  # only run_command measures a baseline
            with self.copies.use() as scratch:
                work = scratch.work
                run = self.tests_in(work, discover=True, extra_options="--continue-on-collection-errors", planted=None)
                self.plugins = run.plugins or Plugins()
                refuse_hidden_plugin(run, command)
                refuse_tree_writes(run, work, f"{self.spec.path}: tests.command")
                refuse_broken_command(run, command, f"{self.spec.path}: tests.command")
                refuse_forging_suite(run, command, f"{self.spec.path}: tests.command")
                refuse_shadows(run, self.spec.workdir, work, self.spec.target)
                declared = self.declared(work)
            if run.maxfail:
                self.notes.append(
                    f"tests.command stops at the first failure{'s' * (run.maxfail > 1)} (-x or --maxfail="
                    f"{run.maxfail}); autofix runs the whole suite to judge a candidate"
                )
            failing = [c for c in run.cases or [] if c.outcome in ("failed", "error")]
            self.last_failing = {case.test_id for case in failing}
            self.failures_seen = "\n\n".join(f"{c.test_id}: {c.details}" for c in failing) or run.outcome.output
            if run.cases is not None:
                self._baseline = integrity.OriginalSuite.from_cases(run.cases, self.spec.workdir, declared)
                self.calibrate(run.cases)
            else:
                self._baseline = run.unittest
        return self._baseline

    def declared(self, work: Path) -> Callable[[str], set[str]] | None:
        """For a runner autofix starts itself, what a unit of the suite declares (a JavaScript test
        file, a Go package), which its runs must report when it couldn't load on the repository's
        own code; None when the command runs some tests alone by name, or is pytest's."""
        runner = self.runner(work)
        return None if runner is None else runner.declared(str(self.spec.workdir))

    def calibrate(self, cases: list[Case]) -> None:
        """For a runner autofix starts itself: which tests can be twinned (its `calibrate`)."""
        with self.copies.use() as scratch:
            runner = self.runner(scratch.work)
            if runner is None:
                return
            writable = writable_in(scratch.work, self.spec.exempt)
            self.twinned, note = runner.calibrate(self.sandbox, scratch.work, self.limits, cases, writable)
        if note:
            self.notes.append(note)


def passed_in(run: TestRun) -> int | None:
    """How many of the command's tests passed, as the run's own report counts them (canaries and
    twins already sifted out); None for a command judged by its exit code, or one that never reported."""
    if run.cases is not None:
        return sum(case.outcome == "passed" for case in run.cases)
    counts = run.unittest
    if counts is None:
        return None
    return counts.run - counts.failures - counts.errors - counts.skipped - counts.unexpected_successes


def stopped(run: TestRun, command: str, work: Path, found: Findings) -> None:
    """A run stopped by its limits: the test that was running, and where it hung, when pytest's
    plugin said which (bot/judge/hung.py); else the command."""
    killed = run.outcome.killed
    assert killed is not None
    found.killed = True
    if run.running is None:
        found.add(command, killed, run.outcome.output)
        return
    test, seconds = run.running
    told, output = hung(test, seconds, killed, run.outcome.output, str(work)), trimmed(run.outcome.output, str(work))
    found.add(test, told, output, node_id(test))


def target_check(spec: Spec, sandbox: Sandbox, limits: Limits) -> TargetCheck | None:
    """What judges a target that isn't Python first: a document must parse, a query run."""
    if spec.target_kind in ("json", "yaml"):
        return DocumentCheck(spec)
    if spec.target_kind == "sql" and spec.tests.sql is not None:
        return QueryCheck(spec, sandbox, limits)
    return None


def current_text(path: Path) -> str | None:
    """The target's text when it is a readable file of its own (never through a link)."""
    try:
        return None if path.is_symlink() else path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def open_test_sandbox(
    requested: str,
    option: str,
    warn: Callable[[str], None],
    original: Path | None = None,
    also: Sequence[Path] = (),
) -> Sandbox:
    """The sandbox the tests run in, with this interpreter's folders readable but nothing inside
    the `original` work folder, and `also` (the tests' own environment). A tier that can't work
    here is the user's error, named by `option`; the `none` tier's warning goes to `warn`."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SandboxWarning)
        try:
            sandbox = open_sandbox(requested, readable=[*python_paths(original), *also, *go_paths(original)])
        except ValueError as exc:
            raise UserError(f"{option}: {exc}") from None
    for warning in caught:
        warn(str(warning.message))
    return sandbox


def go_paths(original: Path | None = None) -> list[Path]:
    """The machine's Go module cache, which `go test` reads modules from (bot/judge/go/run.py),
    and the standard packages' warm build caches (bot/judge/go/std_cache.py, made here when
    missing), read-only; never one inside the `original` work folder."""
    lasting = std_cache.root()
    found = [module_cache(), str(lasting) if std_cache.prepared(lasting) else ""]
    home = None if original is None else os.path.realpath(original)
    return [Path(path) for path in found if path and (home is None or not within(os.path.realpath(path), home))]


def python_paths(original: Path | None = None) -> list[Path]:
    """What the sandbox must show read-only so this interpreter and its packages work inside,
    and autofix's plugin. Never a folder inside the `original` work folder (an editable install's
    source would let the tests import the original instead of the candidate), except the
    interpreter's own environment when that lives there."""
    environment = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve().parent.parent}
    paths = {Path(entry) for entry in sys.path if entry and Path(entry).is_dir()} | {hooks.home()}
    if original is not None:
        home = os.path.realpath(original)
        paths = {
            p
            for p in paths
            if not within(os.path.realpath(p), home) or any(within(str(p), str(e)) for e in environment)
        }
    return sorted(paths | environment)


def pytest_label(name: str, details: str) -> str:
    """A test's or module's id as pytest takes it; autofix's own names (`(suite)`) as they are."""
    return name if name.startswith("(") else node_id(name, details)


def without_result_line(output: str, nonce: str) -> str:
    return "\n".join(line for line in output.splitlines() if not line.startswith(nonce)).strip()


def compose_feedback(
    failures: list[str],
    details: list[str],
    found: Findings | None = None,
    target: str = "",
    budget: int = FEEDBACK_CHARS,
) -> str:
    """Failing checks first, then each failing check's and test's own block (its statement or
    test, values, frames: checks.py, failures.py) and the output after them; without blocks, the
    tail of the output. Within a fixed budget; the same failure reads the same in every run."""
    return ADDRESS.sub(r"\1 at 0x…>", told(failures, details, found, target, budget))


# An object's default repr names where it sits in memory, which differs from run to run: the same
# failure would read differently each time (and an eval's strategies would get different prompts).
ADDRESS = re.compile(r"(<[^<>\n]{1,200}?) at 0x[0-9a-f]{4,16}>")


def told(failures: list[str], details: list[str], found: Findings | None, target: str, budget: int) -> str:
    if not failures:
        return ""
    head = "Failing checks:\n" + "\n".join(f"- {clip_head(f, MESSAGE_CHARS)}" for f in failures)
    head = clip_head(head, budget // 2)
    tail = "\n\n".join(d.strip() for d in details if d and d.strip())
    room = budget - len(head) - 20
    blocks = [*found.blocks] if found is not None else []
    if found is not None and found.cases:
        blocks.append(per_test(found.cases, target, found.root, found.sources))
    if blocks and room > 0:
        told = "\n\n".join([*blocks, tail]).strip()
        return f"{head}\n\nDetails:\n{clip_head(told, room)}"
    if not tail or room <= 0:
        return head
    return f"{head}\n\nDetails:\n{clip_tail(tail, room)}"
