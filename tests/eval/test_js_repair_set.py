"""The shipped JavaScript repair set (examples/js-repair/): five small modules, each with one
wrong line and its own node:test file. Every spec's tests fail on the file as shipped and pass with
the one line fixed, judged in the real sandbox through autofix's reporter and twins, and the
shipped file is left as it was."""

from pathlib import Path

import pytest
from repair_sets import assert_fails_then_fixed, sandbox, specs_of  # noqa: F401 - sandbox: a fixture

from bot import spec as specs

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


def test_the_set_is_five_modules_with_their_own_node_test_files():
    for name, spec in specs_of(REPAIR, FIXES).items():
        assert (spec.target, spec.target_kind) == (f"{name}.js", "javascript"), name
        assert spec.tests.command == f"node --test {name}.test.js"
        assert (REPAIR / f"{name}.test.js").is_file()


@pytest.mark.parametrize("name", sorted(FIXES))
def test_the_shipped_file_fails_and_the_one_line_fix_passes(name, sandbox):
    spec = specs.load(REPAIR / f"{name}.yml")
    spec.strength = "off"
    assert_fails_then_fixed(spec, *FIXES[name], sandbox)
