"""The tests a failed CI run's logs name as failing, as the verdict names them: pytest's short
summary lines (`FAILED tests/test_x.py::test_y - assert ...`, `ERROR ...`).

Only a guess, taken from text the pull request's code printed: the baseline runs these tests again
(and at the base) while the whole suite runs, instead of after it (gate.Baseline.measure), and
reads their results only for the tests that fail in its own run at the head. A wrong or hostile
list costs at most those runs, never a verdict.
"""

from __future__ import annotations

import re
from pathlib import Path

from bot.github.red_ci.evidence import clean_log
from bot.judge import nodeids

SUMMARY = re.compile(r"^(?:FAILED|ERROR) (?P<file>[\w./-]+\.py)(?P<inner>::\S+)", re.M)
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
    return found if len(found) <= MOST else set()
