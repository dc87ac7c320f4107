"""The shared ways of reading a change (bot/lang/base.py)."""

from bot.lang.base import changed_lines


def helpers(count: int) -> list[str]:
    return [line for i in range(count) for line in (f"def helper_{i}(x):", "    y = x + 1", "    return y", "")]


def test_the_lines_a_change_wrote_are_found_in_a_long_file_of_look_alike_lines():
    before = helpers(1500)
    after = [*before[:3000], "# added", "ADDED = 1", *before[3000:]]
    after[41] = "    y = x + 2"
    after[-2] = "    return -y"
    assert changed_lines("\n".join(before), "\n".join(after)) == {42, 3001, 3002, len(after) - 1}


def test_a_change_at_either_end_or_of_nothing():
    assert changed_lines("a\nb\n", "a\nb\n") == set()
    assert changed_lines("a\nb\n", "x\na\nb\n") == {1}
    assert changed_lines("a\nb\n", "a\nb\nc\n") == {3}
    assert changed_lines("a\na\n", "a\n") == set()
    assert changed_lines("", "a\n") == {1}
