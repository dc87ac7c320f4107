"""Edit mode on JavaScript and TypeScript targets, through the same answer as Python's: a long file
shown as its outline and the windows around the lines V8's stack frames point at, edit blocks
applied, and after two refused replies in a row the function the failures point at asked for whole
in the language's fence and spliced in by bot/lang's view."""

from __future__ import annotations

import pytest

from bot.core.edit_file import EditFile
from bot.core.loop import answer_for
from bot.core.protocol import Kind, Unusable
from bot.core.whole_file import WholeFile
from bot.lang.javascript import JAVASCRIPT
from bot.spec import Spec


def filler(n: int) -> str:
    return f"function f{n}(x) {{\n  return x + {n};\n}}\n\n"


LOOP = "  for (let i = 0; i + size < items.length; i++) {\n"
FIXED_LOOP = LOOP.replace("i + size < items.length", "i + size <= items.length")
SUMS = (
    "function windowSums(items, size) {\n"
    "  const out = [];\n"
    f"{LOOP}"
    "    out.push(items.slice(i, i + size).reduce((a, b) => a + b.value, 0));\n"
    "  }\n"
    "  return out;\n"
    "}\n\n"
)
MODULE = (
    "".join(filler(n) for n in range(40))
    + SUMS
    + "".join(filler(n) for n in range(40, 80))
    + "module.exports = { windowSums };\n"
)
FIRST = 161  # windowSums's first line; its loop's is 163
FAILING = (
    "- test/big.test.js::sums every window: failed: TypeError: Cannot read properties of undefined (reading 'value')\n"
    "    at /work/repo/src/big.js:164:62\n"
    "    at Array.reduce (<anonymous>)\n"
    "    at windowSums (/work/repo/src/big.js:164:49)\n"
    "    at TestContext.<anonymous> (/work/repo/test/big.test.js:5:10)\n"
)
EDIT = f"src/big.js\n```javascript\n<<<<<<< SEARCH\n{LOOP}=======\n{FIXED_LOOP}>>>>>>> REPLACE\n```\n"
UNCLOSED = f"src/big.js\n<<<<<<< SEARCH\n{LOOP}=======\n{FIXED_LOOP}"
NO_MATCH = f"src/big.js\n<<<<<<< SEARCH\n  for (;;) {{\n=======\n{FIXED_LOOP}>>>>>>> REPLACE\n"


def spec_of(tmp_path, target: str, **keys: str) -> Spec:
    task = "windowSums(items, size) must sum the values of every window of `size` items."
    spec = Spec.model_validate({"task": task, "target": target, "tests": {"command": "node --test"}, **keys})
    spec.workdir = tmp_path
    return spec


def refused_twice(answer: EditFile, replies: tuple[str, str]) -> list[dict[str, str]]:
    answer.first()
    for reply in replies:
        with pytest.raises(Unusable) as refused:
            answer.apply(reply)
        assert refused.value.kind == Kind.REFUSED
        messages = answer.next(refused.value.feedback)
    return messages


def test_a_long_javascript_file_is_shown_as_its_outline_and_the_window_a_stack_frame_points_at(tmp_path):
    assert len(MODULE.splitlines()) == 329
    answer = answer_for(spec_of(tmp_path, "src/big.js"), MODULE, lambda: FAILING)
    assert isinstance(answer, EditFile)  # `mode: auto`, over WHOLE_LINES lines
    system, user = (message["content"] for message in answer.first())
    assert "<<<<<<< SEARCH" in system
    assert "## `src/big.js` now (329 lines; only the parts that matter are shown)" in user
    outline, shown = user.split("Its outline (the line of every function and class):\n\n")[1].split("The lines")
    assert f" {FIRST} | function windowSums(items, size) {{" in outline
    assert "(60 of its 81 definitions: those nearest the lines shown below)" in outline
    assert "function f0(" not in user and "function f79(" not in user  # the file is not shown whole
    # The frames' line (164) and six lines each side of it; windowSums whole, as the task names it.
    numbered = [f"{n:>4} | {line}" for n, line in enumerate(MODULE.splitlines(), 1)]
    assert "\n".join(numbered[157:170]) in shown  # lines 158 to 170
    assert numbered[156] not in shown and numbered[170] not in shown

    candidate = answer.apply(EDIT)
    assert candidate.files["src/big.js"] == MODULE.replace(LOOP, FIXED_LOOP)
    again = answer.next("- test/big.test.js::sums every window: failed: AssertionError")[1]["content"]
    assert f" 163 | {FIXED_LOOP}" in again  # the next prompt shows the lines the edit wrote


def test_a_short_javascript_file_is_written_whole_unless_the_spec_asks_for_edits(tmp_path):
    short = SUMS + "module.exports = { windowSums };\n"
    assert isinstance(answer_for(spec_of(tmp_path, "src/sums.js"), short, lambda: ""), WholeFile)
    answer = answer_for(spec_of(tmp_path, "src/sums.js", mode="edit"), short, lambda: "")
    assert isinstance(answer, EditFile)
    assert (
        "## `src/sums.js` now\n\n```text\n   1 | function windowSums(items, size) {\n" in answer.first()[1]["content"]
    )


def test_after_two_refused_replies_the_function_the_frames_point_at_is_asked_for_whole_and_spliced(tmp_path):
    notes: list[str] = []
    answer = answer_for(spec_of(tmp_path, "src/big.js"), MODULE, lambda: FAILING, notes.append)
    assert isinstance(answer, EditFile)
    system, user = (message["content"] for message in refused_twice(answer, (UNCLOSED, NO_MATCH)))
    assert notes == [
        "asked for the function `windowSums` instead of edit blocks, "
        "after 2 replies in a row whose edit blocks could not be applied"
    ]
    assert "in a single ```javascript block" in system and "Write no edit blocks." in system
    assert "Rewrite the function `windowSums` of `src/big.js`, whole." in user
    assert f"(lines {FIRST}-167 of `src/big.js`)\n\n```javascript\n{SUMS.rstrip()}\n```" in user
    assert FAILING.strip() in user
    assert user.endswith(
        "Reply with the complete corrected text of the function `windowSums` in one ```javascript block."
    )

    with pytest.raises(Unusable) as unusable:  # not the function asked for
        answer.apply("```javascript\nfunction f3(x) {\n  return x;\n}\n```")
    assert unusable.value.kind == Kind.NO_CODE
    assert unusable.value.feedback.startswith(
        "Your reply could not be used: the code in your reply does not define `windowSums`. "
    )
    fixed = SUMS.replace(LOOP, FIXED_LOOP)
    candidate = answer.apply(f"The loop stops one window early:\n\n```js\n{fixed}```\n\nThat fixes it.")
    assert candidate.files["src/big.js"] == MODULE.replace(SUMS, fixed)


TS_CLASS = """\
export class Window {
  constructor(private size: number) {}

  sums(items: number[]): number[] {
    const out: number[] = [];
    for (let i = 0; i + this.size < items.length; i++) {
      out.push(items.slice(i, i + this.size).reduce((a, b) => a + b, 0));
    }
    return out;
  }

  count(items: number[]): number {
    return this.sums(items).length;
  }
}
"""
TS_FAILING = (
    "- test/window.test.ts::sums: failed: AssertionError: Expected values to be strictly deep-equal\n"
    "    at Window.sums (/work/repo/src/window.ts:6:5)\n"
    "    at TestContext.<anonymous> (/work/repo/test/window.test.ts:4:10)\n"
)


def test_a_typescript_method_is_asked_for_alone_and_goes_in_at_its_class_depth(tmp_path):
    answer = answer_for(spec_of(tmp_path, "src/window.ts", mode="edit"), TS_CLASS, lambda: TS_FAILING)
    assert isinstance(answer, EditFile)
    broken = "src/window.ts\n<<<<<<< SEARCH\n  sums(items) {\n=======\n  sums(items) {}\n>>>>>>> REPLACE\n"
    system, user = (m["content"] for m in refused_twice(answer, (broken, broken.replace(">>>>>>> REPLACE", ">>>"))))
    assert "in a single ```typescript block" in system
    assert "Rewrite the method `Window.sums` of `src/window.ts`, whole." in user
    assert "(lines 4-10 of `src/window.ts`)\n\n```typescript\n  sums(items: number[]): number[] {" in user

    method = (
        "sums(items: number[]): number[] {\n"
        "  const out: number[] = [];\n"
        "  for (let i = 0; i + this.size <= items.length; i++) {\n"
        "    out.push(items.slice(i, i + this.size).reduce((a, b) => a + b, 0));\n"
        "  }\n"
        "  return out;\n"
        "}\n"
    )
    candidate = answer.apply(f"```typescript\n{method}```")
    assert candidate.files["src/window.ts"] == TS_CLASS.replace("i + this.size < items", "i + this.size <= items")


def test_of_two_frames_in_the_file_the_innermost_names_the_unit_v8_lists_it_first():
    code = "function inner(x) {\n  return x.value;\n}\n\nfunction outer(x) {\n  return inner(x);\n}\n"
    failures = "TypeError: boom\n    at inner (/r/src/a.js:2:12)\n    at outer (/r/src/a.js:6:10)\n"
    assert JAVASCRIPT.pointed_unit(code, failures, "src/a.js", "").qualname == "inner"
    assert JAVASCRIPT.pointed_unit(code, "a failure naming outer()", "src/a.js", "").qualname == "outer"
    assert JAVASCRIPT.pointed_unit(code, "no name", "src/a.js", "") is None


def test_a_javascript_reply_of_the_function_without_edit_blocks_is_refused_as_edits(tmp_path):
    """Only Python's definitions take the place of the edit blocks a reply lacks."""
    answer = answer_for(spec_of(tmp_path, "src/big.js"), MODULE, lambda: FAILING)
    with pytest.raises(Unusable) as refused:
        answer.apply(f"```javascript\n{SUMS.replace(LOOP, FIXED_LOOP)}```")
    assert refused.value.kind == Kind.REFUSED
