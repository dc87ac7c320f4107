"""The tests a failed CI run's logs name as failing, as the verdict names them: pytest's short
summary lines (`FAILED tests/test_x.py::test_y - assert ...`, `ERROR ...`); Jest's failures
(`● chunk › splits` under `FAIL test/chunk.test.js`) and Vitest's (`FAIL  test/x.test.ts > chunk >
splits`), named `file::chunk > splits` as autofix's reporters name them; go test's `--- FAIL: TestX
(0.00s)` lines (subtests `TestX/sub` indented) with their package from the `FAIL\tmodule/pkg\t0.01s`
line after them, and `go test -json`'s fail events, named `./pkg::TestX` as go's runner names them
(bot/judge/go/report.py).

Only a guess, taken from text the pull request's code printed: the baseline runs these tests again
(and at the base) while the whole suite runs, instead of after it (gate.Baseline.measure), and
reads their results only for the tests that fail in its own run at the head. A wrong or hostile
list costs at most those runs, never a verdict.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from bot.github.red_ci.evidence import clean_log
from bot.judge import nodeids
from bot.judge.go.report import folder_of
from bot.judge.go.run import module_of

SUMMARY = re.compile(r"^(?:FAILED|ERROR) (?P<file>[\w./-]+\.py)(?P<inner>::\S+)", re.M)
JEST_FILE = re.compile(r"^\s*FAIL\s+(?P<file>[\w./@-]+\.[cm]?[jt]sx?)\s*$")
JEST_TEST = re.compile(r"^\s*● (?P<name>.+?)\s*$")
VITEST = re.compile(r"^\s*(?:FAIL|×|✗)\s+(?P<file>[\w./@-]+\.[cm]?[jt]sx?) > (?P<name>.+?)(?: \d+ms)?\s*$")
GO_TEST = re.compile(r"^\s*--- FAIL: (?P<name>(?:Test|Fuzz|Example)\S*) \(\d+(?:\.\d+)?s\)\s*$")
GO_PACKAGE = re.compile(r"^(?P<verdict>FAIL|ok)\s+(?P<package>[^\s\[]+)(?:\s|$)")
MOST = 50  # tests guessed at most: beyond that the whole run's own failures are awaited


def failing_tests(logs: list[tuple[str, str]], root: Path) -> set[str]:
    """Test ids (`tests.test_x::test_y`) the logs' summaries name, whose file the work folder
    holds; none when they name more than MOST."""
    found = set()
    for _, log in logs:
        for match in SUMMARY.finditer(clean_log(log)):
            inner = match["inner"]
            if inner.count("[") != inner.count("]"):  # a parameter with a space in it, cut there
                continue
            test = match["file"].removesuffix(".py").replace("/", ".") + inner
            if nodeids.node_id(str(root), test) is not None:
                found.add(test)
        found |= {test for test in javascript(clean_log(log)) if held(root, test.split("::", 1)[0])}
        found |= {test for test in go(clean_log(log), module_of(root)) if package_held(root, test.split("::", 1)[0])}
    return found if len(found) <= MOST else set()


def held(root: Path, relative: str) -> bool:
    """Whether the work folder holds the file at `relative`, a path inside it."""
    parts = Path(relative).parts
    return not Path(relative).is_absolute() and ".." not in parts and (root / relative).is_file()


def javascript(log: str) -> set[str]:
    """The ids of the failing tests Jest's and Vitest's default reporters name in `log`."""
    found, file = set(), None
    for line in log.splitlines():
        if match := VITEST.match(line):
            found.add(f"{match['file']}::{match['name']}")
        elif match := JEST_FILE.match(line):
            file = match["file"]
        elif (match := JEST_TEST.match(line)) and file is not None:
            found.add(f"{file}::{match['name'].replace(' › ', ' > ')}")
    return found


def package_held(root: Path, folder: str) -> bool:
    """Whether `folder` (`./calc`, `.`) is a folder of the work folder holding Go tests."""
    parts = Path(folder).parts
    if not folder.startswith(".") or Path(folder).is_absolute() or ".." in parts:
        return False
    where = root / folder
    return where.is_dir() and any(path.is_file() for path in where.glob("*_test.go"))


def go(log: str, module: str) -> set[str]:
    """The ids of the failing tests go test names in `log` (`./calc::TestAdd`, `./calc::TestAdd/zero`):
    its `--- FAIL:` lines, each taken into the package of the `FAIL\tpath` line that ends its
    package's output; and the fail events of `go test -json` lines."""
    found: set[str] = set()
    pending: list[str] = []
    for line in log.splitlines():
        if line.startswith("{"):
            found |= go_event(line, module)
        elif match := GO_TEST.match(line):
            pending.append(match["name"])
        elif match := GO_PACKAGE.match(line):
            if match["verdict"] == "FAIL":
                folder = folder_of(match["package"], module)
                found |= {f"{folder}::{name}" for name in pending}
            pending = []
    return found


def go_event(line: str, module: str) -> set[str]:
    """The test a `go test -json` line says failed, if it says one did."""
    try:
        event = json.loads(line)
    except (ValueError, RecursionError):
        return set()
    if not isinstance(event, dict) or event.get("Action") != "fail":
        return set()
    package, test = event.get("Package"), event.get("Test")
    if not isinstance(package, str) or not isinstance(test, str) or not package or not test:
        return set()
    return {f"{folder_of(package, module)}::{test}"}
