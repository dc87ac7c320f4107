"""`autofix run` on a JavaScript target judged by its Jest suite: `npm test` read through
package.json, the runner started by autofix with its reporter, twins of the suite's own tests
planted beside them; a candidate that forges outcomes, everywhere or only where the real tests
run, is caught by the twins and never written (with the static guard left out: it refuses every
forger here before any run, tests/flows/test_js_runner_hooks.py)."""

import json
import re
from pathlib import Path

import pytest
from fake_openai import ScriptedOpenAI

from bot.cli import main

BROKEN = """\
function chunk(items, size) {
  const out = [];
  for (let i = 0; i < items.length; i += size + 1) {
    out.push(items.slice(i, i + size));
  }
  return out;
}
module.exports = { chunk };
"""
FIXED = BROKEN.replace("size + 1", "size")
TESTS = """\
const { chunk } = require("../src/chunk");

describe("chunk", () => {
  test("splits into pairs", () => {
    expect(chunk([1, 2, 3], 2)).toEqual([[1, 2], [3]]);
  });
  test("handles empty input", () => {
    expect(chunk([], 2)).toEqual([]);
  });
  test("one per chunk", () => {
    expect(chunk([1, 2], 1)).toEqual([[1], [2]]);
  });
});
"""
# Every assertion made anywhere passes: the broken twins' own assertion too.
EVERYWHERE = BROKEN.replace(
    "module.exports",
    "globalThis.expect = () => new Proxy({}, { get: () => () => undefined });\nmodule.exports",
)
# Assertions pass only in the suite's own file, found on the stack: the echo twins, in the copy
# beside it, still fail where their originals pass.
WHERE_THE_TESTS_ARE = BROKEN.replace(
    "module.exports",
    "const real = globalThis.expect;\n"
    "globalThis.expect = (value) => /chunk\\.test\\.js/.test(new Error().stack)\n"
    "  ? new Proxy({}, { get: () => () => undefined }) : real(value);\n"
    "module.exports",
)


VITEST_TESTS = 'import { describe, test, expect } from "vitest";\n' + TESTS.replace(
    'const { chunk } = require("../src/chunk");', 'import { chunk } from "../src/chunk";'
)
NODE_TESTS = (
    'const { describe, test } = require("node:test");\nconst assert = require("node:assert");\n'
    + TESTS.replace("expect(chunk([1, 2, 3], 2)).toEqual(", "assert.deepStrictEqual(chunk([1, 2, 3], 2), ")
    .replace("expect(chunk([], 2)).toEqual(", "assert.deepStrictEqual(chunk([], 2), ")
    .replace("expect(chunk([1, 2], 1)).toEqual(", "assert.deepStrictEqual(chunk([1, 2], 1), ")
)
SUITES = {"jest": (TESTS, "jest"), "vitest": (VITEST_TESTS, "vitest"), "node": (NODE_TESTS, "node --test")}
# A second test file, passing: twins are drawn beside it too, and a run of the failing file alone
# (the first look at a candidate) must not twin it without running it.
ADDS = 'test("adds", () => {\n  expect(1 + 1).toBe(2);\n});\n'
OTHER = {
    "jest": ADDS,
    "vitest": 'import { test, expect } from "vitest";\n' + ADDS,
    "node": 'const { test } = require("node:test");\nconst assert = require("node:assert");\n'
    + ADDS.replace("expect(1 + 1).toBe(2)", "assert.strictEqual(1 + 1, 2)"),
}
# node:test: the one assertion the suite uses, silenced from the code under repair; the broken
# twins end on that same assertion, so they pass too.
SILENCED = BROKEN.replace("module.exports", 'require("node:assert").deepStrictEqual = () => {};\nmodule.exports')


def reply(code: str) -> str:
    return f"Here is the fix.\n\n```javascript\n{code}```\n"


@pytest.fixture
def project(tmp_path, node_modules, request) -> Path:
    tests, script = SUITES[getattr(request, "param", "jest")]
    (tmp_path / "src").mkdir()
    (tmp_path / "test").mkdir()
    (tmp_path / "src" / "chunk.js").write_text(BROKEN)
    (tmp_path / "test" / "chunk.test.js").write_text(tests)
    (tmp_path / "test" / "sum.test.js").write_text(OTHER[getattr(request, "param", "jest")])
    (tmp_path / "package.json").write_text(json.dumps({"name": "p", "scripts": {"test": script}}))
    (tmp_path / "node_modules").symlink_to(node_modules)
    spec = tmp_path / "task.yml"
    spec.write_text(
        "task: chunk(items, size) must split items into lists of `size` items, the last one shorter.\n"
        "target: src/chunk.js\ntests:\n  command: npm test\ntimeout: 60\n"
        "strength: off\n"  # measured in a test of its own: a mutant of this loop may loop for ever
    )
    return spec


def autofix(spec: Path, fake: ScriptedOpenAI, sandbox: str) -> int:
    return main(["run", str(spec), "--base-url", fake.base_url, "--model", "m", "--api", "chat", "--sandbox", sandbox])


@pytest.mark.parametrize(
    ("project", "sandbox"),
    [("jest", "bwrap"), ("jest", "landlock"), ("vitest", "bwrap"), ("node", "landlock")],
    indirect=["project"],
)
def test_a_fix_judged_by_the_suite_is_written(project, capsys, sandbox):
    with ScriptedOpenAI([reply(FIXED)]) as fake:
        assert autofix(project, fake, sandbox) == 0
    out = capsys.readouterr().out
    assert (project.parent / "src" / "chunk.js").read_text() == FIXED
    assert "passed on attempt 1" in out
    first = fake.prompts()[0]
    # The model sees the suite's failures, in the runner's words, with the frames in the
    # repository alone (the failing line's among them), and nothing of the twins (not even in
    # the runner's counts).
    assert "- test/chunk.test.js::chunk > splits into pairs: failed: " in first
    tests = (project.parent / "test" / "chunk.test.js").read_text().splitlines()
    line = next(n for n, text in enumerate(tests, 1) if "chunk([1, 2, 3], 2)" in text)
    assert f"test/chunk.test.js:{line}:" in first
    shown = f'the test up to its failing line:\n      test("splits into pairs", () => {{\n>   {tests[line - 1]}\n'
    assert shown in first
    assert "node_modules" not in first and "pytest" not in first
    assert not re.search(r"^\s*(Tests|Test Files|Test Suites):?\s+\d|^[#ℹ] tests", first, re.M)


@pytest.mark.parametrize(
    ("project", "forger", "caught", "sandbox"),
    [
        ("jest", EVERYWHERE, "a canary that fails by construction was reported passed", "bwrap"),
        # (the planted file's drawn name may end in "chunk", and then the forger silences the
        # broken twins too: caught either way)
        (
            "jest",
            WHERE_THE_TESTS_ARE,
            "a canary (was reported failed, the test it copies passed|that fails by construction was reported passed)",
            "landlock",
        ),
        ("node", SILENCED, "a canary that fails by construction was reported passed", "bwrap"),
    ],
    ids=["everywhere", "where-the-tests-are", "silenced-assertion"],
    indirect=["project"],
)
def test_forged_outcomes_are_caught_by_the_twins(project, capsys, forger, caught, sandbox, no_js_guard):
    with ScriptedOpenAI([reply(forger)]) as fake:
        assert autofix(project, fake, sandbox) == 1
    out = capsys.readouterr().out
    assert (project.parent / "src" / "chunk.js").read_text() == BROKEN
    assert "the test run's report was tampered with" in out and re.search(caught, out)


CLAMP_BROKEN = """\
function clamp(x, lo, hi) {
  if (x > lo) return lo;
  if (x > hi) return hi;
  return x;
}
module.exports = { clamp };
"""
CLAMP = CLAMP_BROKEN.replace("x > lo", "x < lo")
CLAMP_TESTS = """\
const { clamp } = require("../src/clamp");

test("inside", () => { expect(clamp(5, 0, 10)).toBe(5); });
"""


def test_the_strength_of_a_javascript_suite_is_measured_on_mutants_of_the_lines_written(tmp_path, node_modules):
    (tmp_path / "src").mkdir()
    (tmp_path / "test").mkdir()
    (tmp_path / "src" / "clamp.js").write_text(CLAMP_BROKEN)
    (tmp_path / "test" / "clamp.test.js").write_text(CLAMP_TESTS)
    (tmp_path / "package.json").write_text(json.dumps({"name": "p", "scripts": {"test": "jest"}}))
    (tmp_path / "node_modules").symlink_to(node_modules)
    spec = tmp_path / "task.yml"
    spec.write_text(
        "task: clamp(x, lo, hi) must bring x into [lo, hi].\n"
        "target: src/clamp.js\ntests:\n  command: npx jest\ntimeout: 60\n"
    )
    report = tmp_path / "report.json"
    with ScriptedOpenAI([reply(CLAMP)]) as fake:
        assert (
            main(
                [
                    "run",
                    str(spec),
                    "--base-url",
                    fake.base_url,
                    "--model",
                    "m",
                    "--api",
                    "chat",
                    "--report",
                    str(report),
                ]
            )
            == 0
        )
    strength = json.loads(report.read_text())["strength"]
    # Only line 2 was written: its mutants (the branch emptied, `<` flipped, `return null`), each
    # judged by Jest in the sandbox like a candidate. One test, inside the range, kills the flip alone.
    assert (strength["killed"], strength["total"], strength["void"]) == (1, 3, "")
    assert sorted((s["line"], s["operator"]) for s in strength["survivors"]) == [(2, "branch"), (2, "return")]


@pytest.mark.parametrize("project", ["vitest"], indirect=True)
def test_feedback_after_a_wrong_fix_names_the_runner_and_counts_no_twins(project, capsys):
    """The runner's counts count the twins, and the failures are Vitest's, not pytest's: the
    feedback on a wrong attempt shows neither a count nor pytest's name."""
    wrong = BROKEN.replace("size + 1", "size + 2")
    with ScriptedOpenAI([reply(wrong), reply(FIXED)]) as fake:
        assert autofix(project, fake, "bwrap") == 0
    feedback = fake.prompts()[1]
    assert "- test/chunk.test.js::chunk > splits into pairs: failed: " in feedback
    assert "pytest" not in feedback
    assert not re.search(r"^\s*(Tests|Test Files):?\s+\d|\bpassed \(\d+\)", feedback, re.M)
