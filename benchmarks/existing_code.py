"""What autofix costs on a real suite: more-itertools's own tests (its sdist from PyPI) with one
off-by-one bug in `windowed`, repaired by two recorded replies: a wrong fix, then the right one.

Measured in one run, so every ratio is against baselines taken on the same machine and load:
- plain: `python -m pytest -q -p no:cacheprovider tests` on the original code, median of RUNS;
- failing-only: the same pytest on just the tests the bug fails, on the buggy code, median of RUNS;
- `autofix run` with `--model replay:`: each attempt's `seconds` from its report, and the
  command's wall time.
Goals: failing attempt / failing-only <= 1.3, passing attempt / plain <= 2.5.

Run with `make bench-existing` (`--mode edit` answers with SEARCH/REPLACE blocks). Not a test:
the figures depend on the machine, so a missed goal still exits 0; only a broken benchmark
(the download, the bug, or autofix not passing on attempt 2) exits non-zero.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import yaml
from sdists import unpacked

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / "out" / "bench-existing"
VERSION = "10.7.0"
SDIST = f"more_itertools-{VERSION}"
TARGET = "more_itertools/more.py"
RUNS = 3
# Not resolved: the venv's `python` is a symlink, and only its own path finds the venv's packages.
VENV_BIN = Path(sys.executable).parent
PYTEST = ["python", "-m", "pytest", "-q", "-p", "no:cacheprovider"]
GOALS = {"failing": 1.3, "passing": 2.5}

# The padding that fills the last window: one fill value too many when step == n, so windowed()
# ends with a window of fill values only. The wrong fix moves the boundary instead of the amount,
# so step > n still gets the extra fill value.
ORIGINAL = "    padding = (fillvalue,) * (n - 1 if step >= n else step - 1)\n"
BUG = "    padding = (fillvalue,) * (n if step >= n else step - 1)\n"
WRONG_FIX = "    padding = (fillvalue,) * (n if step > n else step - 1)\n"
TASK = (
    "windowed() yields one window too many: list(windowed([1, 2, 3], 3, step=3)) ends with "
    "(None, None, None). Fix it in more_itertools/more.py; the tests may not change."
)


def venv_environ() -> dict[str, str]:
    """Our environment with the venv's bin first: the tests run with PATH (autofix passes it on),
    so `python` is the venv's, which has pytest."""
    return {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}


def pristine_tree() -> Path:
    return unpacked(f"more-itertools=={VERSION}", SDIST, CACHE)


def buggy_copy(pristine: Path, work: Path) -> str:
    """A fresh copy of the tree with the bug in it (autofix writes its fix there); the original text."""
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(pristine, work, ignore=shutil.ignore_patterns("__pycache__"))
    original = (work / TARGET).read_text(encoding="utf-8")
    if original.count(ORIGINAL) != 1:
        sys.exit(f"bench-existing: {TARGET} of {SDIST} doesn't hold the line the bug changes: {ORIGINAL.strip()}")
    (work / TARGET).write_text(original.replace(ORIGINAL, BUG), encoding="utf-8")
    return original


def pytest(args: list[str], folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(PYTEST + args, cwd=folder, env=venv_environ(), capture_output=True, text=True)


def check_imports_from(folder: Path) -> None:
    """The suite must test the copy in `folder`, not an installed more-itertools (autofix refuses that)."""
    found = subprocess.run(
        ["python", "-c", "import more_itertools; print(more_itertools.__file__)"],
        cwd=folder,
        env=venv_environ(),
        capture_output=True,
        text=True,
    ).stdout.strip()
    if not Path(found).resolve().is_relative_to(folder.resolve()):
        sys.exit(f"bench-existing: from {folder}, Python imports more_itertools from {found or 'nowhere'}")


def failing_tests(work: Path) -> list[str]:
    """The node ids the bug fails, from pytest's short summary (a failed subtest names its test)."""
    run = pytest(["-rf", "tests"], work)
    ids = re.findall(r"^(?:SUB)?FAILED(?:\([^)]*\))? (\S+)", run.stdout, re.M)
    if run.returncode != 1 or not ids:
        sys.exit(f"bench-existing: the bug should fail some tests; pytest exited {run.returncode}:\n{run.stdout}")
    return list(dict.fromkeys(ids))


def timed_medians(plain: Path, work: Path, failing: list[str]) -> dict[str, float]:
    """Median seconds of the two baselines, interleaved so load from elsewhere falls on both alike."""
    times: dict[str, list[float]] = {"plain": [], "failing-only": []}
    for _ in range(RUNS):
        for name, args, folder, expected in (("plain", ["tests"], plain, 0), ("failing-only", failing, work, 1)):
            started = time.perf_counter()
            run = pytest(args, folder)
            times[name].append(time.perf_counter() - started)
            if run.returncode != expected:
                sys.exit(f"bench-existing: {name} pytest exited {run.returncode}, not {expected}:\n{run.stdout}")
    return {name: statistics.median(seconds) for name, seconds in times.items()}


def replies(mode: str, original: str) -> list[str]:
    """The wrong fix, then the right one: whole files, or edits that build on the previous reply."""
    if mode == "whole":
        return [f"```python\n{text}```\n" for text in (original.replace(ORIGINAL, WRONG_FIX), original)]
    return [
        f"{TARGET}\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n"
        for search, replace in ((BUG, WRONG_FIX), (WRONG_FIX, ORIGINAL))
    ]


def run_autofix(mode: str, work: Path, original: str, sandbox: str = "auto") -> tuple[dict, float]:
    """One `autofix run` of the task; its report and wall time. Anything but a pass on attempt 2
    after a failed attempt 1 is a broken benchmark."""
    spec, replay, report = CACHE / f"task-{mode}.yml", CACHE / f"replies-{mode}.yml", CACHE / f"report-{mode}.json"
    # Explicit `mode`: `auto` would answer a file this long (5,000 lines) with edits.
    task = {
        "task": TASK,
        "target": TARGET,
        "tests": {"command": " ".join(PYTEST + ["tests"])},
        "max_attempts": 2,
        "timeout": 600,  # the suite takes ~20 s bare; leave room for a loaded 2-core machine
        "mode": mode,
        "strength": "off",  # this measures the repair; `make bench-strength` measures the mutants
        "strategy": "repair",  # the second reply edits the first's code (resample starts afresh)
    }
    spec.write_text(yaml.safe_dump(task, sort_keys=False), encoding="utf-8")
    replay.write_text(yaml.safe_dump({"replies": replies(mode, original)}), encoding="utf-8")
    report.unlink(missing_ok=True)
    command = [str(VENV_BIN / "autofix"), "run", str(spec), "--model", f"replay:{replay}"]
    command += ["--report", str(report), "--sandbox", sandbox, "--workdir", str(work)]
    started = time.perf_counter()
    run = subprocess.run(command, env=venv_environ(), capture_output=True, text=True)
    wall = time.perf_counter() - started
    data = json.loads(report.read_text(encoding="utf-8")) if report.exists() else {}
    outcomes = [attempt["passed"] for attempt in data.get("attempts", [])]
    if run.returncode != 0 or outcomes != [False, True]:
        sys.exit(
            f"bench-existing: autofix should fail attempt 1 and pass attempt 2; it exited {run.returncode} "
            f"with attempts {outcomes} ({data.get('stop_reason', 'no report')}):\n{run.stdout}{run.stderr}"
        )
    if (work / TARGET).read_text(encoding="utf-8") != original:
        sys.exit(f"bench-existing: autofix passed, but {TARGET} is not the original file")
    return data, wall


def verdict(ratio: float, goal: float) -> str:
    return f"<= {goal}: {'met' if ratio <= goal else 'missed'}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("whole", "edit"), default="whole", help="how the replies change the file")
    parser.add_argument("--sandbox", choices=("auto", "bwrap", "landlock", "process"), default="auto")
    args = parser.parse_args()

    pristine = pristine_tree()
    work = CACHE / "work"
    original = buggy_copy(pristine, work)
    check_imports_from(work)
    failing = failing_tests(work)  # also warms the page cache and the tests' bytecode
    if pytest(["tests"], pristine).returncode != 0:
        sys.exit(f"bench-existing: the original suite of {SDIST} doesn't pass here")
    baseline = timed_medians(pristine, work, failing)
    report, wall = run_autofix(args.mode, work, original, args.sandbox)
    failed_attempt, passed_attempt = (attempt["seconds"] for attempt in report["attempts"])
    failing_ratio = failed_attempt / baseline["failing-only"]
    passing_ratio = passed_attempt / baseline["plain"]

    print(f"\nmore-itertools {VERSION}, off-by-one in windowed(): {len(failing)} failing tests; --mode {args.mode}")
    print(f"sandbox: {report['sandbox']}")
    print("\n| run | seconds | ratio | goal |")
    print("|---|---|---|---|")
    print(f"| plain: the whole suite (median of {RUNS}) | {baseline['plain']:.2f} | 1.00x | |")
    print(f"| failing-only: {len(failing)} tests (median of {RUNS}) | {baseline['failing-only']:.2f} | 1.00x | |")
    print(
        f"| autofix failing attempt | {failed_attempt:.2f} | {failing_ratio:.2f}x failing-only "
        f"| {verdict(failing_ratio, GOALS['failing'])} |"
    )
    print(
        f"| autofix passing attempt | {passed_attempt:.2f} | {passing_ratio:.2f}x plain "
        f"| {verdict(passing_ratio, GOALS['passing'])} |"
    )
    print(f"| autofix run, wall time | {wall:.2f} | {wall / baseline['plain']:.2f}x plain | |")
    print(f"\nfailing tests: {' '.join(failing)}")
    print(f"python {sys.version.split()[0]}; {os.cpu_count()} cores; replies, spec and report in {CACHE}")


if __name__ == "__main__":
    main()
