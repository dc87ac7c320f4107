"""The shipped repair set (examples/repair/): six small programs, each with one wrong line and its
own pytest file. Every spec's tests fail on the file as shipped and pass with the one line fixed,
judged in the real sandbox, and the shipped file is left as it was: a model's score on the set
is a score at repairing, not at writing from nothing."""

import os
import sys
from pathlib import Path

import pytest
from repair_sets import assert_fails_then_fixed, sandbox, specs_of  # noqa: F401 - sandbox: a fixture

from bot import spec as specs

REPAIR = Path(__file__).resolve().parents[2] / "examples" / "repair"
FIXES = {  # the wrong line, and what it should be
    "binary_search": ("    while lo < hi:\n", "    while lo <= hi:\n"),
    "roman": ('    (5, "V"),\n    (1, "I"),\n', '    (5, "V"),\n    (4, "IV"),\n    (1, "I"),\n'),
    "words": ('split(" ")', "split()"),
    "moving_average": ("range(len(values) - n)]", "range(len(values) - n + 1)]"),
    "rle": (
        "    return runs\n",
        "    if current is not None:\n        runs.append((current, count))\n    return runs\n",
    ),
    "median": (
        "        return ordered[middle]\n    return ordered[middle]\n",
        "        return ordered[middle]\n    return (ordered[middle - 1] + ordered[middle]) / 2\n",
    ),
}


@pytest.fixture(autouse=True)
def activated(monkeypatch):
    """The specs' `python` is the one with pytest, as in an activated virtual environment."""
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")


def test_the_repair_set_is_six_programs_with_their_own_tests():
    for name, spec in specs_of(REPAIR, FIXES).items():
        assert spec.target == f"{name}.py" and spec.tests.command.endswith(f" test_{name}.py"), name
        assert (REPAIR / f"test_{name}.py").is_file()


@pytest.mark.parametrize("name", sorted(FIXES))
def test_the_shipped_file_fails_and_the_one_line_fix_passes(name, sandbox):
    assert_fails_then_fixed(specs.load(REPAIR / f"{name}.yml"), *FIXES[name], sandbox)
