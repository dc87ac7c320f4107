"""The free-form pipeline, wherever the task comes from (an issue, a comment, an eval task): with
the suite's baseline measured, localize the code, reproduce the bug with a test that fails, then
repair until the gate passes: the reproduction passes and no test that passed before fails,
errors, is skipped or goes missing (bot/judge/gate.py), and then the fix proves it (bot/core/proof.py:
the reproduction runs what the fix added, and fails some mutant of what it changed, else the fix is
unproven). No reproduction, no repair, unless the caller allows an unproven fix, judged by the
suite alone.

A Go module's reproduction test goes in the package of the first Go file localization picked (its
folder; else the folder the caller chose), in that package's clause as its other tests have it."""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from bot.core.edits import FORMAT_HELP
from bot.core.gated import EditTree, GateJudge
from bot.core.localize import Located, localize
from bot.core.loop import run
from bot.core.proof import ProofJudge
from bot.core.protocol import Budget
from bot.core.report import Attempt, Report
from bot.core.reproduce import Reproduction, Tried, fence_of, reproduce
from bot.core.workspace import Workspace
from bot.judge import gate
from bot.lang import registry
from bot.models.base import Model
from bot.spec import DEFAULT_STRATEGY, Strategy
from bot.text import clip_head, count, fence

REPRODUCE_TRIES = 3
FILE_CHARS = 12_000  # of one chosen file shown in a prompt
FILES_HEADING = "The files most likely involved, as they are now:"
GO_PACKAGE = re.compile(r"^package\s+(\w+)", re.M)
SYSTEM = (
    "[autofix:repair] You fix a bug reported in an issue. A test that reproduces it is given and fails now; "
    "change the code so that it passes, without breaking any other test. Tests can't be edited: edits to them "
    "are refused. Keep the change small.\n\n" + FORMAT_HELP
)


@dataclass(frozen=True)
class Task:
    text: str  # the issue, or the request
    files: list[str]  # the files its author named: no localization call then
    test_path: str  # where the reproduction test goes, relative to the root
    attempts: int
    max_tokens: int | None = None
    allow_unproven: bool = False
    runner: str = "pytest"  # the suite's runner, whose test file the reproduction is: jest, vitest, node, go
    example: str = ""  # a test file of the repository's, shown for its framework's ways
    strategy: Strategy = DEFAULT_STRATEGY  # how the repair loop goes on after a failed attempt


@dataclass
class Outcome:
    located: Located
    found: Reproduction | list[Tried]  # the accepted test, or every refused one
    judged: gate.Baseline | None = None  # what the repair was judged against; None: no repair
    judge: ProofJudge | None = None
    test_path: str = ""  # where the reproduction test went (a Go test: the localized package's folder)

    @property
    def reproduction(self) -> Reproduction | None:
        return self.found if isinstance(self.found, Reproduction) else None


def solve(
    model: Model,
    suite: gate.Suite,
    work: Workspace,
    baseline: gate.Baseline,
    task: Task,
    report: Report,
    say: Callable[[str], None],
    on_attempt: Callable[[Attempt], None] = lambda attempt: None,
    on_stage: Callable[[str], None] = lambda stage: None,
) -> Outcome:
    """The stages after the baseline; `report` records every model call, `say` gets one line each,
    `on_stage` the label of each stage as it starts (then of each attempt, from the loop)."""
    on_stage("localizing")
    located = localize(model, work.root, task.text, task.files, report)
    report.files_shown = list(located.shown)
    say(f"localize: {', '.join(located.chosen) or 'no file'} (of {len(located.shown)} shown)")
    on_stage("reproducing")
    path, example, package = placed(work, task, located.chosen)
    asked = f"The issue:\n\n{task.text}\n\n{files(work, located.chosen)}"
    if example and example not in located.chosen:  # the framework's ways, as the repository has them
        asked = asked.rstrip("\n") + "\n\n" + files(work, [example], heading="One of the repository's tests:")
    found = reproduce(
        model, suite, work.root, path, asked, REPRODUCE_TRIES, report, task.text, task.runner, package
    )  # fmt: skip
    outcome = Outcome(located, found, test_path=path)
    reproduction = outcome.reproduction
    if isinstance(found, list):
        say(f"reproduce: none of {count(len(found), 'test file')} showed the bug")
        if not task.allow_unproven:
            return outcome
        outcome.judged = replace(baseline, target=[], pre_existing=baseline.target)
        proof = "No test reproduces it yet; the whole suite judges."
    else:
        assert reproduction is not None
        work.originals[path] = None  # a new file of the change: in its patch and commit
        say(f"reproduce: {', '.join(reproduction.failing)} fail on the current code")
        outcome.judged = replace(
            baseline,
            target=reproduction.failing,
            pre_existing=baseline.target,
            passing=baseline.passing | set(reproduction.passing),
        )
        proof = (
            f"This test, {reproduction.path} (it can't be edited), reproduces the bug: it fails now and must pass."
            f"\n\n{fence(reproduction.code, fence_of(reproduction.path))}\n\nHow it fails now:\n\n"
            f"{fence(reproduction.output)}"
        )
    tests, wanted = (reproduction.failing, reproduction.wanted) if reproduction else ([], [])
    judge = outcome.judge = ProofJudge(GateJudge(suite, outcome.judged, work), tests, wanted, report, (path,))
    intro = f"Fix the bug this issue reports.\n\nThe issue:\n\n{task.text}\n\n{proof}"
    try:
        answer = EditTree(SYSTEM, intro, work, lambda: files(work, [*located.chosen, *work.changed], path))
        run(
            answer, judge, model, Budget(task.attempts, task.max_tokens), report, on_attempt=on_attempt,
            on_stage=on_stage, restart=answer.restarted, strategy=task.strategy,
        )  # fmt: skip
    finally:
        report.files_changed = work.changed
    return outcome


def placed(work: Workspace, task: Task, chosen: list[str]) -> tuple[str, str, str]:
    """Where the reproduction test goes, the repository's test file shown for its ways, and a Go
    test's package clause: the task's, but for a Go test the folder of the first Go file chosen
    (a source file first), with a test file of that folder and its package clause."""
    if task.runner != "go":
        return task.test_path, task.example, ""
    sources = sorted((path.endswith("_test.go"), n) for n, path in enumerate(chosen) if path.endswith(".go"))
    folder = posixpath.dirname(task.test_path)
    if sources:
        picked = posixpath.dirname(chosen[sources[0][1]])
        if not posixpath.isabs(picked) and ".." not in picked.split("/"):
            folder = picked
    path = posixpath.join(folder, posixpath.basename(task.test_path))
    try:
        names = sorted(entry.name for entry in os.scandir(work.root / folder) if entry.is_file(follow_symlinks=False))
    except OSError:
        names = []
    tests = [posixpath.join(folder, name) for name in names if name.endswith("_test.go")]
    example = next((test for test in tests if test != path), "")
    package = ""
    for source in [example, *(posixpath.join(folder, name) for name in names if name.endswith(".go"))]:
        found = GO_PACKAGE.search(work.read(source) or "") if source else None
        if found:
            package = found[1]
            break
    return path, example, package


def files(work: Workspace, paths: list[str], shown_already: str = "", heading: str = FILES_HEADING) -> str:
    """The files the model should read, as they are now, numbered, each cut to FILE_CHARS."""
    shown = []
    for path in dict.fromkeys(path for path in paths if path != shown_already):
        text = work.read(path)
        if text is None:
            continue
        numbered = "".join(f"{n:>5}  {line}" for n, line in enumerate(text.splitlines(True), 1))
        view = registry.for_path(path)
        shown.append(f"{path}:\n{fence(clip_head(numbered, FILE_CHARS), view.name if view else 'python')}")
    return f"{heading}\n\n" + "\n\n".join(shown) if shown else ""
