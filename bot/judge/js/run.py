"""One run of a JavaScript test runner in the sandbox, and what autofix can believe about it.

autofix starts the runner itself (command.py: node with the runner's own entry file, no shell),
adds its reporter (bot/judge/sandboxed/js/), and hands it the run's nonce on a memfd: the
reporter takes the nonce when it loads in the runner's main process, empties the memfd, and
writes one line signed with it when the run ends (report.py). A run that ends before that line
has no verdict. What the line says is believed only together with the twins planted among the
suite's tests (canaries.py), since the runner's own channel from the processes that run tests
can be written by code under test.

The runner's caches go to the run's private TMPDIR (Jest's default lies under os.tmpdir(); Vite's
is named), and `CI=true` keeps every runner from watching or prompting.
"""

from __future__ import annotations

import functools
import re
import secrets
import shutil
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from bot import safefs
from bot.judge import hooks, verdict
from bot.judge.integrity import Case
from bot.judge.js import canaries, report
from bot.judge.js.command import Started
from bot.judge.twins import decided
from bot.sandbox.tiers import Limits, Sandbox, allowed_environ

SOURCES = Path(__file__).resolve().parent.parent / "sandboxed" / "js"
REPORTERS = {"node": "node_reporter.mjs", "jest": "jest_reporter.cjs", "vitest": "vitest_reporter.mjs"}
SEAL = "seal.cjs"  # what the reporters share: each requires it from its own folder
# WebAssembly's guard regions reserve gigabytes of address space per instance, past the run's
# memory limit (Vite's parsers are Wasm): bounds checks in the code instead, which workers inherit.
NODE_FLAGS = ("--disable-wasm-trap-handler",)
IN_BAND = ("--runInBand", "-i")  # Jest's: the tests beside the reporter; autofix gives them a worker
WORKER_MEMORY = "64GB"  # only there to make Jest start a worker: far above what a run may use
# Options of node, Jest and Vitest that take the next word as their value.
VALUED = {
    "-c", "--config", "-t", "--testNamePattern", "-w", "--maxWorkers", "--selectProjects", "--shard", "--testTimeout",
    "--rootDir", "--roots", "--env", "--testEnvironment", "--testPathIgnorePatterns", "-r", "--root", "--dir",
    "--project", "--environment", "--pool", "--mode", "--test-name-pattern", "--test-skip-pattern",
    "--test-concurrency", "--import", "--require", "--loader", "--experimental-loader", "--test-timeout",
    "--test-shard", "-C", "--conditions",
}  # fmt: skip
LIBRARY_FRAME = re.compile(r"^\s+at (?:.*[(/ ]node_modules/|.*\(node:|node:|new Promise \(<anonymous>\)|process\w*)")
QUIET = {"CI": "true", "FORCE_COLOR": "0", "NO_COLOR": "1", "NODE_ENV": "test"}


COPYING = threading.Lock()  # runs side by side ask for the reporters at once


def reporters() -> Path:
    """The reporters and their seal, copied once into the hooks' folder, which every sandbox shows read-only."""
    with COPYING:
        return copied()


@functools.cache
def copied() -> Path:
    folder = hooks.home() / "js"
    folder.mkdir(mode=0o755)
    for name in (*REPORTERS.values(), SEAL):
        shutil.copyfile(SOURCES / name, folder / name)
        (folder / name).chmod(0o644)
    return folder


def reporter_options(runner: str) -> list[str]:
    """The runner's own human-readable output, and autofix's reporter beside it."""
    path = str(reporters() / REPORTERS[runner])
    if runner == "node":
        return [
            "--test-reporter=spec",
            "--test-reporter-destination=stdout",
            f"--test-reporter={path}",
            "--test-reporter-destination=/dev/null",
        ]
    if runner == "jest":
        # Jest runs the tests in its own process, beside the reporter, when it has one worker
        # (any machine of 2 cores) or one file; an idle-memory limit makes it start a worker.
        return [
            "--ci",
            "--watchAll=false",
            "--watchman=false",
            f"--workerIdleMemoryLimit={WORKER_MEMORY}",
            "--reporters=default",
            f"--reporters={path}",
        ]
    return ["--watch=false", "--reporter=default", f"--reporter={path}"]


def arguments(started: Started, paths: Sequence[str]) -> list[str]:
    """The runner's argv: node takes its options before the files (it reads what follows the
    first file as the script's); Jest's `--reporters` takes every word after it, so the paths go
    before autofix's options there. `paths`, when given, replace the command's own test paths
    (a run of some files alone) or join them when the command names any."""
    if started.runner == "node":
        program, rest = started.argv[:1], started.argv[1:]
    else:
        program, rest = started.argv[:2], started.argv[2:]
    rest = [arg for arg in rest if arg not in IN_BAND]
    options = reporter_options(started.runner)
    node = [program[0], *NODE_FLAGS, *program[1:]]
    if started.runner == "node":
        return [*node, *options, *rest, *paths]
    return [*node, *rest, *paths, *options]


def own_frames(details: str) -> str:
    """A failure's message and the stack frames in the repository: the runner's own frames and
    node's internals go."""
    return "\n".join(line for line in details.split("\n") if not LIBRARY_FRAME.search(line))


def split(started: Started) -> tuple[list[str], list[str]]:
    """The command's own words after the program: (options with their values, test paths)."""
    words = started.argv[1:] if started.runner == "node" else started.argv[2:]
    options: list[str] = []
    positional: list[str] = []
    value = False
    for word in words:
        if value or word.startswith("-") or (started.runner == "vitest" and word == "run" and not options):
            options.append(word)
            value = word in VALUED
        else:
            positional.append(word)
            value = False
    return options, positional


def run_js(
    sandbox: Sandbox,
    started: Started,
    work: Path,
    limits: Limits,
    last: Mapping[str, str],
    *,
    prefer: Iterable[str] = (),
    avoid: Iterable[str] = (),
    writable: Sequence[str] | None = None,
    only: Iterable[str] | None = None,
    planted: Sequence[canaries.Planted] | bool | None = True,
    sift: bool = True,
) -> verdict.TestRun:
    """The runner on the scratch copy `work`, with twins of the tests whose outcomes `last` knows
    (none when it knows none). `only`: test files to run alone (the runner's own filter).
    `planted`: True draws the twins; a list plants those; None plants none. `sift`: False keeps the twins' cases
    among the others (a calibration's run of the planted files alone)."""
    nonce = f"@@autofix-verdict-{secrets.token_hex(16)}@@"
    if only is not None:  # twins of the tests that run: an echo's original must come back beside it
        only = set(only)
        last = {test: outcome for test, outcome in last.items() if test.split("::", 1)[0] in only}
    drawn = canaries.plant(str(work), last, started.runner, prefer, avoid) if planted is True and last else []
    twins = drawn if planted is True else list(planted) if planted else []
    env = allowed_environ({**verdict.DETERMINISTIC, **QUIET, **started.env})
    if only is not None:  # those files in place of the command's own paths
        paths = sorted({*only, *(one.path for one in twins)})
        program = started.argv[:1] if started.runner == "node" else started.argv[:2]
        started = Started(started.runner, [*program, *split(started)[0]], started.env, started.via)
    else:  # the planted file named beside the command's own paths, when it names any
        paths = [one.path for one in twins] if split(started)[1] else []
    argv = arguments(started, paths)
    for one in twins:
        safefs.write_file(work, one.path, one.text.encode("utf-8"))
    try:
        with verdict.channel(nonce + "\n") as fd:
            env["AUTOFIX_REPORT_FD"] = str(fd)
            outcome = sandbox.run(argv, work, env, limits, pass_fds=(fd,), writable=writable)
            record = report.read_record(fd, nonce)
    finally:
        for one in twins:
            safefs.remove_file(work, one.path)
    outcome.output = canaries.scrub(outcome.output, twins)
    cases = report.cases(record) if record is not None else None
    if cases is None:
        return verdict.TestRun(outcome, None)
    kept, forged = canaries.sift(cases, twins) if sift else (cases, [])
    for case in kept:
        case.details = own_frames(case.details)
    return decided(outcome, kept, forged, bool(twins) and sift)


def calibrate(
    sandbox: Sandbox,
    started: Started,
    work: Path,
    limits: Limits,
    cases: Iterable[Case],
    writable: Sequence[str] | None,
) -> tuple[dict[str, str], str]:
    """Which of the suite's tests can be twinned, and their outcomes: a copy of a test file
    (one that failed, when one did) with an echo of each of its tests and a broken twin of each
    failing one, run alone on the repository's own code; those whose twins came back as they must.
    The note for the log says why there are none, when there are none."""
    last = {case.test_id: case.outcome for case in cases}
    failing = {test for test, outcome in last.items() if outcome == "failed"}
    planting = canaries.plant(str(work), last, started.runner, prefer=failing, every=True)
    if not planting:
        return {}, "no test of the suite can be twinned: its runs carry no canaries"
    paths = {planted.path for planted in planting}
    run = run_js(sandbox, started, work, limits, last, writable=writable, only=paths, planted=planting, sift=False)
    trusted = canaries.trusted(run.cases or [], planting, last)
    if not trusted:
        return {}, "no test's twin came back as the test does: the suite's runs carry no canaries"
    return {test: last[test] for test in trusted}, ""
