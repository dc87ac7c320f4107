"""Judge one candidate: a scratch copy of the work folder, the tests run in the sandbox."""

from __future__ import annotations

import marshal
import secrets
import shutil
import sys
import tempfile
import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator

from bot import checks, integrity
from bot.errors import UserError
from bot.sandbox import Limits, Outcome, Sandbox, SandboxWarning, allowed_environ, open_sandbox
from bot.spec import Spec

FEEDBACK_CHARS = 6000  # what a repair prompt carries of the failures, at most
MESSAGE_CHARS = 400  # of one failure's message
RUNNER_SOURCE = (Path(__file__).parent / "checks_runner.py").read_text(encoding="utf-8")
SKIPPED = shutil.ignore_patterns(*integrity.IGNORED_DIRS)
DETERMINISTIC = {"PYTHONHASHSEED": "0"}  # the same candidate gets the same verdict every run


@dataclass
class Verdict:
    passed: bool
    failing: list[str] = field(default_factory=list)  # names of failing checks or test ids
    feedback: str = ""  # what the model is told
    seconds: float = 0.0


@dataclass
class Findings:
    """What one run found wrong: names for the report, messages and details for the model."""

    names: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    details: list[str] = field(default_factory=list)

    def add(self, name: str, message: str, detail: str = "") -> None:
        self.names.append(name)
        self.messages.append(f"{name}: {message}")
        if detail:
            self.details.append(detail)


class Validator:
    def __init__(self, spec: Spec, sandbox: Sandbox, limits: Limits | None = None):
        self.spec = spec
        self.sandbox = sandbox
        self.limits = limits or Limits(
            wall_seconds=spec.timeout,
            cpu_seconds=spec.limits.cpu_seconds,
            memory_mb=spec.limits.memory_mb,
            processes=spec.limits.processes,
            file_size_mb=spec.limits.file_size_mb,
            output_bytes=spec.limits.output_mb * 2**20,
        )
        self.protected = integrity.snapshot(spec.workdir, spec.protected)
        self.statements = checks.prepare(spec.tests.code) if spec.tests.code else []
        # What the runner needs, once per task: the statements and this interpreter's import path.
        self.runner_payload = marshal.dumps((self.statements, [p for p in sys.path if p])).hex()
        self._baseline: integrity.Baseline | None | bool = False  # False: not measured yet

    def check(self, code: str) -> Verdict:
        """Run every test on `code` in a fresh scratch copy of the work folder."""
        started = time.monotonic()
        found = Findings()
        with scratch_copy(self.spec.workdir) as work:
            target = work / self.spec.target
            if target.is_symlink() or target.exists():
                target.unlink()  # never write through a link the repository planted
            target.write_text(code, encoding="utf-8")
            if self.spec.tests.code:
                self.run_checks(work, found)
            if self.spec.tests.command:
                self.run_command(work, found)
            for path, change in integrity.tampering(self.protected, integrity.snapshot(work, self.spec.protected)):
                found.add(path, f"{change} during the run; protected paths may not change")
        return Verdict(
            passed=not found.messages,
            failing=found.names,
            feedback=compose_feedback(found.messages, found.details),
            seconds=time.monotonic() - started,
        )

    def run_checks(self, work: Path, found: Findings) -> None:
        # Not `-I`: it would ignore PYTHONHASHSEED. The environment is an allowlist already, and
        # -S skips site's .pth files: the runner gets autofix's sys.path instead.
        nonce = f"@@autofix-{secrets.token_hex(8)}@@"
        argv = [sys.executable, "-S", "-s", "-P", "-c", RUNNER_SOURCE, nonce, str(work / self.spec.target), self.runner_payload]
        outcome = self.sandbox.run(argv, work, allowed_environ(DETERMINISTIC), self.limits)
        if outcome.killed:
            found.add("checks", outcome.killed, outcome.output)
            return
        results = checks.judge(outcome.output, nonce, self.statements)
        found.names += results.names
        found.messages += results.failures
        if results.failures:
            found.details += [without_result_line(outcome.output, nonce), *results.details]

    def run_command(self, work: Path, found: Findings) -> None:
        baseline = self.baseline()
        outcome, cases = run_tests(self.sandbox, self.spec.tests.command, work, self.limits)
        if outcome.killed:
            found.add(self.spec.tests.command, outcome.killed, outcome.output)
            return
        if baseline is None:  # not pytest: the exit code decides
            if outcome.returncode != 0:
                found.add(self.spec.tests.command, f"exited with code {outcome.returncode}", outcome.output)
            return
        if cases is None:
            found.add("(pytest)", f"the test run ended without a JUnit report (exit code {outcome.returncode}); code that exits the interpreter or kills the run fails", outcome.output)
            return
        problems = baseline.violations(cases)
        for name, problem in problems:
            found.add(name, problem)
        if outcome.returncode != 0 and not problems:
            found.add(self.spec.tests.command, f"exited with code {outcome.returncode}")
        if problems or outcome.returncode != 0:
            found.details.append(outcome.output)

    def baseline(self) -> integrity.Baseline | None:
        """The original suite's tests, measured once per task; None when the command isn't pytest."""
        if self._baseline is False:
            with scratch_copy(self.spec.workdir) as work:
                _, cases = run_tests(self.sandbox, self.spec.tests.command, work, self.limits, "--continue-on-collection-errors")
            self._baseline = None if cases is None else integrity.Baseline.from_cases(cases, self.spec.workdir)
        return self._baseline


@contextmanager
def scratch_copy(folder: Path) -> Iterator[Path]:
    """A fresh copy of `folder` (without .git and caches) that is gone afterwards."""
    with tempfile.TemporaryDirectory(prefix="autofix-") as scratch:
        work = Path(scratch) / "work"
        shutil.copytree(folder, work, symlinks=True, ignore=SKIPPED)
        yield work


def run_tests(sandbox: Sandbox, command: str, work: Path, limits: Limits, extra_options: str = "") -> tuple[Outcome, list[integrity.Case] | None]:
    """The test command in the sandbox, and its JUnit cases when it ran pytest (else None)."""
    junit = work / f".autofix-junit-{secrets.token_hex(8)}.xml"  # the sandbox can write only here
    # PYTEST_ADDOPTS reaches pytest however the command starts it; other runners ignore it.
    options = f"--junitxml={junit} -p no:cacheprovider {extra_options}".strip()
    env = allowed_environ({**DETERMINISTIC, "PYTEST_ADDOPTS": options})
    outcome = sandbox.run(["/bin/sh", "-c", command], work, env, limits)
    cases = integrity.read_junit(junit)
    junit.unlink(missing_ok=True)
    return outcome, cases


def open_test_sandbox(requested: str, option: str, warn: Callable[[str], None]) -> Sandbox:
    """The sandbox the tests run in, with this interpreter's folders readable. A tier that can't
    work here is the user's error, named by `option`; the `none` tier's warning goes to `warn`."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", SandboxWarning)
        try:
            sandbox = open_sandbox(requested, readable=python_paths())
        except ValueError as exc:
            raise UserError(f"{option}: {exc}") from None
    for warning in caught:
        warn(str(warning.message))
    return sandbox


def python_paths() -> list[Path]:
    """What the sandbox must show read-only so this interpreter and its packages work inside."""
    paths = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve().parent.parent}
    paths |= {Path(entry) for entry in sys.path if entry and Path(entry).is_dir()}
    return sorted(paths)


def without_result_line(output: str, nonce: str) -> str:
    return "\n".join(line for line in output.splitlines() if not line.startswith(nonce)).strip()


def compose_feedback(failures: list[str], details: list[str], budget: int = FEEDBACK_CHARS) -> str:
    """Failing checks first, then the tail of the tracebacks and output, within a fixed budget."""
    if not failures:
        return ""
    head = "Failing checks:\n" + "\n".join(f"- {clip(f, MESSAGE_CHARS)}" for f in failures)
    head = clip(head, budget // 2)
    tail = "\n\n".join(d.strip() for d in details if d and d.strip())
    room = budget - len(head) - 20
    if not tail or room <= 0:
        return head
    return f"{head}\n\nDetails:\n{keep_tail(tail, room)}"


def clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 40] + f" [... {len(text) - limit + 40} characters cut]"


def keep_tail(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    kept = limit - 40
    return f"[... {len(text) - kept} characters cut ...]\n" + text[-kept:]
