"""A spec whose target doesn't exist yet, judged by a JavaScript suite: its test file can't load
on the repository's own code, so the baseline knows none of its tests by a run, and the ones its
source declares are what a candidate's run must report. A candidate whose module wraps the
runner's `test` to drop the tests it fails is caught naming them; the right code passes."""

import json

import pytest
from fake_openai import ScriptedOpenAI

from bot.cli import main

FIXED = """\
function chunk(items, size) {
  const out = [];
  for (let i = 0; i < items.length; i += size) {
    out.push(items.slice(i, i + size));
  }
  return out;
}
"""
BROKEN = FIXED.replace("i += size)", "i += size + 1)")
BODY = """
describe("chunk", () => {
  test("splits into pairs", () => {
    CHECK(chunk([1, 2, 3], 2), [[1, 2], [3]]);
  });
  test("handles empty input", () => {
    CHECK(chunk([], 2), []);
  });
  test("one per chunk", () => {
    CHECK(chunk([1, 2], 1), [[1], [2]]);
  });
});
"""
EXPECT = BODY.replace("CHECK(", "expect(").replace("), [", ")).toEqual([").replace("), []);", ")).toEqual([]);")
# Jest's and Vitest's (--globals) `test` is a global the module under repair can replace before
# the test file's body runs; node:test's is a property of what require("node:test") returns.
SUITES = {
    "jest": ('const { chunk } = require("../src/chunk");\n' + EXPECT, "jest", "globalThis"),
    "vitest": ('import { chunk } from "../src/chunk";\n' + EXPECT, "vitest run --globals", "globalThis"),
    "node": (
        'const { chunk } = require("../src/chunk");\nconst { describe, test } = require("node:test");\n'
        'const assert = require("node:assert");\n' + BODY.replace("CHECK(", "assert.deepStrictEqual("),
        "node --test",
        'require("node:test")',
    ),
}
EXPORT = "module.exports = { chunk };\n"


def dropping(holder: str) -> str:
    """The broken code, and every test but the one it passes left undeclared."""
    return (
        f"{BROKEN}const holder = {holder};\nconst real = holder.test;\n"
        'holder.test = holder.it = (title, fn) => (title === "handles empty input" ? real(title, fn) : undefined);\n'
        + EXPORT
    )


@pytest.mark.parametrize(("runner", "sandbox"), [("jest", "bwrap"), ("vitest", "landlock"), ("node", "bwrap")])
def test_the_tests_a_new_modules_file_declares_must_run(tmp_path, node_modules, capsys, runner, sandbox, no_js_guard):
    tests, script, holder = SUITES[runner]
    (tmp_path / "src").mkdir()
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "chunk.test.js").write_text(tests)
    (tmp_path / "package.json").write_text(json.dumps({"name": "p", "scripts": {"test": script}}))
    (tmp_path / "node_modules").symlink_to(node_modules)
    spec = tmp_path / "task.yml"
    spec.write_text(
        "task: chunk(items, size) must split items into lists of `size` items, the last one shorter.\n"
        "target: src/chunk.js\ntests:\n  command: npm test\ntimeout: 60\nstrength: off\n"
    )
    replies = [f"```javascript\n{code}```\n" for code in (dropping(holder), FIXED + EXPORT)]
    with ScriptedOpenAI(replies) as fake:
        argv = ["run", str(spec), "--base-url", fake.base_url, "--model", "m", "--api", "chat", "--sandbox", sandbox]
        assert main(argv) == 0
    out = capsys.readouterr().out
    # (node:test names a test's file after the line that declares it: the wrapper's, in
    # src/chunk.js, so there the one test left is missing from the test file too)
    missing = next(line for line in out.splitlines() if "test(s) of the suite did not run" in line)
    assert "test/chunk.test.js::chunk > one per chunk" in missing
    assert "test/chunk.test.js::chunk > splits into pairs" in missing
    assert "passed on attempt 2" in out
    assert (tmp_path / "src" / "chunk.js").read_text() == FIXED + EXPORT
