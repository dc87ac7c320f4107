"""What the JavaScript and Go runners' twins share (js/canaries.py, go/canaries.py): a twin of a
suite's test and the file planted with them, and the verdict of a run that carried them, which
the suite's own tests decide."""

from __future__ import annotations

from dataclasses import dataclass

from bot.judge.integrity import Case
from bot.judge.verdict import TestRun
from bot.sandbox.tiers import Outcome


@dataclass(frozen=True)
class Twin:
    test_id: str  # as the runner's report will name it (`./calc::TestOrderAdd`, `test/x.test.js::a > b`)
    original: str  # the suite's test it copies
    broken: bool  # True: fails by construction; False: comes back as the original does


@dataclass(frozen=True)
class Planted:
    path: str  # relative to the work folder
    text: str
    twins: tuple[Twin, ...]
    helpers: tuple[str, ...] = ()  # the planted file's own functions (Go's broken twins' value changer)
    like: str = ""  # the file it copies from: its times are the planted file's (Go's)


def decided(outcome: Outcome, kept: list[Case], forged: list[str], sifted: bool) -> TestRun:
    """The run's verdict from the suite's own cases, `kept` once the twins are sifted out: the
    runner's exit code counts the twins, which fail by construction, so when they were sifted
    (`sifted`) the cases decide it, unless the run was stopped."""
    status = 0 if all(case.outcome in ("passed", "skipped") for case in kept) else 1
    outcome.returncode = status if sifted and not outcome.killed else outcome.returncode
    return TestRun(outcome, kept, exitstatus=status, forged=forged)
