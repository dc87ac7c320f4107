"""What a whole `autofix action` red-CI step costs on a real JavaScript suite, against one plain
run of that suite, on two tarballs from the npm registry whose Jest suites ship beside their code:

- eslint-plugin-jsx-a11y 5.1.1 (46 test files, 13,555 tests of ESLint rules, through Babel; its
  Jest 20 and Babel 6 moved to Jest 30 and Babel 7, `modernized`), with `getSuggestion` giving one
  suggestion fewer than asked (2 tests of one file fail) -- a suite whose run is mostly its tests;
- no-case 3.0.4 (31 tests in one spec, Jest 30; half a second), with camelCase no longer split
  (11 tests fail) -- the project and bug of `make smoke`'s js-red-ci (tests/container/projects.py's
  NO_CASE): a suite so small that what every step costs whatever the suite (the sandbox, Jest
  starting for each run, the model, git, GitHub) is most of the step.

For each: a pull request breaks the function; its failed `workflow_run` goes to the step, after
the workflow's `npm ci` (node_modules in the workspace), and the model's first edit fixes it
(goal: <= 3 plain runs); plain: Jest started by node on the original code, no sandbox, Jest's
cache empty (a fresh TMPDIR, as on a fresh CI runner and as in each of autofix's runs).

As red_ci.py does it (its `step`): the fake GitHub behind real PyGithub, a bare git origin, the
scripted OpenAI server, the real sandbox, the two interleaved over RUNS and their medians compared.
The tarballs and their node_modules are kept under out/bench-red-ci-js. `--compare` times the step
a third way, each of the proof's variants judged in a Jest run of its own (as before the mutant
schema, bot/lang/js_schema.py), interleaved with the others; `--package` picks one.

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
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
for folder in ("support", "container", "flows"):
    sys.path.insert(0, str(ROOT / "tests" / folder))

from action_world import World  # noqa: E402
from archives import unpack  # noqa: E402
from fake_github import FakeGitHub  # noqa: E402
from projects import NO_CASE, NPM_FLAGS, Bug, fetch_npm  # noqa: E402
from red_ci import ratio_told, step  # noqa: E402
from scenarios import NO_CASE_LOG, edit_block  # noqa: E402
from test_ci_repair import open_pull, run_event  # noqa: E402

from bot.judge.js.runner import JavaScript  # noqa: E402

CACHE = ROOT / "out" / "bench-red-ci-js"
RUNS = 3
GOAL = 3.0
JEST = ["node", "node_modules/jest/bin/jest.js"]  # what `npm test` (`jest`) starts, node starting it directly
STAMP = "2024-05-01T10:00:00.0000000Z "


@dataclass(frozen=True)
class Package:
    name: str  # what --package and the report call it
    version: str
    tests: str  # tests.command in .github/autofix.yml
    bug: Bug
    about: str  # the report's words for the bug
    title: str  # the pull request's
    why: str  # the fix's first words

    @property
    def folder(self) -> str:
        return f"{self.name}-{self.version}"

    @property
    def config(self) -> str:
        return f"tests:\n  command: {json.dumps(self.tests)}\nmax_attempts: 2\n"

    @property
    def fix(self) -> str:
        return f"{self.why}\n\n" + edit_block(self.bug.path, self.bug.wrong, self.bug.right, "javascript")


A11Y = Package(
    "eslint-plugin-jsx-a11y",
    "5.1.1",
    "npx jest",
    Bug(
        "src/util/getSuggestion.js",
        "    .sort((a, b) => distances[a] - distances[b]) // Sort by distance\n    .slice(0, limit);\n",
        "    .sort((a, b) => distances[a] - distances[b]) // Sort by distance\n    .slice(0, limit - 1);\n",
    ),
    "getSuggestion gives one suggestion fewer than asked",
    "getSuggestion: trim the list",
    "The list lost its last suggestion.",
)
PACKAGES = {
    package.name: package
    for package in (
        A11Y,
        Package(
            NO_CASE.name,
            NO_CASE.version,
            NO_CASE.tests,
            NO_CASE.bug,
            "camelCase no longer split",
            "Simplify the camelCase split",
            "The split of camelCase lost its space.",
        ),
    )
}


def pristine_tree(package: Package) -> Path:
    """The tarball unpacked and its devDependencies installed in its node_modules: once; an
    interrupted fetch or install never counts. no-case's manifest and lock are the smoke test's;
    eslint-plugin-jsx-a11y's are its own (npm resolves its ranges once, then the lock holds them)."""
    tree = CACHE / package.folder
    if shutil.which("npm") is None or shutil.which("node") is None:
        sys.exit("bench-red-ci-js: needs Node.js and npm on PATH")
    if (tree / "node_modules" / ".package-lock.json").exists():
        return tree
    shutil.rmtree(tree, ignore_errors=True)
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CACHE) as staging:
        if package.name == NO_CASE.name:
            fetched = fetch_npm(
                NO_CASE, Path(staging)
            )  # npm pack, lock, `npm ci` (fills npm's cache), node_modules gone
            subprocess.run(["npm", "ci", *NPM_FLAGS], cwd=fetched, check=True, stdout=subprocess.DEVNULL)
        else:
            done = subprocess.run(
                ["npm", "pack", *NPM_FLAGS, "--json", f"{package.name}@{package.version}"],
                cwd=staging, check=True, capture_output=True, text=True,
            )  # fmt: skip
            unpack(Path(staging) / json.loads(done.stdout)[0]["filename"], Path(staging))
            fetched = Path(staging) / "package"
            modernized(fetched)
            subprocess.run(["npm", "install", *NPM_FLAGS], cwd=fetched, check=True, stdout=subprocess.DEVNULL)
        os.rename(fetched, tree)
    return tree


def modernized(tree: Path) -> None:
    """eslint-plugin-jsx-a11y 5.1.1's Jest 20 and Babel 6 moved to Jest 30 and Babel 7, as a
    project upgrading its toolchain does: autofix starts Jest with options of Jest 29 and later,
    which Jest 20 refuses. The Babel configuration says what the old one said."""
    manifest = json.loads((tree / "package.json").read_text(encoding="utf-8"))
    old = manifest["devDependencies"]
    dev = {name: v for name, v in old.items() if not name.startswith("babel") and name != "jest"}
    dev |= {
        "jest": "30.5.2",
        "babel-jest": "30.5.2",
        "@babel/core": "7.26.0",
        "@babel/preset-env": "7.26.0",
        "@babel/plugin-transform-flow-strip-types": "7.25.9",
    }
    (tree / "package.json").write_text(json.dumps(manifest | {"devDependencies": dev}, indent=2) + "\n")
    babel = {
        "presets": [["@babel/preset-env", {"targets": {"node": "current"}}]],
        "plugins": ["@babel/plugin-transform-flow-strip-types"],
    }
    (tree / ".babelrc").write_text(json.dumps(babel, indent=2) + "\n", encoding="utf-8")


def files_of(package: Package, tree: Path) -> dict[str, str]:
    """What the repository holds: the tarball's files, then the workflow's `npm ci` makes node_modules."""
    files = {
        str(path.relative_to(tree)): path.read_text(encoding="utf-8")
        for path in sorted(tree.rglob("*"))
        if path.is_file() and path.relative_to(tree).parts[0] != "node_modules"
    }
    package.bug.plant(files[package.bug.path])  # the bug's line is there, once
    return files | {".gitignore": "node_modules\n", ".github/autofix.yml": package.config}


def plain(tree: Path) -> float:
    with tempfile.TemporaryDirectory(prefix="bench-red-ci-js-tmp-") as tmp:
        started = time.perf_counter()
        run = subprocess.run(JEST, cwd=tree, capture_output=True, text=True, env={**os.environ, "TMPDIR": tmp})
        seconds = time.perf_counter() - started
    if run.returncode != 0:
        sys.exit(f"bench-red-ci-js: the original suite of {tree.name} doesn't pass here:\n{run.stderr[-2000:]}")
    return seconds


def job_log(package: Package, tree: Path) -> str:
    """The failed job's log: Jest's own summary of the broken code's run, with the runner's stamps."""
    if package.name == NO_CASE.name:
        return NO_CASE_LOG
    target = tree / package.bug.path
    original = target.read_text(encoding="utf-8")
    try:
        target.write_text(package.bug.plant(original), encoding="utf-8")
        with tempfile.TemporaryDirectory(prefix="bench-red-ci-js-tmp-") as tmp:
            run = subprocess.run(JEST, cwd=tree, capture_output=True, text=True, env={**os.environ, "TMPDIR": tmp})
    finally:
        target.write_text(original, encoding="utf-8")
    if run.returncode == 0:
        sys.exit(f"bench-red-ci-js: the broken suite of {tree.name} passes")
    lines = [STAMP + line for line in (run.stdout + run.stderr).splitlines()]
    return "\n".join([*lines, f"{STAMP}##[error]Process completed with exit code 1."]) + "\n"


def red_ci(package: Package, tree: Path, files: dict[str, str], log: str, folder: Path, jobs: str) -> tuple[float, str]:
    with FakeGitHub() as github, pytest.MonkeyPatch.context() as patch:
        world = World(folder, patch, github)
        world.input("jobs", jobs)
        world.commit_to_origin(files)
        broken = {package.bug.path: package.bug.plant(files[package.bug.path])}
        pull, run = open_pull(world, github, broken, title=package.title)
        github.add_job(run, "test", log=log)
        (world.workspace / "node_modules").symlink_to(tree / "node_modules")  # the workflow's `npm ci`, before autofix
        world.event("workflow_run", run_event(github, pull, run))
        return step(world, github, [package.fix], f"autofix-pr-{pull.number}.json")


def measured(package: Package, args: argparse.Namespace) -> bool:
    """The package's step against its plain run, interleaved; whether the goal was met."""
    tree = pristine_tree(package)
    files = files_of(package, tree)
    log = job_log(package, tree)
    plain(tree)  # warms the page cache
    times: dict[str, list[float]] = {"plain": [], "red CI": []} | ({"one run each": []} if args.compare else {})
    out = ""
    for number in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="bench-red-ci-js-") as scratch:
            times["plain"].append(plain(tree))
            seconds, out = red_ci(package, tree, files, log, Path(scratch), args.jobs)
            times["red CI"].append(seconds)
        if args.compare:
            with (
                tempfile.TemporaryDirectory(prefix="bench-red-ci-js-") as scratch,
                pytest.MonkeyPatch.context() as patch,
            ):
                patch.setattr(JavaScript, "run_variants", lambda *args, **kwargs: None)
                times["one run each"].append(red_ci(package, tree, files, log, Path(scratch), args.jobs)[0])
        print(f"{package.name} run {number + 1}: " + ", ".join(f"{name} {s[-1]:.2f} s" for name, s in times.items()))
    medians = {name: statistics.median(seconds) for name, seconds in times.items()}
    cores = len(os.sched_getaffinity(0))
    print(f"\n{package.folder} (Jest), {package.about}; cores: {cores}, jobs: {args.jobs or 'default'}")
    if args.log:
        print("".join(f"  | {line}\n" for line in out.splitlines()))
    else:
        print("".join(f"  {line}\n" for line in out.splitlines() if line.startswith("autofix: baseline")), end="")
    return ratio_told(medians, args.runs, GOAL, "Jest") <= GOAL


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", choices=sorted(PACKAGES), help="one package (default: each)")
    parser.add_argument("--jobs", default="", help="runs of the suite at once (default: one more than the cores)")
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--log", action="store_true", help="print the last step's whole log")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a package misses the goal")
    parser.add_argument(
        "--compare",
        action="store_true",
        help="also time the step with the proof's variants judged one Jest run each, as before the mutant schema",
    )
    args = parser.parse_args()
    chosen = [PACKAGES[args.package]] if args.package else list(PACKAGES.values())
    met = [measured(package, args) for package in chosen]
    if args.strict and not all(met):
        sys.exit(1)


if __name__ == "__main__":
    main()
