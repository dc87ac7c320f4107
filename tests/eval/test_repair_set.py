"""The shipped repair set (examples/repair/): six small programs, each with one wrong line and its
own pytest file. Every spec's tests fail on the file as shipped and pass with the one line fixed,
judged in the real sandbox, and the shipped file is left as it was: a model's score on the set
is a score at repairing, not at writing from nothing."""

import os
import sys
from pathlib import Path

import pytest

from bot import spec as specs
from bot.judge.validate import Validator, open_test_sandbox

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


@pytest.fixture(scope="module")
def sandbox():
    return open_test_sandbox("auto", "test", lambda text: None)


def test_the_repair_set_is_six_programs_with_their_own_tests():
    assert sorted(path.stem for path in REPAIR.glob("*.yml")) == sorted(FIXES)
    for name in FIXES:
        spec = specs.load(REPAIR / f"{name}.yml")
        assert spec.target == f"{name}.py" and spec.tests.command.endswith(f" test_{name}.py"), name
        assert (REPAIR / f"test_{name}.py").is_file()


@pytest.mark.parametrize("name", sorted(FIXES))
def test_the_shipped_file_fails_and_the_one_line_fix_passes(name, sandbox):
    spec = specs.load(REPAIR / f"{name}.yml")
    shipped = spec.target_path.read_text(encoding="utf-8")
    wrong, right = FIXES[name]
    assert shipped.count(wrong) == 1, name
    validator = Validator(spec, sandbox)
    failed = validator.check(shipped)
    assert not failed.passed and failed.failing, name
    fixed = validator.check(shipped.replace(wrong, right))
    assert fixed.passed, fixed.feedback
    assert spec.target_path.read_text(encoding="utf-8") == shipped
