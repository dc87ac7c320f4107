"""The proof's variants of a JavaScript fix judged in one Jest run (bot/judge/js/variants.py)
through their mutant schema (bot/lang/js_schema.py): each variant behaves in the schema as it
does alone, every variant runs every changed function through a copy (a null one too), the
selector's line keeps `"use strict"` first and every line's number; with real Jest in the sandbox,
one run judges them all (a killing mutant fails, a null one passes) and the work folder is the
fix again; what has no schema is no verdict."""

import json
import re
import shutil
import subprocess

import pytest
from test_js_spec import FIXED, NODE_TESTS, TESTS

from bot.judge.js import runner as js_runner
from bot.judge.js import variants
from bot.judge.js.command import linked_modules
from bot.judge.runners import runner_for
from bot.judge.validate import open_test_sandbox
from bot.lang.js_schema import schema, selecting
from bot.sandbox.tiers import Limits

NODE = shutil.which("node") or "node"

SHAPES = """\
"use strict";
function sum(...xs) {
  let total = 0;
  for (const x of xs) total += x;
  return total;
}
function* count(n) {
  for (let i = 0; i < n; i++) yield i;
}
async function later(x, by = 1) {
  return x + by;
}
function where() {
  return new Error().stack.split("\\n")[1].trim().split(" ")[1].split(".").pop();
}
exports.sum = sum; exports.count = count; exports.later = later; exports.where = where;
"""
SHOW = """
const m = require("./shapes.js");
m.later(1).then((late) => console.log(JSON.stringify([m.sum(1, 2, 3), [...m.count(3)], late, m.where()])));
"""
VARIANTS = [
    # a null one: a statement that does nothing in two functions
    SHAPES.replace("  let total = 0;", "  let total = 0;\n  {}").replace(
        "  return new Error()", "  {}\n  return new Error()"
    ),
    SHAPES.replace("total += x", "total -= x"),
    SHAPES.replace("i < n", "i <= n"),
    SHAPES.replace("by = 1", "by = 2"),
]


def shown(folder, code: str, prefix: str = "") -> list:
    (folder / "shapes.js").write_text(code)
    (folder / "show.js").write_text(prefix + SHOW)
    done = subprocess.run([NODE, "show.js"], cwd=folder, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_each_variant_behaves_in_the_schema_as_alone_and_every_one_runs_through_copies(tmp_path):
    values = [11, 987654, 3, 42]
    made = schema(SHAPES, VARIANTS, values, "pick", "_tok")
    assert made is not None
    assert shown(tmp_path, made) == shown(tmp_path, SHAPES) == [6, [0, 1, 2], 2, "where"]
    # The fix's own lines keep their numbers: the switch sits on the line of the body's `{`.
    assert made.splitlines()[: len(SHAPES.splitlines())][2:4] == SHAPES.splitlines()[2:4]
    for index, (variant, value) in enumerate(zip(VARIANTS, values, strict=True)):
        inside = shown(tmp_path, made, f"globalThis.pick = {value};\n")
        assert inside[:3] == shown(tmp_path, variant)[:3], index
        # where() changed in the null variant alone, yet every variant runs it as a copy of its own.
        assert inside[3] == f"where_tok{index}"
    assert [shown(tmp_path, variant)[:3] for variant in VARIANTS] == [
        [6, [0, 1, 2], 2],
        [-6, [0, 1, 2], 2],
        [6, [0, 1, 2, 3], 2],
        [6, [0, 1, 2], 3],
    ]


@pytest.mark.parametrize(
    "changed",
    [
        SHAPES.replace("exports.sum = sum;", "exports.sum = sum; exports.s = 1;"),
        SHAPES.replace('"use strict";', '"use strict"; // strict'),
        SHAPES.replace("function where() {", "function where() {\n  void new.target;"),
        SHAPES.replace("function sum(", "const sum = (").replace("...xs) {", "...xs) => {", 1),
    ],
    ids=["statement", "comment", "new-target", "arrow"],
)
def test_a_variant_that_changes_more_than_function_declarations_has_no_schema(changed):
    assert schema(SHAPES, [VARIANTS[1], changed], [1, 2], "pick", "_tok") is None


def test_the_selector_s_line_keeps_directives_first_and_every_line_s_number():
    assert selecting('"use strict";\nconst a = 1;\n', "pick", 5) == '"use strict"; globalThis.pick = 5;\nconst a = 1;\n'
    assert selecting("import x from './x.js';\n", "pick", 5) == " globalThis.pick = 5;import x from './x.js';\n"
    assert selecting("#!/usr/bin/env node\n", "pick", 5) is None


@pytest.fixture
def head(tmp_path, node_modules):
    (tmp_path / "src").mkdir()
    (tmp_path / "test").mkdir()
    (tmp_path / "src" / "chunk.js").write_text(FIXED)
    (tmp_path / "test" / "chunk.test.js").write_text(TESTS)
    (tmp_path / "package.json").write_text(json.dumps({"name": "p", "scripts": {"test": "jest"}}))
    (tmp_path / "node_modules").symlink_to(node_modules)
    return tmp_path


KILLED = FIXED.replace("i += size", "i += size + 1")
NULL = FIXED.replace("  const out = [];", "  const out = [];\n  {}")
PAIRS = "test/chunk.test.js::chunk > splits into pairs"


def test_one_jest_run_judges_every_variant(head, monkeypatch):
    sandbox = open_test_sandbox("bwrap", "--sandbox", print, also=linked_modules(head))
    runs: list[list[str]] = []
    real = variants.run_js
    monkeypatch.setattr(
        variants, "run_js", lambda *args, **kwargs: runs.append(kwargs["only"]) or real(*args, **kwargs)
    )
    jest = runner_for("npm test", head)
    assert isinstance(jest, js_runner.JavaScript)
    found = jest.run_variants(
        sandbox, head, Limits(wall_seconds=60), {}, [{"src/chunk.js": KILLED}, {"src/chunk.js": NULL}], only={PAIRS}
    )
    assert found is not None
    outcomes = [{case.test_id: case.outcome for case in run.cases or []} for run in found]
    assert outcomes[0][PAIRS] == "failed" and set(outcomes[1].values()) == {"passed"}
    assert (
        set(outcomes[0])
        == set(outcomes[1])
        == {
            PAIRS,
            "test/chunk.test.js::chunk > handles empty input",
            "test/chunk.test.js::chunk > one per chunk",
        }
    )
    assert [run.outcome.returncode for run in found] == [1, 0]
    (copies,) = runs
    assert len(copies) == 2 and all(re.fullmatch(r"test/chunk-[a-z]+-[a-z]+\.test\.js", path) for path in copies)
    # The work folder is the fix again: no schema, no copy left.
    assert (head / "src" / "chunk.js").read_text() == FIXED
    assert sorted(path.name for path in (head / "test").iterdir()) == ["chunk.test.js"]


def test_one_node_test_run_judges_every_variant(head):
    (head / "test" / "chunk.test.js").write_text(NODE_TESTS)
    (head / "package.json").write_text(json.dumps({"name": "p", "scripts": {"test": "node --test"}}))
    sandbox = open_test_sandbox("bwrap", "--sandbox", print, also=linked_modules(head))
    node = runner_for("npm test", head)
    assert isinstance(node, js_runner.JavaScript) and node.name == "node"
    found = node.run_variants(
        sandbox, head, Limits(wall_seconds=60), {}, [{"src/chunk.js": KILLED}, {"src/chunk.js": NULL}], only={PAIRS}
    )
    assert found is not None
    outcomes = [{case.test_id: case.outcome for case in run.cases or []} for run in found]
    assert outcomes[0][PAIRS] == "failed" and set(outcomes[1].values()) == {"passed"} and PAIRS in outcomes[1]
    assert [run.outcome.returncode for run in found] == [1, 0]


def test_a_copy_the_runner_does_not_collect_is_no_verdict(head, monkeypatch):
    """A configuration that names its test files collects some copies and not others: read as a
    variant whose tests never ran, that variant would count as killed."""
    config = {"name": "p", "scripts": {"test": "jest"}, "jest": {"testMatch": ["**/test/chunk*.test.js"]}}
    (head / "package.json").write_text(json.dumps(config))
    names = iter(["test/chunk-one-two.test.js", "test/other-one-two.test.js"])
    monkeypatch.setattr(variants.canaries, "planted_name", lambda relative, words: next(names))
    sandbox = open_test_sandbox("bwrap", "--sandbox", print, also=linked_modules(head))
    jest = runner_for("npm test", head)
    assert isinstance(jest, js_runner.JavaScript)
    found = jest.run_variants(
        sandbox, head, Limits(wall_seconds=60), {}, [{"src/chunk.js": NULL}, {"src/chunk.js": NULL}], only={PAIRS}
    )
    assert found is None


def test_what_has_no_schema_is_no_verdict(head):
    sandbox = open_test_sandbox("bwrap", "--sandbox", print, also=linked_modules(head))
    jest = runner_for("npm test", head)
    assert isinstance(jest, js_runner.JavaScript)
    arrow = FIXED.replace("module.exports = { chunk };", "module.exports = { chunk, size: () => 1 };")
    found = jest.run_variants(
        sandbox, head, Limits(wall_seconds=60), {}, [{"src/chunk.js": KILLED}, {"src/chunk.js": arrow}], only={PAIRS}
    )
    assert found is None and (head / "src" / "chunk.js").read_text() == FIXED
