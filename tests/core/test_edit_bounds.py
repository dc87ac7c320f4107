"""SEARCH/REPLACE replies built to take autofix's time or crash it: each is refused with its
reason, in time linear in the reply and the file."""

from __future__ import annotations

import pytest

from bot.core.edits import Block, EditError, parse, substitute
from bot.judge import bounded

BLOCK = "a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"


def refusal(reply: str) -> list[str]:
    with pytest.raises(EditError) as caught:
        parse(reply)
    return caught.value.problems


def test_a_hundred_thousand_stray_markers_are_told_twenty_and_counted():
    problems = refusal("=======\n" * 100_000)
    assert problems[:2] == [
        "line 1: '=======' outside a block (a block starts with '<<<<<<< SEARCH')",
        "line 2: '=======' outside a block (a block starts with '<<<<<<< SEARCH')",
    ]
    assert problems[20:] == ["and 99,980 more problems"]
    assert len(problems) == 21


def test_past_a_hundred_blocks_none_is_applied():
    assert refusal(BLOCK * 101) == ["the reply has 101 edit blocks; at most 100 are applied at once"]
    assert len(parse(BLOCK * 100)) == 100


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (BLOCK.replace("x = 2", "x = 2\0"), "the reply holds a NUL character (line 5), which no source text holds"),
        (
            BLOCK.replace("x = 2", "x = '\ud800'"),
            "the reply holds a lone surrogate (line 5), which is not a Unicode character",
        ),
        (BLOCK + "#" * 1_000_000, "the reply is 1,000,056 characters long; at most 1,000,000 are read"),
    ],
)
def test_a_reply_no_file_could_hold_is_refused_with_the_reason(reply, reason):
    assert refusal(reply) == [reason]


def test_a_long_search_in_a_repetitive_file_is_found_in_linear_time():
    """A regex lookahead tried at every offset compared up to the whole SEARCH at each: 200,000
    lines by a SEARCH of 50,000 ran for minutes, one C call the deadline can't stop."""
    text = "a\n" * 200_000
    block = Block("a.py", "a\n" * 50_000 + "b\n", "")
    problem = (
        "the SEARCH lines do not match the file exactly (compare them with its current content, whitespace included)"
    )
    assert bounded.read(lambda: substitute(text, block), deadline=5) == (text, problem)


def test_overlapping_matches_count_and_the_count_stops_at_ten():
    assert substitute("x\nx\nx\n", Block("a.py", "x\nx\n", "y\n"))[1] == (
        "the SEARCH lines match 2 places; add surrounding lines so they match one"
    )
    assert substitute("x\n" * 1000, Block("a.py", "x\n", "y\n"))[1] == (
        "the SEARCH lines match 10 or more places; add surrounding lines so they match one"
    )
    assert substitute("yx\nx\n", Block("a.py", "x\n", "z\n")) == ("yx\nz\n", None)  # only at a line's start
