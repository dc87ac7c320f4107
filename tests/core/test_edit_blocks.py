"""SEARCH/REPLACE blocks as models write them: inside fences or outside, several under one path
line, markers with a miscounted run; and the first malformed block told by its number, its line
and the line the model got wrong."""

from __future__ import annotations

import pytest

from bot.core.edits import Block, EditError, parse, substitute


def refusal(reply: str) -> list[str]:
    with pytest.raises(EditError) as caught:
        parse(reply)
    return caught.value.problems


def test_blocks_inside_and_outside_fences_and_a_second_block_under_the_same_path():
    reply = (
        "Two changes in `calc.py`.\n\n"
        "calc.py\n```python\n"
        "<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n"
        "<<<<<<<< SEARCH\ndef mul(a, b):\n=======\ndef mul(a, b):  # product\n>>>>>>>> REPLACE\n"
        "```\n\nAnd a new module:\n\n"
        "lib/util.py\n<<<<<<< SEARCH\n=======\nX = 1\n>>>>>>> REPLACE\n"
    )
    assert [(b.path, b.search, b.replace) for b in parse(reply)] == [
        ("calc.py", "    return a - b\n", "    return a + b\n"),
        ("calc.py", "def mul(a, b):\n", "def mul(a, b):  # product\n"),  # its path is the block's before
        ("lib/util.py", "", "X = 1\n"),
    ]


def test_the_first_malformed_block_is_told_by_its_number_its_line_and_where_the_reply_went_wrong():
    """A stray divider is no block: the unclosed one is block 2, and the fence that ended it is named."""
    reply = (
        "=======\n"
        "calc.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"
        "calc.py\n```python\n<<<<<<< SEARCH\ny = 1\n=======\ny = 2\n```\n"
        "calc.py\n<<<<<<< SEARCH\nz = 1\n=======\n"
    )
    assert refusal(reply) == [
        "line 1: '=======' outside a block (a block starts with '<<<<<<< SEARCH')",
        "block 2 (line 10): no '>>>>>>> REPLACE' line after its '=======' (line 12), before the "
        "'<<<<<<< SEARCH' at line 16; the code fence at line 14 comes first: end the block with "
        "'>>>>>>> REPLACE' before it",
    ]


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (
            "calc.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>REPLACE\n",
            "block 1 (line 2): no '>>>>>>> REPLACE' line after its '=======' (line 4), before the reply's end; "
            "line 6 holds '>>>>>>REPLACE': the marker is '>>>>>>> REPLACE', exactly, on a line of its own",
        ),
        (
            "calc.py\n<<<<<<< SEARCH\nx = 1\n======\nx = 2\n>>>>>>> REPLACE\n",
            "block 1 (line 2): no '=======' line after its '<<<<<<< SEARCH', before the '>>>>>>> REPLACE' at "
            "line 6; line 4 holds '======': the marker is '=======', exactly, on a line of its own",
        ),
    ],
    ids=["a REPLACE written wrong", "a divider one short"],
)
def test_the_line_meant_as_the_missing_marker_is_named(reply, problem):
    assert refusal(reply) == [problem]


# What Qwen2.5-Coder-1.5B sent against inflection's numbered view: no path line, and the view's
# gutter copied into both halves.
ORDINAL = 'def ordinal(number):\n    if number % 100 in (11, 12):\n        return "th"\n\n    return "st"\n'
NO_MATCH = "the SEARCH lines do not match the file exactly (compare them with its current content, whitespace included)"
NUMBERED_REPLY = (
    '```python\n<<<<<<< SEARCH\n   2 |     if number % 100 in (11, 12):\n   3 |         return "th"\n   4 |\n'
    '=======\n   2 |     if number % 100 in (11, 12, 13):\n   3 |         return "th"\n   4 | \n'
    ">>>>>>> REPLACE\n```\n"
)


def test_a_block_with_no_path_line_edits_the_one_target_and_the_gutter_copied_from_the_view_is_read_off():
    [block] = parse(NUMBERED_REPLY, "inflection/__init__.py")
    assert block.path == "inflection/__init__.py"
    assert substitute(ORDINAL, block) == (ORDINAL.replace("(11, 12)", "(11, 12, 13)"), None)
    assert refusal(NUMBERED_REPLY) == ["block 1 (line 2): no line with the file's path before '<<<<<<< SEARCH'"]


@pytest.mark.parametrize(
    ("search", "problem"),
    [
        # Numbered, but not where the numbers say: refused, not applied elsewhere.
        (
            '   3 |     if number % 100 in (11, 12):\n   4 |         return "th"\n',
            "the SEARCH lines, without their line numbers, match line 2, not line 3 as numbered",
        ),
        # Numbers that don't run on are no gutter: the lines stay as written, and match nothing.
        (
            '   2 |     if number % 100 in (11, 12):\n   9 |         return "th"\n',
            NO_MATCH,
        ),
        # A gutter on some lines only is no gutter either.
        (
            '   2 |     if number % 100 in (11, 12):\n        return "th"\n',
            NO_MATCH,
        ),
    ],
    ids=["numbers that name another line", "numbers that skip", "a gutter on one line"],
)
def test_a_gutter_is_read_off_only_when_its_numbers_run_on_and_name_the_lines_matched(search, problem):
    block = Block("m.py", search, "    pass\n")
    assert substitute(ORDINAL, block) == (ORDINAL, problem)


def test_replace_lines_keep_what_looks_like_a_gutter_unless_every_one_has_it():
    block = Block("m.py", '   3 |         return "th"\n', '        return "th"  # 11 | 12\n   4 | x = 1\n')
    assert substitute(ORDINAL, block)[0] == ORDINAL.replace(
        '        return "th"\n', '        return "th"  # 11 | 12\n   4 | x = 1\n'
    )
