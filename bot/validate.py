"""Judge one candidate: a scratch copy of the work folder, the tests run in the sandbox."""

from __future__ import annotations

import secrets
import shutil
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from bot import checks
from bot.sandbox import Limits, Outcome, Sandbox, allowed_environ
from bot.spec import Spec

FEEDBACK_CHARS = 6000  # what a repair prompt carries of the failures, at most
MESSAGE_CHARS = 400  # of one failure's message
RUNNER_SOURCE = (Path(__file__).parent / "checks_runner.py").read_text(encoding="utf-8")
SKIPPED = shutil.ignore_patterns(".git", "__pycache__", ".pytest_cache")
DETERMINISTIC = {"PYTHONHASHSEED": "0"}  # the same candidate gets the same verdict every run


@dataclass
class Verdict:
    passed: bool
    failing: list[str] = field(default_factory=list)  # names of failing checks or test ids
    feedback: str = ""  # what the model is told
    seconds: float = 0.0


class Validator:
    def __init__(self, spec: Spec, sandbox: Sandbox, limits: Limits | None = None):
        self.spec = spec
        self.sandbox = sandbox
        self.limits = limits or Limits(wall_seconds=spec.timeout)

    def check(self, code: str) -> Verdict:
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="autofix-") as scratch:
            work = Path(scratch) / "work"
            shutil.copytree(self.spec.workdir, work, symlinks=True, ignore=SKIPPED)
            (work / self.spec.target).write_text(code, encoding="utf-8")
            failures: list[str] = []
            names: list[str] = []
            details: list[str] = []
            if self.spec.tests.code:
                self.run_checks(work, failures, names, details)
            if self.spec.tests.command:
                self.run_command(work, failures, names, details)
        return Verdict(
            passed=not failures,
            failing=names,
            feedback=compose_feedback(failures, details),
            seconds=time.monotonic() - started,
        )

    def run_checks(self, work: Path, failures: list[str], names: list[str], details: list[str]) -> None:
        # Not `-I`: it would ignore PYTHONHASHSEED. The environment is an allowlist already.
        nonce = f"@@autofix-{secrets.token_hex(8)}@@"
        argv = [sys.executable, "-s", "-P", "-c", RUNNER_SOURCE, nonce, str(work / self.spec.target), self.spec.tests.code]
        outcome = self.sandbox.run(argv, work, allowed_environ(DETERMINISTIC), self.limits)
        if outcome.killed:
            failures.append(f"checks: {outcome.killed}")
            names.append("(checks)")
            details.append(outcome.output)
            return
        results = checks.judge(outcome.output, nonce, self.spec.tests.code)
        failures += results.failures
        names += results.names
        details += results.details or [without_result_line(outcome.output, nonce)]

    def run_command(self, work: Path, failures: list[str], names: list[str], details: list[str]) -> None:
        junit = work / f".autofix-junit-{secrets.token_hex(8)}.xml"
        # PYTEST_ADDOPTS reaches pytest however the command starts it; other runners ignore it.
        env = allowed_environ({**DETERMINISTIC, "PYTEST_ADDOPTS": f"--junitxml={junit} -p no:cacheprovider"})
        outcome = self.sandbox.run(["/bin/sh", "-c", self.spec.tests.command], work, env, self.limits)
        if outcome.returncode == 0 and not outcome.killed:
            return
        failed_tests = junit_failures(junit)
        for test_id, message in failed_tests:
            names.append(test_id)
            failures.append(f"{test_id}: {message}")
        if not failed_tests:
            names.append(self.spec.tests.command)
            failures.append(f"`{self.spec.tests.command}` {exit_description(outcome)}")
        details.append(outcome.output)


def python_paths() -> list[Path]:
    """What the sandbox must show read-only so this interpreter and its packages work inside."""
    paths = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve().parent.parent}
    paths |= {Path(entry) for entry in sys.path if entry and Path(entry).is_dir()}
    return sorted(paths)


def exit_description(outcome: Outcome) -> str:
    return outcome.killed or f"exited with code {outcome.returncode}"


def junit_failures(path: Path) -> list[tuple[str, str]]:
    """(test id, first line of the message) for each failed or errored test in a junit file."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return []
    failed = []
    for case in root.iter("testcase"):
        problem = case.find("failure")
        if problem is None:
            problem = case.find("error")
        if problem is not None:
            test_id = f"{case.get('classname', '')}::{case.get('name', '')}".lstrip(":")
            message = (problem.get("message") or problem.text or "failed").strip().splitlines()
            failed.append((test_id, message[0] if message else "failed"))
    return failed


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
