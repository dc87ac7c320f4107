"""What a whole `autofix action` red-CI step costs on a real Go suite, against one plain
`go test ./...`, on two modules from the Go module proxy (`go mod download`; their tests ship in
the module):

- github.com/shopspring/decimal v1.4.0 (104 tests in 1 package, about 6 s: three tests take most
  of it), with `Max` keeping the smallest item (1 test fails) — a suite whose run is mostly its
  tests, as a project's CI suite is;
- github.com/dustin/go-humanize v1.1.0 (55 tests in 2 packages, a quarter of a second: go
  starting is most of it), with `Ordinal` giving "12nd" (1 test fails) — a suite so small that
  what every step costs whatever the suite (the sandbox, building the changed package, the model,
  git, GitHub) is most of the step.

For each: a pull request breaks the function; its failed `workflow_run` goes to the step, and the
model's first edit fixes it (goal: <= 3 plain runs); plain: `go test -count=1 ./...` on the
original code, no sandbox, the machine's build cache warm (one run before timing; -count=1 so that
the tests run rather than come from go's cache of test results).

As red_ci.py does it (its `step`): the fake GitHub behind real PyGithub, a bare git origin, the
scripted OpenAI server, the real sandbox, the two interleaved over RUNS and their medians compared.
`--trace` prints each sandboxed `go` run of the last step and its wall time; `--compare` times the
step a third way, each of the proof's variants judged in a go run of its own (as before the mutant
schema, bot/lang/go_schema.py), interleaved with the others; `--module` picks one. The modules are
kept under out/bench-red-ci-go.

Run with `make bench-red-ci` (after red_ci_js.py), or `make bench-red-ci-go` alone.
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
for folder in ("support", "flows"):
    sys.path.insert(0, str(ROOT / "tests" / folder))

import test_ci_repair  # noqa: E402
from action_world import World  # noqa: E402
from fake_github import FakeGitHub  # noqa: E402
from red_ci import ratio_told, step  # noqa: E402
from test_ci_repair import open_pull, run_event  # noqa: E402

from bot.judge.go import run as go_run  # noqa: E402
from bot.judge.go.runner import Go  # noqa: E402

CACHE = ROOT / "out" / "bench-red-ci-go"
RUNS = 3
GOAL = 3.0
CONFIG = "tests:\n  command: go test ./...\nmax_attempts: 2\n"
STAMP = "2024-05-01T10:00:00.0000000Z "


@dataclass(frozen=True)
class Module:
    name: str  # what --module and the report call it
    path: str
    version: str
    target: str  # the file the bug is in
    right: str  # the line as the module has it, and as the fix puts it back
    wrong: str  # the pull request's
    bug: str  # the report's words for it
    title: str  # the pull request's

    @property
    def fix(self) -> str:
        return (
            f"The comparison was turned around.\n\n{self.target}\n```go\n<<<<<<< SEARCH\n{self.wrong}=======\n"
            f"{self.right}>>>>>>> REPLACE\n```\n"
        )


MODULES = {
    module.name: module
    for module in (
        Module(
            "decimal",
            "github.com/shopspring/decimal",
            "v1.4.0",
            "decimal.go",
            "func Max(first Decimal, rest ...Decimal) Decimal {\n\tans := first\n\tfor _, item := range rest {\n"
            "\t\tif item.Cmp(ans) > 0 {\n",
            "func Max(first Decimal, rest ...Decimal) Decimal {\n\tans := first\n\tfor _, item := range rest {\n"
            "\t\tif item.Cmp(ans) < 0 {\n",
            "Max keeps the smallest item",
            "Max: one comparison",
        ),
        Module(
            "go-humanize",
            "github.com/dustin/go-humanize",
            "v1.1.0",
            "ordinals.go",
            "\tcase 2:\n\t\tif x%100 != 12 {\n",
            "\tcase 2:\n\t\tif x%100 != 11 {\n",
            'Ordinal(12) gives "12nd"',
            "Ordinal: fewer branches",
        ),
    )
}


def go() -> str:
    found = shutil.which("go") or ("/usr/local/go/bin/go" if os.path.exists("/usr/local/go/bin/go") else None)
    if found is None:
        sys.exit("bench-red-ci-go: needs go on PATH")
    return found


def pristine_tree(module: Module) -> Path:
    """The module's files from the Go module proxy, copied writable: once."""
    tree = CACHE / f"{module.name}-{module.version}"
    if (tree / "go.mod").exists():
        return tree
    shutil.rmtree(tree, ignore_errors=True)
    CACHE.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [go(), "mod", "download", "-json", f"{module.path}@{module.version}"], capture_output=True, text=True, cwd=CACHE
    )
    if done.returncode != 0:
        sys.exit(f"bench-red-ci-go: go mod download failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    source = Path(json.loads(done.stdout)["Dir"])
    with tempfile.TemporaryDirectory(dir=CACHE) as staging:
        copy = Path(staging) / "tree"
        shutil.copytree(source, copy)
        for path in [copy, *copy.rglob("*")]:
            path.chmod(0o755 if path.is_dir() else 0o644)  # the module cache's copy is read-only
        os.rename(copy, tree)
    return tree


def files_of(module: Module, tree: Path) -> dict[str, str]:
    files = {str(path.relative_to(tree)): path.read_text(encoding="utf-8") for path in sorted(tree.rglob("*.go"))}
    files |= {"go.mod": (tree / "go.mod").read_text(encoding="utf-8")}
    if files[module.target].count(module.right) != 1:
        sys.exit(f"bench-red-ci-go: {module.target} no longer has the line the bug changes")
    return files | {".github/autofix.yml": CONFIG}


def broken(module: Module, files: dict[str, str]) -> dict[str, str]:
    return {module.target: files[module.target].replace(module.right, module.wrong)}


def job_log(module: Module, files: dict[str, str]) -> str:
    """The failed job's log: go test's own words on the broken code, with the runner's stamps."""
    with tempfile.TemporaryDirectory(prefix="bench-red-ci-go-log-") as tmp:
        for relpath, text in (files | broken(module, files)).items():
            (Path(tmp) / relpath).parent.mkdir(parents=True, exist_ok=True)
            (Path(tmp) / relpath).write_text(text, encoding="utf-8")
        done = subprocess.run([go(), "test", "./..."], cwd=tmp, capture_output=True, text=True)
    if done.returncode == 0:
        sys.exit("bench-red-ci-go: the broken module's tests pass")
    lines = [STAMP + line for line in done.stdout.splitlines()]
    return "\n".join([*lines, f"{STAMP}##[error]Process completed with exit code 1."]) + "\n"


def plain(tree: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run([go(), "test", "-count=1", "./..."], cwd=tree, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"bench-red-ci-go: the original suite doesn't pass here:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return seconds


def red_ci(
    module: Module, files: dict[str, str], log: str, folder: Path, jobs: str, trace: list[str]
) -> tuple[float, str]:
    with FakeGitHub() as github, pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", f"{os.path.dirname(go())}:{os.environ.get('PATH', '')}")
        patch.setattr(test_ci_repair, "JOB_LOG", log)  # the failed job's log open_pull gives its run
        real = go_run.started
        zero = [0.0]  # the step's start

        def timed(sandbox, test, work, limits, words, *rest):
            begun = time.perf_counter()
            try:
                return real(sandbox, test, work, limits, words, *rest)
            finally:
                ended = time.perf_counter()
                shown = " ".join(word if len(word) < 50 else word[:47] + "..." for word in words[2:])
                trace.append(f"{begun - zero[0]:6.2f} to {ended - zero[0]:6.2f} s ({ended - begun:5.2f} s)  go {shown}")

        patch.setattr(go_run, "started", timed)
        world = World(folder, patch, github)
        world.input("jobs", jobs)
        world.commit_to_origin(files)
        pull, run = open_pull(world, github, broken(module, files), title=module.title)
        world.event("workflow_run", run_event(github, pull, run))
        zero[0] = time.perf_counter()
        return step(world, github, [module.fix], f"autofix-pr-{pull.number}.json")


def measured(module: Module, args: argparse.Namespace) -> bool:
    """The module's step against its plain run, interleaved; whether the goal was met."""
    tree = pristine_tree(module)
    files = files_of(module, tree)
    log = job_log(module, files)
    plain(tree)  # warms the build cache
    times: dict[str, list[float]] = {"plain": [], "red CI": []} | ({"one run each": []} if args.compare else {})
    out = ""
    trace: list[str] = []
    for number in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="bench-red-ci-go-") as scratch:
            times["plain"].append(plain(tree))
            trace.clear()
            seconds, out = red_ci(module, files, log, Path(scratch), args.jobs, trace)
            times["red CI"].append(seconds)
        if args.compare:
            with (
                tempfile.TemporaryDirectory(prefix="bench-red-ci-go-") as scratch,
                pytest.MonkeyPatch.context() as patch,
            ):
                patch.setattr(Go, "run_variants", lambda *args, **kwargs: None)
                times["one run each"].append(red_ci(module, files, log, Path(scratch), args.jobs, [])[0])
        print(f"{module.name} run {number + 1}: " + ", ".join(f"{name} {s[-1]:.2f} s" for name, s in times.items()))
    medians = {name: statistics.median(seconds) for name, seconds in times.items()}
    cores = len(os.sched_getaffinity(0))
    print(f"\n{module.name} {module.version} (go test), {module.bug}; cores: {cores}, jobs: {args.jobs or 'default'}")
    if args.log:
        print("".join(f"  | {line}\n" for line in out.splitlines()))
    else:
        print("".join(f"  {line}\n" for line in out.splitlines() if line.startswith("autofix: baseline")), end="")
    if args.trace:
        print(f"  the last step's {len(trace)} go runs (from the step's start; some at once):")
        print("".join(f"    {line}\n" for line in sorted(trace)), end="")
    return ratio_told(medians, args.runs, GOAL, "go") <= GOAL


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--module", choices=sorted(MODULES), help="one module (default: each)")
    parser.add_argument("--jobs", default="", help="runs of the suite at once (default: one more than the cores)")
    parser.add_argument("--runs", type=int, default=RUNS)
    parser.add_argument("--log", action="store_true", help="print the last step's whole log")
    parser.add_argument("--trace", action="store_true", help="print the last step's go runs and their times")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a module misses the goal")
    parser.add_argument(
        "--compare",
        action="store_true",
        help="also time the step with the proof's variants judged one go run each, as before the mutant schema",
    )
    args = parser.parse_args()
    chosen = [MODULES[args.module]] if args.module else list(MODULES.values())
    met = [measured(module, args) for module in chosen]
    if args.strict and not all(met):
        sys.exit(1)


if __name__ == "__main__":
    main()
