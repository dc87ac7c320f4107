"""SEARCH/REPLACE blocks as models write them: inside fences or outside, several under one path
line, markers with a miscounted run; and the first malformed block told by its number, its line
and the line the model got wrong."""

from __future__ import annotations

import pytest

from bot.core.edits import EditError, parse


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
