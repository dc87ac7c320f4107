"""The shipped JavaScript repair set (examples/js-repair/): five small modules, each with one
wrong line and its own node:test file. Every spec's tests fail on the file as shipped and pass with
the one line fixed, judged in the real sandbox through autofix's reporter and twins, and the
shipped file is left as it was."""

from pathlib import Path

import pytest

from bot import spec as specs
from bot.judge.validate import Validator, open_test_sandbox

REPAIR = Path(__file__).resolve().parents[2] / "examples" / "js-repair"
FIXES = {  # the wrong line, and what it should be
    "chunk": ("i += size + 1)", "i += size)"),
    "median": ("(sorted[middle] + sorted[middle + 1]) / 2", "(sorted[middle - 1] + sorted[middle]) / 2"),
    "rle": (
        "  return runs;\n}\n\n/**",
        "  if (current !== null) {\n    runs.push([current, count]);\n  }\n  return runs;\n}\n\n/**",
    ),
    "binary-search": ("while (low < high)", "while (low <= high)"),
    "moving-average": ("start < values.length - size;", "start <= values.length - size;"),
}


@pytest.fixture(scope="module")
def sandbox():
    return open_test_sandbox("auto", "test", lambda text: None)


def test_the_set_is_five_modules_with_their_own_node_test_files():
    assert sorted(path.stem for path in REPAIR.glob("*.yml")) == sorted(FIXES)
    for name in FIXES:
        spec = specs.load(REPAIR / f"{name}.yml")
        assert (spec.target, spec.target_kind) == (f"{name}.js", "javascript"), name
        assert spec.tests.command == f"node --test {name}.test.js"
        assert (REPAIR / f"{name}.test.js").is_file()


@pytest.mark.parametrize("name", sorted(FIXES))
def test_the_shipped_file_fails_and_the_one_line_fix_passes(name, sandbox):
    spec = specs.load(REPAIR / f"{name}.yml")
    spec.strength = "off"
    shipped = spec.target_path.read_text(encoding="utf-8")
    wrong, right = FIXES[name]
    assert shipped.count(wrong) == 1, name
    validator = Validator(spec, sandbox)
    failed = validator.check(shipped)
    assert not failed.passed and failed.failing, name
    fixed = validator.check(shipped.replace(wrong, right))
    assert fixed.passed, fixed.feedback
    assert spec.target_path.read_text(encoding="utf-8") == shipped
