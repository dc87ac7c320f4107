"""What a `go test -json` run tells autofix: the event stream the go command writes.

The go command runs each package's test binary with its output framed for test2json
(`-test.v=test2json`) and turns that output into JSON events on its own stdout, which autofix
reads from a memfd (run.py), never from the test binary's output. A test's outcome is its one
terminal event (pass, fail, skip). Since Go 1.24 the testing package marks each framing line with
a byte (0x16) and test2json believes only marked lines, so a test that prints `--- PASS: TestX`
changes nothing. A test binary can print the marked line too: then the test has more than one
terminal event (the forged one and its own), and that is a failure whatever they say. A test
that started and has no terminal event did not finish; a package whose build failed, or whose
binary failed outside any test (a panic in init, an exit from TestMain), is an error of the
package (`pkg::`). What the stream can't show is a test it never mentions: the expected set
(run.py's listing at the baseline) names those.

Test ids: `DIR::TestName[/subtest]`, DIR the package's folder as go's command line names it
(`./calc`, `.` for the module's root), as the gate and integrity.OriginalSuite compare them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field

from bot.judge.integrity import Case

TERMINAL = {"pass": "passed", "fail": "failed", "skip": "skipped"}
DETAIL_CAP = 20_000  # characters of a test's output kept
NOISE = ("=== RUN", "=== PAUSE", "=== CONT", "=== NAME", "--- FAIL", "--- PASS", "--- SKIP")


@dataclass
class Package:
    events: list[str] = field(default_factory=list)  # terminal actions of the package itself
    output: list[str] = field(default_factory=list)
    build: list[str] = field(default_factory=list)
    failed_build: bool = False


@dataclass
class Test:
    started: bool = False
    ends: list[str] = field(default_factory=list)
    output: list[str] = field(default_factory=list)


def folder_of(import_path: str, module: str) -> str:
    """A package's folder as go's command line names it (`./calc`, `.` for the module's root),
    from its import path; a package outside the module by its import path."""
    if module and import_path == module:
        return "."
    if module and import_path.startswith(module + "/"):
        return "./" + import_path[len(module) + 1 :]
    return import_path


def events(stream: bytes) -> list[dict]:
    """The JSON objects of the stream, one a line; a line that isn't one is left out."""
    found = []
    for line in stream.split(b"\n"):
        if not line.startswith(b"{"):
            continue
        try:
            event = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(event, dict):
            found.append(event)
    return found


def cases(stream: Iterable[dict], module: str) -> list[Case] | None:
    """Every test's case, and an error case per package that failed outside its tests; None when
    the stream names no package at all (go stopped before testing anything)."""
    packages: dict[str, Package] = {}
    tests: dict[tuple[str, str], Test] = {}
    build: dict[str, list[str]] = {}
    for event in stream:
        action = event.get("Action")
        if not isinstance(action, str):
            continue
        if action in ("build-output", "build-fail"):
            path = str(event.get("ImportPath", "")).split(" ", 1)[0]
            build.setdefault(path, []).append(str(event.get("Output", "")))
            continue
        name, test = event.get("Package"), event.get("Test")
        if not isinstance(name, str) or not name:
            continue
        package = packages.setdefault(name, Package())
        if isinstance(event.get("FailedBuild"), str):
            package.failed_build = True
        if not isinstance(test, str) or not test:
            if action == "output":
                package.output.append(str(event.get("Output", "")))
            elif action in TERMINAL:
                package.events.append(action)
            continue
        one = tests.setdefault((name, test), Test())
        if action == "run":
            one.started = True
        elif action == "output":
            one.output.append(str(event.get("Output", "")))
        elif action in TERMINAL:
            one.ends.append(action)
    if not packages and not build:
        return None
    result = []
    failing_packages = set()
    for (name, test), one in tests.items():
        test_id = f"{folder_of(name, module)}::{test}"
        details = "".join(one.output)[-DETAIL_CAP:]
        if len(one.ends) > 1:
            result.append(
                Case(
                    test_id,
                    "failed",
                    f"reported {len(one.ends)} times ({', '.join(one.ends)}): a line of "
                    "the test's output imitates test2json's framing",
                    details,
                )
            )
        elif not one.ends:
            result.append(Case(test_id, "failed", "did not finish: the test binary ended while it ran", details))
        else:
            outcome = TERMINAL[one.ends[0]]
            result.append(Case(test_id, outcome, message_of(one.output) if outcome == "failed" else "", details))
        if result[-1].outcome == "failed":
            failing_packages.add(name)
    for name, package in packages.items():
        unit = f"{folder_of(name, module)}::"
        told = "".join(package.output)[-DETAIL_CAP:]
        if package.failed_build or (not package.events and name in build):
            text = "".join(build.get(name, [])) + "".join(package.output)
            result.append(Case(unit, "error", "the package's tests don't build", text[-DETAIL_CAP:]))
        elif "fail" in package.events and name not in failing_packages:
            result.append(Case(unit, "error", "the test binary failed outside any test", told))
        elif not package.events:
            result.append(Case(unit, "error", "the package's test run didn't end", told))
    for path, lines in build.items():  # a build that failed before its package's test started
        if path not in packages:
            result.append(
                Case(
                    f"{folder_of(path, module)}::",
                    "error",
                    "the package's tests don't build",
                    "".join(lines)[-DETAIL_CAP:],
                )
            )
    return result


def message_of(output: list[str]) -> str:
    """A failure's first line of its own: the test's first output line that isn't framing."""
    for line in "".join(output).splitlines():
        text = line.strip()
        if text and not text.startswith(NOISE):
            return text[:500]
    return "failed"


def listed(stream: Iterable[dict], module: str) -> dict[str, set[str]]:
    """What `go test -list` printed per package folder: the tests and fuzz targets (a fuzz
    target's seed corpus runs as a test); a package whose listing failed (its tests don't build)
    is left out."""
    names: dict[str, set[str]] = {}
    failed = set()
    for event in stream:
        package = event.get("Package")
        if not isinstance(package, str) or not package:
            continue
        found = names.setdefault(folder_of(package, module), set())
        if event.get("Action") == "fail":
            failed.add(folder_of(package, module))
        line = str(event.get("Output", "")).strip() if event.get("Action") == "output" else ""
        if line.startswith(("Test", "Fuzz")) and line.isidentifier():
            found.add(line)
    return {folder: tests for folder, tests in names.items() if folder not in failed}


def tested(stream: Iterable[dict], module: str) -> set[str]:
    """The folders of the packages the stream names (a package with no test files too)."""
    return {
        folder_of(event["Package"], module)
        for event in stream
        if isinstance(event.get("Package"), str) and event["Package"]
    }
