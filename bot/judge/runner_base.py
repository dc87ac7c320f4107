"""What every test runner autofix reads a report from offers the judges, whatever its language.

A test command that starts a runner autofix knows (a JavaScript runner, `go test`) is started by
autofix itself, without a shell, and its outcomes are read per test; pytest and unittest are
judged through their own hooks (verdict.py); anything else by its exit code. The validator and
the red-CI gate ask `runners.runner_for(command, work)` and talk to what comes back through this
protocol alone: no language has a branch of its own there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from bot.judge.integrity import Case
from bot.judge.verdict import TestRun
from bot.sandbox.tiers import Limits, Sandbox


@dataclass(frozen=True)
class Unread:
    why: str  # one line: why autofix judges this command by its exit code
    missing: bool = False  # the runner it names isn't installed: nothing could judge, a configuration error


class Runner(Protocol):
    """A test runner autofix starts itself and reads per test."""

    @property
    def name(self) -> str:
        """How the failing list names it: `jest`, `vitest`, `node`, `go`."""
        ...

    def run(
        self,
        sandbox: Sandbox,
        work: Path,
        limits: Limits,
        twinned: Mapping[str, str],
        *,
        only: Iterable[str] | None = None,
        prefer: Iterable[str] = (),
        avoid: Iterable[str] = (),
        writable: Sequence[str] | None = None,
        planted: bool | None = True,
        baseline: bool = False,
    ) -> TestRun:
        """One run in the scratch copy `work`. `twinned`: the tests whose canaries behave (calibrate)
        and their outcomes; `only`: test ids to run (the runner's own filter, as fine as it goes);
        `prefer`: tests to twin first (those failing last); `avoid`: never twinned (the flaky ones);
        `writable`: what the run may write (Sandbox.run); `planted`: None plants no canary (the
        baseline's run); `baseline`: the run that measures the repository's own code (Go's lists
        each package's tests beside it)."""
        ...

    def calibrate(
        self,
        sandbox: Sandbox,
        work: Path,
        limits: Limits,
        cases: Iterable[Case],
        writable: Sequence[str] | None,
    ) -> tuple[dict[str, str], str]:
        """Which of the baseline's tests can carry canaries, with their outcomes, and a note for
        the log when none can."""
        ...

    def run_variants(
        self,
        sandbox: Sandbox,
        work: Path,
        limits: Limits,
        twinned: Mapping[str, str],
        variants: Sequence[Mapping[str, str]],
        *,
        only: Iterable[str],
        prefer: Iterable[str] = (),
        avoid: Iterable[str] = (),
        writable: Sequence[str] | None = None,
    ) -> list[TestRun] | None:
        """Each of `variants` (files written over `work`'s: the proof's mutants) judged by the
        tests `only`, all in one run, in order; None when this runner can't (then each variant is
        a run of its own)."""
        ...

    def declared(self, workdir: str) -> Callable[[str], set[str]] | None:
        """What a unit of the suite that couldn't load on the repository's own code (its id
        `unit::`) declares, which every run must report; None when the command runs some tests
        alone by name, so no such list holds."""
        ...
