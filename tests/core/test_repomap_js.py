"""bot/core/repomap.py and bot/core/localize.py on JavaScript and TypeScript: the map reads them
through their view (bot/lang/js_map.py), beside Python's, ranks and renders them the same way, and
leaves out what a build wrote; the localize prompt names the languages the map holds."""

from __future__ import annotations

from pathlib import Path

from fake_openai import Reply, ScriptedOpenAI

from bot.core.localize import localize
from bot.core.repomap import Mentions, RepoMap, mentions, rank, render
from bot.core.report import Report
from bot.models.base import ModelSettings
from bot.models.registry import open_model

NOTHING = Mentions({}, {}, ())
ARRAYS = """\
const { clamp } = require("./util");

/**
 * Splits `items` into lists of `size`.
 * @param {Array} items
 */
function chunk(items, size = 2) {
  const out = [];
  for (let i = 0; i + size < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

class Queue extends Array {
  take(count) {
    return this.splice(0, clamp(count, 0, this.length));
  }

  static of = (...items) => Queue.from(items);
}

module.exports = { chunk, Queue };
"""
SHAPES = """\
import { clamp } from "./util";

export interface Shape {
  area(): number;
}

export class Circle implements Shape {
  constructor(private radius: number) {}

  area(): number {
    return clamp(Math.PI * this.radius ** 2, 0, Infinity);
  }
}

export const total = (shapes: Shape[]): number => shapes.reduce((sum, shape) => sum + shape.area(), 0);
"""
UTIL = """\
function clamp(value, low, high) {
  return Math.min(Math.max(value, low), high);
}

module.exports = { clamp };
"""
MONEY = 'import { clamp } from "./util.js";\n\nexport function cents(x) {\n  return clamp(x, 0, 99);\n}\n'
VIEW = "export function Badge({ label }: { label: string }) {\n  return <b>{label}</b>;\n}\n"
TEST = 'const { chunk } = require("../src/arrays");\n\ntest("pairs", () => chunk([1, 2]));\n'
BUILT = {
    "node_modules/left-pad/index.js": "function leftPad() {}\n",
    "dist/bundle.js": "function chunk() {}\n",
    "packages/ui/dist/index.js": "function chunk() {}\n",
    "packages/ui/build/index.js": "function chunk() {}\n",
    "coverage/lcov-report/sorter.js": "function sorter() {}\n",
    "src/vendor.min.js": "function chunk(){}\n",
    "src/types.d.ts": "export declare function chunk(items: unknown[]): unknown[][];\n",
}


def write(root: Path, files: dict[str, str]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    return root


def mixed(root: Path) -> Path:
    """A JavaScript and TypeScript package: util.js's clamp used by three files, leaf.js by none."""
    return write(
        root,
        {
            "src/arrays.js": ARRAYS,
            "src/shapes.ts": SHAPES,
            "src/util.js": UTIL,
            "src/money.mjs": MONEY,
            "src/leaf.js": "export function lonely() {\n  return 1;\n}\n",
            "src/view.tsx": VIEW,
            "test/arrays.test.js": TEST,
            "scripts/report.py": "def report(rows):\n    return rows\n",
            **BUILT,
        },
    )


def test_the_map_outlines_javascript_and_typescript_beside_python_and_leaves_out_what_a_build_wrote(tmp_path):
    repo = RepoMap.build(mixed(tmp_path))

    assert list(repo.files) == [
        "scripts/report.py",
        "src/arrays.js",
        "src/leaf.js",
        "src/money.mjs",
        "src/shapes.ts",
        "src/util.js",
        "src/view.tsx",
        "test/arrays.test.js",
    ]
    assert repo.languages == ("JavaScript", "TypeScript", "Python")
    assert repo.files["src/arrays.js"].defines == {"arrays", "chunk", "Queue", "take", "of"}  # not clamp: imported
    assert repo.files["src/shapes.ts"].defines == {"shapes", "Shape", "Circle", "area", "total"}
    # By its import and its calls: the test file uses arrays.js; arrays.js, shapes.ts, money.mjs use util.js.
    assert repo.links["test/arrays.test.js"] == {"src/arrays.js": 3.0}
    assert set(repo.links) == {"src/arrays.js", "src/money.mjs", "src/shapes.ts", "test/arrays.test.js"}
    assert all(set(targets) == {"src/util.js"} for path, targets in repo.links.items() if path.startswith("src/"))

    shown = render(repo, [(path, 0.0) for path in repo.files], 1000)

    assert shown.text == (
        "scripts/report.py\n"
        "  def report(rows)  # line 1\n"
        "src/arrays.js\n"
        "  function chunk(items, size = 2)  # line 7: Splits `items` into lists of `size`.\n"
        "  class Queue extends Array  # line 13\n"
        "    take(count)  # line 14\n"
        "    static of = (...items) =>  # line 18\n"
        "src/leaf.js\n"
        "  function lonely()  # line 1\n"
        "src/money.mjs\n"
        "  function cents(x)  # line 3\n"
        "src/shapes.ts\n"
        "  class Circle implements Shape  # line 7\n"
        "    constructor(private radius: number)  # line 8\n"
        "    area(): number  # line 10\n"
        "  const total = (shapes: Shape[]): number =>  # line 15\n"
        "src/util.js\n"
        "  function clamp(value, low, high)  # line 1\n"
        "src/view.tsx\n"
        "  function Badge({ label }: { label: string })  # line 1\n"
        "test/arrays.test.js\n"
    )


def test_a_file_many_others_use_ranks_above_a_leaf_and_the_issues_name_leads(tmp_path):
    repo = RepoMap.build(mixed(tmp_path))

    plain = [path for path, _ in rank(repo, NOTHING)]
    assert plain[:2] == ["src/util.js", "src/arrays.js"]
    assert plain.index("src/util.js") < plain.index("src/leaf.js")
    scores = dict(rank(repo, NOTHING))
    assert scores["src/util.js"] > 2 * scores["src/leaf.js"]

    issue = mentions("The `chunk` function drops the last item")
    assert [path for path, _ in rank(repo, issue)][:2] == ["src/arrays.js", "test/arrays.test.js"]
    # A path with a JavaScript extension names its file, as a .py path does.
    assert [path for path, _ in rank(repo, mentions("cents() in src/money.mjs rounds down"))][0] == "src/money.mjs"


def report() -> Report:
    return Report(model="m", sandbox="none", target="", max_attempts=1)


def test_localize_on_a_javascript_repository_picks_the_javascript_files_of_the_outline(tmp_path):
    root = write(
        tmp_path,
        {
            "src/arrays.js": ARRAYS,
            "src/util.js": UTIL,
            "src/index.js": 'module.exports = { ...require("./arrays"), ...require("./util") };\n',
            "dist/arrays.js": ARRAYS,
        },
    )
    reply = "```\nsrc/arrays.js\ndist/arrays.js\nsrc/util.js\n```"  # dist/ is no file of the outline
    with ScriptedOpenAI([Reply(reply), Reply("None of these.")]) as fake:
        model = open_model(ModelSettings(name="m", base_url=fake.base_url, api_key="k"), str)
        located = localize(model, root, "The `chunk` function drops the last item", [], report())
        unsure = localize(model, root, "Lists come out wrong", [], report())

    assert located.shown == ("src/arrays.js", "src/util.js", "src/index.js")
    assert located.chosen == ["src/arrays.js", "src/util.js"]
    assert unsure.chosen == list(unsure.shown) == ["src/util.js", "src/arrays.js", "src/index.js"]  # by rank
    prompt = fake.prompts()[0]
    assert "an outline of the repository's JavaScript files, most relevant first" in prompt
    assert (
        "src/arrays.js\n  function chunk(items, size = 2)  # line 7: Splits `items` into lists of `size`.\n" in prompt
    )


def test_the_localize_prompt_names_every_language_the_map_holds(tmp_path):
    root = mixed(tmp_path)
    with ScriptedOpenAI([Reply("```\nsrc/shapes.ts\n```")]) as fake:
        model = open_model(ModelSettings(name="m", base_url=fake.base_url, api_key="k"), str)
        located = localize(model, root, "Circle.area is wrong", [], report())
    assert located.chosen == ["src/shapes.ts"]
    assert "an outline of the repository's JavaScript, TypeScript and Python files" in fake.prompts()[0]
