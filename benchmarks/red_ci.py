"""What a whole `autofix action` step costs on a real suite, against one plain run of that suite:
toolz's own tests (its sdist from PyPI, 1.0.0), with `frequencies` counting every item twice.

- red CI: a pull request breaks `frequencies`; its failed `workflow_run` goes to the step, whose
  model's first edit fixes it (goal: <= 3.5 plain runs);
- free-form: an issue on a default branch holding the bug; the model names the file, writes a
  test that reproduces it, then the fix (goal: <= 4.5 plain runs);
- plain: `python -m pytest -q -p no:cacheprovider toolz/tests` on the original code, no sandbox.

As the tests do it: the fake GitHub (tests/support/fake_github.py) behind real PyGithub, a bare
git origin, the scripted OpenAI server, the real sandbox. The three are interleaved over RUNS, so
load from elsewhere falls on each alike, and their medians compared. Then `autofix run` on
more-itertools (benchmarks/existing_code.py, goal: its passing attempt <= 2.5 plain runs).

Run with `make bench-red-ci` (`--jobs N` caps the runs at once; `taskset -c 0-3` pins the cores).
Not a test: a missed goal still exits 0; only a broken benchmark exits non-zero.
"""

from __future__ import annotations

import argparse
import contextlib
import io
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
sys.path.insert(0, str(ROOT / "tests" / "support"))

from action_world import FAST, REPO, TOKEN, World, labeled, payload  # noqa: E402
from fake_github import FakeGitHub  # noqa: E402
from fake_openai import ScriptedOpenAI  # noqa: E402
from sdists import unpacked  # noqa: E402

from bot.github.dispatch import main as action  # noqa: E402
from bot.github.forge import Forge  # noqa: E402

CACHE = ROOT / "out" / "bench-red-ci"
VERSION = "1.0.0"
SDIST = f"toolz-{VERSION}"
TARGET = "toolz/itertoolz.py"
RUNS = 3
PYTEST = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
GOALS = {"red CI": 3.5, "free-form": 4.5}
ORIGINAL = "        d[item] += 1\n"
BUG = "        d[item] += 2\n"
FIX = f"{TARGET}\n```python\n<<<<<<< SEARCH\n{BUG}=======\n{ORIGINAL}>>>>>>> REPLACE\n```\n"
CONFIG = f"tests:\n  command: {' '.join(PYTEST[:4])} toolz/tests\nmax_attempts: 2\n"
# As pytest's short summary ends the failed job's log.
JOB_LOG = (
    "FAILED toolz/tests/test_itertoolz.py::test_frequencies - AssertionError: assert {'cat': 6, ...\n"
    "FAILED toolz/tests/test_recipes.py::test_countby - assert {False: 4, True: 2} == {False: 2, True: 1}\n"
)
ISSUE = "`frequencies(['cat', 'cat', 'ox'])` returns `{'cat': 4, 'ox': 2}`: every item is counted twice."
REPRODUCES = (
    "```python\ndef test_frequencies_counts_each_item_once():\n    from toolz import frequencies\n\n"
    "    assert frequencies(['cat', 'cat', 'ox']) == {'cat': 2, 'ox': 1}\n```"
)


def pristine_tree() -> Path:
    return unpacked(f"toolz=={VERSION}", SDIST, CACHE)


def files_of(tree: Path, bug: bool) -> dict[str, str]:
    files = {
        str(path.relative_to(tree)): path.read_text(encoding="utf-8")
        for path in sorted(tree.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts and ".egg-info" not in str(path)
    }
    if files[TARGET].count(ORIGINAL) != 1:
        sys.exit(f"bench-red-ci: {TARGET} of {SDIST} doesn't hold the line the bug changes: {ORIGINAL.strip()}")
    if bug:
        files[TARGET] = files[TARGET].replace(ORIGINAL, BUG)
    return files | {".github/autofix.yml": CONFIG}


def plain(tree: Path) -> float:
    started = time.perf_counter()
    run = subprocess.run([*PYTEST, "toolz/tests"], cwd=tree, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if run.returncode != 0:
        sys.exit(f"bench-red-ci: the original suite of {SDIST} doesn't pass here:\n{run.stdout[-2000:]}")
    return seconds


def step(world: World, github: FakeGitHub, replies, report: str) -> tuple[float, str]:
    """One `autofix action` step: its wall time and its log. Anything but a pass on attempt 1 is
    a broken benchmark."""
    out = io.StringIO()
    with ScriptedOpenAI(replies) as openai, contextlib.redirect_stdout(out):
        for name, value in {**world.inputs, "base-url": openai.base_url}.items():
            world.input(name, value)
        started = time.perf_counter()
        code = action(os.environ, forge=Forge(github.api_url, TOKEN, REPO, FAST))
        seconds = time.perf_counter() - started
    log = out.getvalue()
    path = world.out / report
    attempts = json.loads(path.read_text())["attempts"] if path.exists() else []
    if code != 0 or [attempt["passed"] for attempt in attempts] != [True]:
        sys.exit(f"bench-red-ci: the step should pass on attempt 1; it exited {code}:\n{log[-4000:]}")
    return seconds, log


def red_ci(tree: Path, folder: Path, jobs: str) -> tuple[float, str]:
    with FakeGitHub() as github, pytest.MonkeyPatch.context() as patch:
        world = World(folder, patch, github)
        world.input("jobs", jobs)
        world.commit_to_origin(files_of(tree, bug=False))
        seed = world.seed
        world.git("checkout", "--quiet", "-B", "feature", "origin/master", cwd=seed)
        (seed / TARGET).write_text(files_of(tree, bug=True)[TARGET], encoding="utf-8")
        world.git("commit", "--quiet", "-am", "frequencies: faster", cwd=seed)
        sha = world.git("rev-parse", "HEAD", cwd=seed)
        world.git("push", "--quiet", "origin", "feature", cwd=seed)
        github.add_branch(REPO, "feature", sha=sha)
        pull = github.add_pull(REPO, head="feature", base="master", title="frequencies: faster", user="Codertocat")
        world.git("push", "--quiet", "origin", f"{sha}:refs/pull/{pull.number}/head", cwd=seed)
        run = github.add_workflow_run(
            REPO, head_branch="feature", head_sha=sha, event="pull_request", pull_requests=[pull.number]
        )
        github.add_job(run, "test", log=JOB_LOG)
        world.input("pr", str(pull.number))
        world.event("workflow_dispatch", payload("workflow_dispatch"))
        return step(world, github, [FIX], f"autofix-pr-{pull.number}.json")


def free_form(tree: Path, folder: Path, jobs: str) -> tuple[float, str]:
    with FakeGitHub() as github, pytest.MonkeyPatch.context() as patch:
        world = World(folder, patch, github)
        world.input("jobs", jobs)
        world.commit_to_origin(files_of(tree, bug=True))
        event = labeled(body=ISSUE)
        event["issue"]["title"] = "frequencies counts every item twice"
        world.event("issues", event)
        script = {"localize": [f"```\n{TARGET}\n```"], "reproduce": [REPRODUCES], "repair": [FIX]}
        return step(world, github, script, "autofix-issue-1.json")


def existing_code() -> str:
    """benchmarks/existing_code.py's own figures, as `make bench-existing` prints them."""
    command = [sys.executable, str(ROOT / "benchmarks" / "existing_code.py"), "--mode", "edit"]  # as bench-existing
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"bench-red-ci: benchmarks/existing_code.py failed:\n{run.stdout}{run.stderr}")
    return run.stdout.strip()


def verdict(ratio: float, goal: float) -> str:
    return f"<= {goal}: {'met' if ratio <= goal else 'missed'}"


def ratio_told(medians: dict[str, float], runs: int, goal: float, runner: str) -> float:
    """The twins' (red_ci_js.py, red_ci_go.py) last lines: the plain run, the step against it, and
    with "one run each" measured (--compare), the step with one `runner` run per proof variant."""
    print(f"plain suite run: {medians['plain']:.2f} s (median of {runs})")
    ratio = medians["red CI"] / medians["plain"]
    print(f"red CI step, passing on attempt 1: {medians['red CI']:.2f} s = {ratio:.2f}x plain ({verdict(ratio, goal)})")
    if "one run each" in medians:
        before = medians["one run each"]
        print(
            f"the same step with each of the proof's variants a {runner} run of its own: {before:.2f} s = "
            f"{before / medians['plain']:.2f}x plain; the mutant schema's step takes "
            f"{medians['red CI'] / before:.2f} of it"
        )
    print()
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", default="", help="runs of the suite at once (default: one more than the cores)")
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--skip-existing", action="store_true", help="leave out `autofix run` on more-itertools")
    args = parser.parse_args()
    tree = pristine_tree()
    plain(tree)  # warms the page cache and the tests' bytecode
    times: dict[str, list[float]] = {"plain": [], "red CI": [], "free-form": []}
    logs = {}
    for number in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="bench-red-ci-") as scratch:
            times["plain"].append(plain(tree))
            (Path(scratch) / "red").mkdir()
            seconds, logs["red CI"] = red_ci(tree, Path(scratch) / "red", args.jobs)
            times["red CI"].append(seconds)
            (Path(scratch) / "free").mkdir()
            seconds, logs["free-form"] = free_form(tree, Path(scratch) / "free", args.jobs)
            times["free-form"].append(seconds)
        print(f"run {number + 1}: " + ", ".join(f"{name} {seconds[-1]:.2f} s" for name, seconds in times.items()))
    medians = {name: statistics.median(seconds) for name, seconds in times.items()}
    cores = len(os.sched_getaffinity(0))
    print(f"\ntoolz {VERSION}, frequencies counting twice; cores: {cores}, jobs: {args.jobs or 'default'}")
    for line in logs["red CI"].splitlines():
        if line.startswith("autofix: baseline ran"):
            print(f"  {line}")
    print(f"plain suite run: {medians['plain']:.2f} s (median of {args.runs})")
    for name, goal in GOALS.items():
        ratio = medians[name] / medians["plain"]
        print(f"{name} step, passing on attempt 1: {medians[name]:.2f} s = {ratio:.2f}x plain ({verdict(ratio, goal)})")
    if not args.skip_existing:
        print("\n" + existing_code())
    shutil.rmtree(CACHE / "work", ignore_errors=True)


if __name__ == "__main__":
    main()
