"""The tests a JavaScript runner expects to run, asked of the runner without running them.

Jest (30.5, `--collectTests`) and Vitest (`vitest list`) collect the test files in their
workers, which runs each file's top-level code and its describe blocks but no test, and write
what they found as JSON to a file autofix names. Each test's id is report.py's:
`file::A > B > test`, `file` relative to the run's folder. node:test (Node 20) has no way to list
its tests without running them: there, `command` says None, and the expected tests can only be
those of an earlier run's record.

What each listing holds differs:
- Jest: every test, skipped and todo ones too, and every file, one that failed to load among them
  (it holds no test then; Jest exits 1).
- Vitest 4.1: the tests that would run, not the skipped or todo ones; a file that fails to
  collect makes Vitest write no listing at all (exit 1), so `parse` has nothing (None).

The listing is written by the runner's main process, from what its workers sent, so it is no more
than the suite's own claim: taken on the tree as the repository has it, it is what a later run's
record must hold (`missing`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.judge.integrity import Case

LISTING_BYTES = 64 * 2**20  # of a listing, at most; a larger one is no listing


@dataclass(frozen=True)
class Listing:
    files: frozenset[str]  # every test file, relative to the run's folder (posix)
    tests: frozenset[str]  # `file::A > B > test` each


def command(runner: str, executable: Sequence[str], output: Path, selected: Sequence[str] = ()) -> list[str] | None:
    """The argv that lists `runner`'s tests into `output` (a JSON file), `executable` the words that
    start the runner (`node_modules/.bin/jest`), `selected` the paths or filters its command names;
    None for a runner that can't list (node:test)."""
    if runner == "jest":
        # Paths before the options: an array option (--reporters) would take them as its own.
        return [*executable, *selected, "--collectTests", "--json", f"--outputFile={output}"]
    if runner == "vitest":
        return [*executable, "list", *selected, f"--json={output}"]
    return None


def parse(runner: str, output: Path, cwd: Path) -> Listing | None:
    """What `command` wrote to `output`, ids relative to `cwd`; None when it wrote nothing that
    reads as that runner's listing."""
    try:
        with open(output, "rb") as handle:
            data = handle.read(LISTING_BYTES + 1)
    except OSError:
        return None
    if len(data) > LISTING_BYTES:
        return None
    try:
        found = json.loads(data)
    except (ValueError, RecursionError):
        return None
    try:
        if runner == "jest":
            return jest_listing(found, cwd)
        if runner == "vitest":
            return vitest_listing(found, cwd)
    except (TypeError, KeyError, AttributeError):
        return None
    return None


def relative(path: str, cwd: Path) -> str:
    return Path(os.path.relpath(path, cwd)).as_posix()


def jest_listing(found: dict, cwd: Path) -> Listing:
    """Jest's JSON results of --collectTests: each file's assertionResults, one per test."""
    files, tests = set(), set()
    for result in found["testResults"]:
        file = relative(str(result["name"]), cwd)
        files.add(file)
        for test in result["assertionResults"]:
            tests.add(f"{file}::{' > '.join([*map(str, test['ancestorTitles']), str(test['title'])])}")
    return Listing(frozenset(files), frozenset(tests))


def vitest_listing(found: list, cwd: Path) -> Listing:
    """`vitest list --json`: one entry per test, `name` already joined with " > "."""
    if not isinstance(found, list):
        raise TypeError("not a list")
    files, tests = set(), set()
    for entry in found:
        file = relative(str(entry["file"]), cwd)
        files.add(file)
        if "name" in entry:
            tests.add(f"{file}::{entry['name']}")
    return Listing(frozenset(files), frozenset(tests))


def missing(listing: Listing, cases: Iterable[Case]) -> list[str]:
    """What the listing expects that the record's cases lack: each listed test without a case of
    its id, each listed file without any case (an error case counts)."""
    ids = {case.test_id for case in cases}
    files = {test_id.split("::", 1)[0] for test_id in ids}
    gone = sorted(test for test in listing.tests if test not in ids)
    return gone + sorted(file for file in listing.files if file not in files)
