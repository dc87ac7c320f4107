"""`autofix run` editing a JavaScript target (`mode: edit`) judged by its node:test suite: the model
sees the numbered file and the V8 frame of its failure, an edit block that fixes it passes; a model
whose edit blocks can't be applied twice is asked for the function the frame points at, whole, and
its reply is spliced in and passes."""

import json

from fake_openai import ScriptedOpenAI

from bot.cli import main

LOOP = "  for (let i = 0; i + size <= items.length + 1; i++) {\n"
FIXED_LOOP = "  for (let i = 0; i + size <= items.length; i++) {\n"
SUMS = (
    "function windowSums(items, size) {\n"
    "  const out = [];\n"
    f"{LOOP}"
    "    let total = 0;\n"
    "    for (let j = i; j < i + size; j++) total += items[j].value;\n"
    "    out.push(total);\n"
    "  }\n"
    "  return out;\n"
    "}\n"
)
MODULE = (
    "function double(x) {\n  return 2 * x;\n}\n\n" + SUMS + "\nmodule.exports = { double, windowSums };\n"
)  # windowSums: lines 5-13, its inner loop's line 9
TESTS = """\
const { test } = require("node:test");
const assert = require("node:assert");
const { windowSums } = require("../src/sums");

test("sums every window", () => {
  assert.deepStrictEqual(windowSums([1, 2, 3, 4].map((value) => ({ value })), 2), [3, 5, 7]);
});
"""


def project(tmp_path) -> tuple:
    (tmp_path / "src").mkdir()
    (tmp_path / "test").mkdir()
    (tmp_path / "src" / "sums.js").write_text(MODULE)
    (tmp_path / "test" / "sums.test.js").write_text(TESTS)
    spec = tmp_path / "task.yml"
    spec.write_text(
        "task: windowSums(items, size) must sum the values of every window of `size` consecutive items.\n"
        "target: src/sums.js\nmode: edit\ntests:\n  command: node --test test/\ntimeout: 60\nstrength: off\n"
        "strategy: repair+resample\n"
    )
    return spec, tmp_path / "report.json"


def autofix(spec, fake: ScriptedOpenAI, report) -> int:
    return main(
        ["run", str(spec), "--base-url", fake.base_url, "--model", "m", "--api", "chat", "--report", str(report)]
    )


def test_an_edit_block_against_the_numbered_file_passes(tmp_path, capsys):
    spec, report = project(tmp_path)
    edit = f"src/sums.js\n```javascript\n<<<<<<< SEARCH\n{LOOP}=======\n{FIXED_LOOP}>>>>>>> REPLACE\n```\n"
    with ScriptedOpenAI([edit]) as fake:
        assert autofix(spec, fake, report) == 0, capsys.readouterr().out
    assert (tmp_path / "src" / "sums.js").read_text() == MODULE.replace(LOOP, FIXED_LOOP)
    assert [a["kind"] for a in json.loads(report.read_text())["attempts"]] == ["passed"]
    user = fake.prompts()[0]
    assert "<<<<<<< SEARCH" in user and "Change `src/sums.js` with edit blocks." in user
    assert f"   7 | {LOOP.rstrip()}\n   8 |" in user  # the file, numbered
    assert "src/sums.js:9:" in user  # the V8 frame of its failure, in the target


def test_after_two_refused_replies_the_function_asked_for_whole_is_spliced_and_passes(tmp_path, capsys):
    spec, report = project(tmp_path)
    unclosed = f"src/sums.js\n<<<<<<< SEARCH\n{LOOP}=======\n{FIXED_LOOP}"
    misspelt = f"src/sums.js\n<<<<<<< SEARCH\n{LOOP}=======\n{FIXED_LOOP}>>>>>>>REPLACE\n"
    whole = f"The loop ran one window too far:\n\n```javascript\n{SUMS.replace(LOOP, FIXED_LOOP)}```\n"
    with ScriptedOpenAI([unclosed, misspelt, whole]) as fake:
        assert autofix(spec, fake, report) == 0, capsys.readouterr().out
    assert (tmp_path / "src" / "sums.js").read_text() == MODULE.replace(LOOP, FIXED_LOOP)
    data = json.loads(report.read_text())
    assert [a["kind"] for a in data["attempts"]] == ["edits refused", "edits refused", "passed"]
    assert (
        "attempt 3: asked for the function `windowSums` instead of edit blocks, "
        "after 2 replies in a row whose edit blocks could not be applied"
    ) in data["notes"]
    third = fake.prompts()[2]
    assert "Rewrite the function `windowSums` of `src/sums.js`, whole." in third
    assert f"(lines 5-13 of `src/sums.js`)\n\n```javascript\n{SUMS}```" in third
