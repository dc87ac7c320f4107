"""JavaScript's runners (node:test, Jest, Vitest) behind the runner interface
(bot/judge/runner_base.py): command.py reads the command, run.py runs it, expected.py says what a
test file that couldn't load declares."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.judge.integrity import Case
from bot.judge.js import expected
from bot.judge.js.command import Started, runner_of
from bot.judge.js.run import calibrate, run_js
from bot.judge.js.variants import run_variants
from bot.judge.runner_base import Unread
from bot.judge.verdict import TestRun
from bot.sandbox.tiers import Limits, Sandbox


@dataclass(frozen=True)
class JavaScript:
    started: Started

    @property
    def name(self) -> str:
        return self.started.runner

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
        """`only` runs those tests' files (a JavaScript runner selects by file)."""
        return run_js(
            sandbox,
            self.started,
            work,
            limits,
            twinned,
            prefer=prefer,
            avoid=avoid,
            writable=writable,
            only=None if only is None else {test.split("::", 1)[0] for test in only},
            planted=planted,
        )

    def calibrate(
        self, sandbox: Sandbox, work: Path, limits: Limits, cases: Iterable[Case], writable: Sequence[str] | None
    ) -> tuple[dict[str, str], str]:
        return calibrate(sandbox, self.started, work, limits, cases, writable)

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
        """Jest's and node:test's in one run through a mutant schema (variants.py); Vitest's: None,
        each variant a run of its own."""
        return run_variants(sandbox, self.started, work, limits, variants, only=only, writable=writable)

    def declared(self, workdir: str) -> Callable[[str], set[str]] | None:
        if expected.filtered(self.started.argv):
            return None
        runner = self.started.runner
        return lambda relative: expected.declared(workdir, relative, runner)


def runner_for(command: str, work: Path) -> JavaScript | Unread | None:
    """The JavaScript runner `command` starts in `work` (command.runner_of), or why it can't be
    read, or None when the command isn't JavaScript's."""
    found = runner_of(command, work)
    return JavaScript(found) if isinstance(found, Started) else found
