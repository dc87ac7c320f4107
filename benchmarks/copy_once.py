"""Time to judge one candidate in a work folder of 200, 20,000 and 100,000 small files, on each
sandbox tier: the first check, which copies the folder, and the median of the checks after it,
which put back only what the one before changed, as seconds and as a ratio to the 200-file
folder's median. Two judgements: the test command (pytest over one test file, as a repository
is judged) and the quick start's inline checks (the cheapest judgement, where the folder's size
weighs most).

The checks of one tier are interleaved round by round across the folder sizes, so that load from
elsewhere on the machine falls on every size alike.

Run with `make bench-copy`. Not a test: the figures depend on the machine.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bot import spec as specs
from bot.judge.validate import Validator, python_paths
from bot.sandbox.tiers import open_sandbox

ROOT = Path(__file__).resolve().parent.parent
SIZES = (200, 20_000, 100_000)
TIERS = ("bwrap", "landlock", "process")
RUNS = 7
PER_FOLDER = 100  # small files per subfolder
CODE = "def unique_items(items):\n    return list(dict.fromkeys(items))\n"
TEST_FILE = """\
from unique import unique_items


def test_order():
    assert unique_items([3, 1, 3, 2, 1]) == [3, 1, 2]
"""
JUDGEMENTS = {
    "test command": {"command": f"{sys.executable} -m pytest -q -p no:cacheprovider tests"},
    "inline checks": {"code": 'assert unique_items([3, 1, 3, 2, 1]) == [3, 1, 2], "order"\n'},
}


def make_folder(root: Path, files: int) -> Path:
    """`files` small files: the test file, the rest in subfolders of PER_FOLDER each."""
    root.mkdir()
    (root / "tests").mkdir()
    (root / "tests" / "test_unique.py").write_text(TEST_FILE)
    for number in range(files - 1):
        folder = root / f"pkg{number // PER_FOLDER}"
        if number % PER_FOLDER == 0:
            folder.mkdir()
        (folder / f"module{number % PER_FOLDER}.py").write_text(f"VALUE = {number}\n")
    return root


def validator(folder: Path, tests: dict, tier: str) -> Validator:
    spec = specs.Spec.model_validate({"task": "t", "target": "unique.py", "tests": tests, "timeout": 60})
    spec.workdir = folder
    return Validator(spec, open_sandbox(tier, readable=python_paths(folder)))


def timed(check: Validator) -> float:
    started = time.perf_counter()
    verdict = check.check(CODE)
    assert verdict.passed, verdict.feedback
    return time.perf_counter() - started


def bench(tier: str, tests: dict, folders: dict[int, Path]) -> None:
    checkers = {size: validator(folder, tests, tier) for size, folder in folders.items()}
    first = {size: timed(checker) for size, checker in checkers.items()}
    times: dict[int, list[float]] = {size: [] for size in folders}
    for _ in range(RUNS):
        for size, checker in checkers.items():
            times[size].append(timed(checker))
    medians = {size: statistics.median(spent) for size, spent in times.items()}
    for size in folders:
        ratio = medians[size] / medians[SIZES[0]]
        print(
            f"  {tier:<9} {size:>7,} files   first {first[size]:7.2f} s   "
            f"then {medians[size] * 1000:7.1f} ms   {ratio:5.2f}x"
        )


def main() -> None:
    scratch = Path(tempfile.mkdtemp(prefix="autofix-bench-"))
    try:
        folders = {size: make_folder(scratch / f"files-{size}", size) for size in SIZES}
        for name, tests in JUDGEMENTS.items():
            print(f"{name}: first check (copies the folder), then the median of {RUNS}, and its ratio to 200 files")
            for tier in TIERS:
                try:
                    bench(tier, tests, folders)
                except ValueError as exc:  # the tier can't run here
                    print(f"  {tier:<9} skipped: {exc}")
    finally:
        shutil.rmtree(scratch)


if __name__ == "__main__":
    main()
