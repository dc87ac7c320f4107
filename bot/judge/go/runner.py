"""Go's `go test` behind the runner interface (bot/judge/runner_base.py): command.py reads the
command, run.py runs it, report.py reads go's events, canaries.py plants twins of the tests."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.judge.go import run
from bot.judge.go.command import GoTest, runner_of
from bot.judge.go.variants import run_variants
from bot.judge.integrity import Case
from bot.judge.runner_base import Unread
from bot.judge.verdict import TestRun
from bot.sandbox.tiers import Limits, Sandbox


@dataclass(frozen=True)
class Go:
    test: GoTest
    name: str = "go"

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
        """Twins (canaries.py) of the tests `twinned` names go into the packages of those in `prefer`."""
        return run.run_go(
            sandbox,
            self.test,
            work,
            limits,
            last=twinned,
            prefer=prefer,
            avoid=avoid,
            only=only,
            writable=writable,
            baseline=baseline,
            planted=planted,
        )

    def calibrate(
        self, sandbox: Sandbox, work: Path, limits: Limits, cases: Iterable[Case], writable: Sequence[str] | None
    ) -> tuple[dict[str, str], str]:
        return run.calibrate(sandbox, self.test, work, limits, cases, writable)

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
        """Every variant in one run: one test binary per package, run once per variant (variants.py)."""
        return run_variants(
            sandbox,
            self.test,
            work,
            limits,
            variants,
            last=twinned,
            only=only,
            prefer=prefer,
            avoid=avoid,
            writable=writable,
        )

    def declared(self, workdir: str) -> Callable[[str], set[str]] | None:
        if self.test.filtered:
            return None
        return lambda folder: run.declared(workdir, folder)


def runner_for(command: str, work: Path) -> Go | Unread | None:
    found = runner_of(command, work)
    return Go(found) if isinstance(found, GoTest) else found
