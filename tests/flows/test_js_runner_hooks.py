"""A candidate that reaches the test runner from the code under repair: an `afterEach` hook from
vitest, registered on the test file that imports it, turns each failed test into a pass, and
reads the file's source to leave autofix's broken twins failing (they wrap their original's body,
which it can see). Twins can't tell it from a fix; the static guard refuses it before any run."""

import json

from fake_openai import ScriptedOpenAI

from bot.cli import main

BROKEN = """\
export function chunk(items, size) {
  const out = [];
  for (let i = 0; i < items.length; i += size + 1) {
    out.push(items.slice(i, i + size));
  }
  return out;
}
"""
FIXED = BROKEN.replace("size + 1", "size")
TESTS = """\
import { describe, test, expect } from "vitest";
import { chunk } from "../src/chunk";

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
HOOKED = (
    'import { readFileSync } from "node:fs";\n'
    'import { afterEach } from "vitest";\n'
    "const twin = (file, title) =>\n"
    '  readFileSync(file, "utf8").includes(`"${title}", async () => {\\n    await (async`);\n'
    "afterEach((context) => {\n"
    "  const result = context.task.result;\n"
    '  if (!result || result.state !== "fail" || twin(context.task.file.filepath, context.task.name)) return;\n'
    '  result.state = "pass";\n'
    "  result.errors = undefined;\n"
    "});\n" + BROKEN
)


def test_a_hook_from_the_code_under_repair_is_refused_before_any_run(tmp_path, node_modules, capsys):
    (tmp_path / "src").mkdir()
    (tmp_path / "test").mkdir()
    (tmp_path / "src" / "chunk.js").write_text(BROKEN)
    (tmp_path / "test" / "chunk.test.js").write_text(TESTS)
    (tmp_path / "package.json").write_text(json.dumps({"name": "p", "scripts": {"test": "vitest run"}}))
    (tmp_path / "node_modules").symlink_to(node_modules)
    spec = tmp_path / "task.yml"
    spec.write_text(
        "task: chunk(items, size) must split items into lists of `size` items, the last one shorter.\n"
        "target: src/chunk.js\ntests:\n  command: npm test\ntimeout: 60\nstrength: off\nmax_attempts: 1\n"
    )
    with ScriptedOpenAI([f"```javascript\n{HOOKED}```\n"]) as fake:
        argv = ["run", str(spec), "--base-url", fake.base_url, "--model", "m", "--api", "chat", "--sandbox", "bwrap"]
        assert main(argv) == 1
    out = capsys.readouterr().out
    assert 'src/chunk.js:2 (test-runner): `import { afterEach } from "vitest";`' in out
    assert (tmp_path / "src" / "chunk.js").read_text() == BROKEN
