"""A free-form issue on a JavaScript repository whose bug lives in a file the issue doesn't name:
the repository map outlines the JavaScript files, the localize call picks the one defining the
function the issue names, and the reproduce and repair prompts show it. Through `autofix action`,
as test_js_flows.py drives it: real git, the real sandbox, real Jest."""

import json

import pytest
from action_world import World, act, labeled
from fake_openai import Reply

ARRAYS = """\
function chunk(items, size) {
  const out = [];
  for (let i = 0; i + size < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

module.exports = { chunk };
"""
FIXED = ARRAYS.replace("i + size < items.length", "i < items.length")
STRINGS = 'function shout(word) {\n  return word.toUpperCase() + "!";\n}\n\nmodule.exports = { shout };\n'
INDEX = 'module.exports = { ...require("./arrays"), ...require("./strings") };\n'
# Jest's `test.each`, which no twin copies (test_js_flows.py says why that matters here).
TESTS = """\
const { chunk, shout } = require("../src");

test.each([["hi", "HI!"], ["yo", "YO!"]])("shout(%s) is %s", (word, loud) => {
  expect(shout(word)).toBe(loud);
});

test.each([[[], []]])("chunk(%j) is %j", (items, chunks) => {
  expect(chunk(items, 2)).toEqual(chunks);
});
"""
ISSUE = "`chunk([1, 2, 3], 2)` gives `[[1, 2]]`: the last item is dropped."
REPRODUCES = (
    'const { chunk } = require("../src");\n\n'
    'test("the last item", () => { expect(chunk([1, 2, 3], 2)).toEqual([[1, 2], [3]]); });\n'
)
FIX = (
    "src/arrays.js\n```javascript\n<<<<<<< SEARCH\n"
    "  for (let i = 0; i + size < items.length; i += size) out.push(items.slice(i, i + size));\n=======\n"
    "  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));\n>>>>>>> REPLACE\n```\n"
)


@pytest.fixture
def world(tmp_path, monkeypatch, github, node_modules):
    world = World(tmp_path, monkeypatch, github)
    world.input("strength", "off")
    world.commit_to_origin(
        {
            ".gitignore": "node_modules\n",
            ".github/autofix.yml": "tests:\n  command: npm test\ntimeout: 60\n",
            "package.json": json.dumps({"name": "p", "scripts": {"test": "jest"}}),
            "src/arrays.js": ARRAYS,
            "src/strings.js": STRINGS,
            "src/index.js": INDEX,
            "test/index.test.js": TESTS,
        }
    )
    (world.workspace / "node_modules").symlink_to(node_modules)
    return world


def test_localization_finds_the_javascript_file_the_issue_does_not_name(world, github, capsys):
    event = labeled(body=ISSUE)
    event["issue"]["title"] = "chunk drops the last item"
    world.event("issues", event)
    script = {
        "localize": [Reply("```\nsrc/arrays.js\n```")],
        "reproduce": [Reply(f"```javascript\n{REPRODUCES}```\n")],
        "repair": [Reply(FIX)],
    }
    code, out, openai = act(capsys, world, script)
    assert code == 0, "\n".join(out)
    assert openai.stages() == ["localize", "reproduce", "repair"]
    # The map shows the four JavaScript files (node_modules left out), the file defining `chunk` first.
    assert "autofix: localize: src/arrays.js (of 4 shown)" in out
    localize, reproduce, repair = openai.prompts()
    assert "an outline of the repository's JavaScript files" in localize
    assert localize.endswith(
        "The repository's outline:\n\nsrc/arrays.js\n  function chunk(items, size)  # line 1\n"
        "test/index.test.js\nsrc/strings.js\n  function shout(word)  # line 1\nsrc/index.js\n"
    )
    # The next stages read the file it picked.
    shown = "The files most likely involved, as they are now:\n\nsrc/arrays.js:\n```javascript\n    1  function chunk"
    assert shown in reproduce and shown in repair
    assert world.file_at("autofix/issue-1", "src/arrays.js") == FIXED
