"""One function or class asked for whole and put in place by its span: which unit the failures
point at, the splice (a method at its class's depth, decorators included, the rest of the file
as it was), and edit mode switching to it after two refused replies in a row, and only then."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.core.edit_file import EditFile
from bot.core.languages import PYTHON
from bot.core.protocol import Unusable
from bot.core.splice import NotSpliced, Unit, pointed_at, put_in, spliced, units
from bot.core.unit_prompt import request
from bot.spec import Spec

CODE = """\
import functools


def helper(x):
    def inner():
        return x
    return inner()


class Window:
    size = 2

    @functools.cache
    def sums(self, items):
        return [sum(items[i : i + self.size]) for i in range(len(items) - self.size)]

    def count(self, items):
        return len(self.sums(items))
"""
SUMS = Unit("sums", "Window.sums", "method", 13, 15, "    ")


def test_the_units_are_functions_classes_and_methods_with_their_decorators():
    assert units(CODE) == [
        Unit("helper", "helper", "function", 4, 7, ""),  # `inner` is part of it, not a unit
        Unit("Window", "Window", "class", 10, 18, ""),
        SUMS,
        Unit("count", "Window.count", "method", 17, 18, "    "),
    ]
    assert units("def broken(:\n") == []


@pytest.mark.parametrize(
    ("failures", "task", "unit"),
    [
        # The frames in the target: the innermost unit holding the most of them.
        ('File "pkg/win.py", line 18, in count\nFile "pkg/win.py", line 15, in sums\nIndexError', "", "Window.sums"),
        ("pkg/win.py:6: in inner\n    return x\nE   NameError", "", "helper"),
        # No frame in the target: the unit the failures name most, a test's name counting.
        (
            "tests/test_win.py:3: AssertionError\ntest_sums: assert Window().sums([1, 2, 3]) == [3, 5]",
            "",
            "Window.sums",
        ),
        # Nothing in the failures: the task's.
        ("tests/test_win.py:3: AssertionError", "count must count every window", "Window.count"),
    ],
)
def test_the_unit_the_failures_point_at(failures, task, unit):
    assert pointed_at(CODE, failures, "pkg/win.py", task).qualname == unit


def test_nothing_named_points_at_nothing():
    assert pointed_at(CODE, "tests/test_win.py:3: AssertionError", "pkg/win.py", "make it work") is None


def test_a_method_written_at_the_margin_goes_in_at_its_class_depth_and_nothing_else_changes():
    new = (
        "import math\n\n\n"
        "@functools.lru_cache(maxsize=None)\n"
        "def sums(self, items):\n"
        "    return [sum(items[i : i + self.size]) for i in range(len(items) - self.size + 1)]\n\n\n"
        "print(Window().sums([1, 2]))\n"
    )
    after = spliced(CODE, SUMS, new)
    lines, before = after.splitlines(), CODE.splitlines()
    assert lines[12:15] == [
        "    @functools.lru_cache(maxsize=None)",
        "    def sums(self, items):",
        "        return [sum(items[i : i + self.size]) for i in range(len(items) - self.size + 1)]",
    ]
    assert lines[:12] == before[:12] and lines[15:] == before[15:]  # the reply's import and print left out


@pytest.mark.parametrize(
    ("new", "reason"),
    [
        ("def count(self, items):\n    return 0\n", "the code in your reply does not define `sums`"),
        (
            "def sums(self, items):\n    return [\n",
            "the code in your reply does not parse: '[' was never closed (its line 2)",
        ),
    ],
)
def test_code_that_cannot_take_the_units_place_is_refused_with_the_reason(new, reason):
    with pytest.raises(NotSpliced) as caught:
        spliced(CODE, SUMS, new)
    assert str(caught.value) == reason


BROKEN_BLOCK = "pkg/win.py\n<<<<<<< SEARCH\n    size = 2\n=======\n    size = 3\n"  # never closed
MISSING_BLOCK = "pkg/win.py\n<<<<<<< SEARCH\n    size = 9\n=======\n    size = 3\n>>>>>>> REPLACE\n"  # no such line
GOOD_BLOCK = "pkg/win.py\n<<<<<<< SEARCH\n    size = 2\n=======\n    size = 2  # windows of two\n>>>>>>> REPLACE\n"
FAILING = 'pkg/win.py:15: in sums\nE   AssertionError\nFile "pkg/win.py", line 15, in sums'


def edit_file(tmp_path: Path, notes: list[str]) -> EditFile:
    spec = Spec.model_validate({"task": "sums of windows", "target": "pkg/win.py", "tests": {"command": "true"}})
    spec.workdir = tmp_path
    return EditFile(spec, PYTHON, CODE, lambda: FAILING, notes.append)


def test_two_refused_replies_in_a_row_ask_for_the_unit_and_its_reply_is_spliced(tmp_path):
    notes: list[str] = []
    answer = edit_file(tmp_path, notes)
    answer.first()
    for reply in (BROKEN_BLOCK, MISSING_BLOCK):
        with pytest.raises(Unusable) as refused:
            answer.apply(reply)
        messages = answer.next(refused.value.feedback)
    assert notes == [
        "asked for the method `Window.sums` instead of edit blocks, "
        "after 2 replies in a row whose edit blocks could not be applied"
    ]
    system, user = (m["content"] for m in messages)
    assert "Write no edit blocks." in system and "<<<<<<< SEARCH" not in system
    assert user.startswith("Task: sums of windows\nRewrite the method `Window.sums` of `pkg/win.py`, whole.")
    assert "## The method `Window.sums` now (lines 13-15 of `pkg/win.py`)" in user
    assert FAILING in user

    body = "        return [sum(items[i : i + self.size]) for i in range(len(items) - self.size + 1)]\n"
    candidate = answer.apply(f"```python\n    @functools.cache\n    def sums(self, items):\n{body}```")
    assert candidate.files["pkg/win.py"] == CODE.replace(CODE.splitlines(True)[14], body)
    assert candidate.diff.count("\n-    ") == candidate.diff.count("\n+    ") == 1
    answer.next("pkg/win.py:18: in count\nE   TypeError")  # the next failure, in another method
    assert answer.unit.qualname == "Window.count" and len(notes) == 1  # asked whole still; said once


def test_a_refusal_after_an_applied_edit_is_the_first_in_a_row_again(tmp_path):
    notes: list[str] = []
    answer = edit_file(tmp_path, notes)
    for reply in (BROKEN_BLOCK, GOOD_BLOCK, MISSING_BLOCK):
        try:
            answer.apply(reply)
        except Unusable as refused:
            messages = answer.next(refused.feedback)
        else:
            messages = answer.next("- test_win::test_sums: failed")
    assert notes == [] and answer.unit is None
    assert "<<<<<<< SEARCH" in messages[0]["content"]  # edit blocks are asked for still


def test_the_failures_shown_with_the_unit_are_cut_to_the_feedback_budget():
    spec = Spec.model_validate({"task": "t", "target": "pkg/win.py", "tests": {"command": "true"}})
    failing = "E   assert 1 == 2\n" * 1_000  # 18,000 characters
    user = request(spec, PYTHON, SUMS, CODE, failing, "")[1]["content"]
    kept = 6_000 - 38  # the budget, less the mark and its margin
    assert f"now\n\n{failing[:kept]}\n[... {17_999 - kept} characters cut ...]\n\n## The method" in user


# A reply with no edit block but whole definitions (what a 1.5B model sent for inflection's
# `ordinal`): they take the place of the file's.
WHOLE_DEFINITIONS = (
    "The fix counts the last window:\n\n```python\nimport math\n\n\n"
    "def helper(x):\n    return x + 1\n\n\n"
    "def extra(y):\n    return y\n\n\n"
    "class Window:\n    def count(self, items):\n        return len(self.sums(items)) + 0\n\n\n"
    "print(helper(1))\n```\n\nThat should pass."
)


def test_a_replys_definitions_take_the_place_of_the_files_and_the_rest_is_left_out_and_told():
    placed = put_in(CODE, WHOLE_DEFINITIONS)
    assert placed.placed == ["helper", "Window.count"]  # Window lacks `sums`: only its method goes in
    assert placed.text == CODE.replace(
        "def helper(x):\n    def inner():\n        return x\n    return inner()\n", "def helper(x):\n    return x + 1\n"
    ).replace("return len(self.sums(items))\n", "return len(self.sums(items)) + 0\n")
    assert placed.told() == (
        "Your reply had no edit blocks, so its definitions took the place of the file's: `helper`, `Window.count`. "
        "Not applied: `extra` (the file has no such definition), 2 other statements of the reply."
    )  # `import math` and the print; the file's own `import functools` would not count


def test_a_whole_class_replaces_the_class():
    whole = (
        "class Window:\n    size = 3\n\n    def sums(self, items):\n        return []\n\n"
        "    def count(self, items):\n        return 0\n"
    )
    placed = put_in(CODE, whole)
    assert placed.placed == ["Window"] and placed.left_out == []
    assert placed.text == CODE[: CODE.index("class Window")] + whole


@pytest.mark.parametrize(
    "reply",
    [
        "I would change the range in `sums`.",  # no code
        "```python\ndef unrelated():\n    pass\n```",  # nothing the file defines
        # a partial class of no member the file has
        "```python\nclass Window:\n    def other(self):\n        pass\n```",
    ],
)
def test_a_reply_that_defines_nothing_of_the_files_is_not_spliced(reply):
    with pytest.raises(NotSpliced) as caught:
        put_in(CODE, reply)
    assert (
        str(caught.value)
        == "the reply has no edit blocks, and its code defines none of the file's functions or classes"
    )


def test_edit_mode_takes_whole_definitions_without_counting_a_refusal_and_says_so(tmp_path):
    notes: list[str] = []
    answer = edit_file(tmp_path, notes)
    answer.first()
    candidate = answer.apply(WHOLE_DEFINITIONS)
    assert candidate.files["pkg/win.py"] == put_in(CODE, WHOLE_DEFINITIONS).text
    assert notes == [
        "the reply had no edit blocks: its definitions of `helper` and `Window.count` took the place of the file's"
    ]
    user = answer.next("- test_win::test_sums: failed")[1]["content"]
    assert (
        "## What came of it\n\nYour reply had no edit blocks, so its definitions took the place of the file's:" in user
    )
    assert answer.refusals == 0 and answer.failing == "- test_win::test_sums: failed"
    with pytest.raises(Unusable):  # two refused in a row after it still switch
        answer.apply(BROKEN_BLOCK)
    answer.next("refused")
    with pytest.raises(Unusable):
        answer.apply(MISSING_BLOCK)
    assert answer.refusals == 2


def test_a_reply_that_begins_an_edit_block_is_refused_though_it_also_defines_the_function(tmp_path):
    answer = edit_file(tmp_path, [])
    with pytest.raises(Unusable) as refused:
        answer.apply(f"{BROKEN_BLOCK}\n```python\ndef helper(x):\n    return 1\n```\n")
    assert "no '>>>>>>> REPLACE' line" in refused.value.feedback and answer.refusals == 1


def test_an_edit_that_adds_a_call_of_the_models_own_test_is_kept_without_it_and_told(tmp_path):
    notes: list[str] = []
    answer = edit_file(tmp_path, notes)
    own = "import functools\n\n\ndef test_it():\n    assert helper(1) == 2\n"
    reply = f"pkg/win.py\n<<<<<<< SEARCH\nimport functools\n=======\n{own}\n\ntest_it()\n>>>>>>> REPLACE\n"
    candidate = answer.apply(reply)
    # Its test function goes too (#45): the file keeps only the import the edit wrote.
    assert candidate.files["pkg/win.py"] == CODE
    assert notes == ["left out of `pkg/win.py`: lines 4-5, 8 of the reply's code, which defined or ran its own tests"]
    assert "### lines of your code left out" in answer.next("- test_win::test_sums: failed")[1]["content"]
