"""What a whole `autofix action` red-CI step costs on a real JavaScript suite, against one plain
run of that suite: no-case 3.0.4's tarball from the npm registry, whose Jest spec (31 tests) ships
beside its code, with camelCase no longer split (11 tests fail) -- the project and bug of
`make smoke`'s js-red-ci (tests/container/projects.py's NO_CASE).

- red CI: a pull request breaks `noCase`; its failed `workflow_run` goes to the step, after the
  workflow's `npm ci` (node_modules in the workspace), and the model's first edit fixes it
  (goal: <= 3 plain runs);
- plain: `node node_modules/jest/bin/jest.js` on the original code, no sandbox, Jest's cache empty
  (a fresh TMPDIR, as on a fresh CI runner and as in each of autofix's runs).

As red_ci.py does it (its `step`): the fake GitHub behind real PyGithub, a bare git origin, the
scripted OpenAI server, the real sandbox, the two interleaved over RUNS and their medians compared.
The tarball and its node_modules are kept under out/bench-red-ci-js. `--compare` times the step a
third way, each of the proof's variants judged in a Jest run of its own (as before the mutant
schema, bot/lang/js_schema.py), interleaved with the others.

Run with `make bench-red-ci` (after red_ci.py), or `make bench-red-ci-js` alone.
Not a test: a missed goal still exits 0 (`--strict` makes it exit 1); a broken benchmark exits non-zero.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
for folder in ("support", "container", "flows"):
    sys.path.insert(0, str(ROOT / "tests" / folder))

from action_world import World  # noqa: E402
from fake_github import FakeGitHub  # noqa: E402
from projects import NO_CASE, NPM_FLAGS, fetch_npm  # noqa: E402
from red_ci import step, verdict  # noqa: E402
from scenarios import NO_CASE_LOG, edit_block  # noqa: E402
from test_ci_repair import open_pull, run_event  # noqa: E402

from bot.judge.js.runner import JavaScript  # noqa: E402

CACHE = ROOT / "out" / "bench-red-ci-js"
PACKAGE = f"{NO_CASE.name}-{NO_CASE.version}"
BUG = NO_CASE.bug
RUNS = 3
GOAL = 3.0
JEST = ["node", "node_modules/jest/bin/jest.js"]  # what `npm test` (`jest`) starts, node starting it directly
CONFIG = f"tests:\n  command: {json.dumps(NO_CASE.tests)}\nmax_attempts: 2\n"
FIX = "The split of camelCase lost its space.\n\n" + edit_block(BUG.path, BUG.wrong, BUG.right, "javascript")


def pristine_tree() -> Path:
    """The tarball unpacked, its manifest and lock as the smoke test's, and its devDependencies
    installed in its node_modules: once; an interrupted fetch or install never counts."""
    tree = CACHE / PACKAGE
    if shutil.which("npm") is None or shutil.which("node") is None:
        sys.exit("bench-red-ci-js: needs Node.js and npm on PATH")
    if (tree / "node_modules" / ".package-lock.json").exists():
        return tree
    shutil.rmtree(tree, ignore_errors=True)
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as staging:
        fetched = fetch_npm(NO_CASE, Path(staging))  # npm pack, lock, `npm ci` (fills npm's cache), node_modules gone
        subprocess.run(["npm", "ci", *NPM_FLAGS], cwd=fetched, check=True, stdout=subprocess.DEVNULL)
        os.rename(fetched, tree)
    return tree


def files_of(tree: Path) -> dict[str, str]:
    """What the repository holds: the tarball's files, then the workflow's `npm ci` makes node_modules."""
    files = {
        str(path.relative_to(tree)): path.read_text(encoding="utf-8")
        for path in sorted(tree.rglob("*"))
        if path.is_file() and path.relative_to(tree).parts[0] != "node_modules"
    }
    BUG.plant(files[BUG.path])  # the bug's line is there, once
    return files | {".gitignore": "node_modules\n", ".github/autofix.yml": CONFIG}


def plain(tree: Path) -> float:
    with tempfile.TemporaryDirectory(prefix="bench-red-ci-js-tmp-") as tmp:
        started = time.perf_counter()
        run = subprocess.run(JEST, cwd=tree, capture_output=True, text=True, env={**os.environ, "TMPDIR": tmp})
        seconds = time.perf_counter() - started
    if run.returncode != 0:
        sys.exit(f"bench-red-ci-js: the original suite of {PACKAGE} doesn't pass here:\n{run.stderr[-2000:]}")
    return seconds


def red_ci(tree: Path, files: dict[str, str], folder: Path, jobs: str) -> tuple[float, str]:
    with FakeGitHub() as github, pytest.MonkeyPatch.context() as patch:
        world = World(folder, patch, github)
        world.input("jobs", jobs)
        world.commit_to_origin(files)
        broken = {BUG.path: BUG.plant(files[BUG.path])}
        pull, run = open_pull(world, github, broken, title="Simplify the camelCase split")
        github.add_job(run, "test", log=NO_CASE_LOG)
        (world.workspace / "node_modules").symlink_to(tree / "node_modules")  # the workflow's `npm ci`, before autofix
        world.event("workflow_run", run_event(github, pull, run))
        return step(world, github, [FIX], f"autofix-pr-{pull.number}.json")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", default="", help="runs of the suite at once (default: one more than the cores)")
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--log", action="store_true", help="print the last step's whole log")
    parser.add_argument("--strict", action="store_true", help="exit 1 when the goal is missed")
    parser.add_argument(
        "--compare",
        action="store_true",
        help="also time the step with the proof's variants judged one Jest run each, as before the mutant schema",
    )
    args = parser.parse_args()
    tree = pristine_tree()
    files = files_of(tree)
    plain(tree)  # warms the page cache
    times: dict[str, list[float]] = {"plain": [], "red CI": []} | ({"one run each": []} if args.compare else {})
    log = ""
    for number in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="bench-red-ci-js-") as scratch:
            times["plain"].append(plain(tree))
            seconds, log = red_ci(tree, files, Path(scratch), args.jobs)
            times["red CI"].append(seconds)
        if args.compare:
            with (
                tempfile.TemporaryDirectory(prefix="bench-red-ci-js-") as scratch,
                pytest.MonkeyPatch.context() as patch,
            ):
                patch.setattr(JavaScript, "run_variants", lambda *args, **kwargs: None)
                times["one run each"].append(red_ci(tree, files, Path(scratch), args.jobs)[0])
        print(f"run {number + 1}: " + ", ".join(f"{name} {seconds[-1]:.2f} s" for name, seconds in times.items()))
    medians = {name: statistics.median(seconds) for name, seconds in times.items()}
    cores = len(os.sched_getaffinity(0))
    about = f"{NO_CASE.name} {NO_CASE.version} (Jest), camelCase no longer split"
    print(f"\n{about}; cores: {cores}, jobs: {args.jobs or 'default'}")
    if args.log:
        print("".join(f"  | {line}\n" for line in log.splitlines()))
    else:
        print("".join(f"  {line}\n" for line in log.splitlines() if line.startswith("autofix: baseline")), end="")
    print(f"plain suite run: {medians['plain']:.2f} s (median of {args.runs})")
    ratio = medians["red CI"] / medians["plain"]
    print(f"red CI step, passing on attempt 1: {medians['red CI']:.2f} s = {ratio:.2f}x plain ({verdict(ratio, GOAL)})")
    if args.compare:
        before = medians["one run each"]
        print(
            f"the same step with each of the proof's variants a Jest run of its own: {before:.2f} s = "
            f"{before / medians['plain']:.2f}x plain; the mutant schema's step takes "
            f"{medians['red CI'] / before:.2f} of it"
        )
    if args.strict and ratio > GOAL:
        sys.exit(1)


if __name__ == "__main__":
    main()
