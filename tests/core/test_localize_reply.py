"""The localize stage's reading of a reply: the paths of its first fenced block, in linear time."""

from __future__ import annotations

from bot.core.localize import paths_in
from bot.judge import bounded


def test_the_first_fenced_blocks_paths_once_each_in_order():
    reply = "These:\n```text\n1. `pkg/a.py`\n- pkg/b.py\npkg/a.py\n```\nand\n```\nother.py\n```"
    assert paths_in(reply) == ["pkg/a.py", "pkg/b.py"]
    assert paths_in("pkg/a.py\n* pkg/c.py\n") == ["pkg/a.py", "pkg/c.py"]  # no fence: the whole reply
    assert paths_in("```\npkg/a.py") == ["pkg/a.py"]  # never closed: no block, the whole reply


def test_replies_built_to_take_quadratic_time_are_read_in_linear_time():
    """A regex retried at each of 1,000,000 backticks with no newline after them, and a list
    searched for each of 100,000 distinct lines: minutes each, inside C calls no deadline stops."""
    backticks = "`" * 1_000_000
    assert bounded.read(lambda: paths_in(backticks), deadline=5) == []  # backticks are taken off a path
    lines = "```\n" + "".join(f"p{n}.py\n" for n in range(100_000)) + "```"
    found = bounded.read(lambda: paths_in(lines), deadline=5)
    assert (len(found), found[0], found[-1]) == (100_000, "p0.py", "p99999.py")
