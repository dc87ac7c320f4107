"""Text cut to a budget, always with a visible mark where it was cut, and the budgets themselves.

Every prompt, feedback block, comment and summary autofix writes is bounded; the numbers live
here so one change moves every place that shares them.
"""

from __future__ import annotations

import re
from collections.abc import Callable

FEEDBACK_CHARS = 6_000  # of the failures one attempt shows: to the model, and in a pull request's log
REPLY_CHARS = 6_000  # of the model's previous reply, shown back to it
MESSAGE_CHARS = 400  # of one failing check's message
DETAIL_CHARS = 4_000  # of one test's traceback, kept for evidence and feedback
TRACEBACK_CHARS = 2_500  # of one failing test's traceback in red CI's evidence

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$", re.M)


def clip_head(text: str, limit: int) -> str:
    """The beginning of `text`, with a visible mark where the rest was cut."""
    if len(text) <= limit:
        return text
    mark = "\n[... {} characters cut ...]"
    kept = max(0, limit - len(mark) - 10)
    return text[:kept] + mark.format(len(text) - kept)


def clip_tail(text: str, limit: int) -> str:
    """The end of `text`, with a visible mark where the beginning was cut."""
    if len(text) <= limit:
        return text
    mark = "[... {} characters cut ...]\n"
    kept = max(0, limit - len(mark) - 10)
    return mark.format(len(text) - kept) + text[len(text) - kept :]


def clip_line(text: str, limit: int) -> str:
    """One line of text (a message, a quoted source line) within `limit`, ending in "..." when cut."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def capped_markdown(markdown: str, limit: int, why: str, size: Callable[[str], int] = len) -> str:
    """`markdown` within `limit` (as `size` measures it): cut after a whole line, with a visible
    mark saying `why` (mid-line only when a whole-line cut would lose more than half); a fence or
    `<details>` the cut leaves open is closed first, so the mark shows."""
    if size(markdown) <= limit:
        return markdown
    room = limit
    while room > 0:
        kept = longest_prefix(markdown, room, size)
        line_end = kept.rfind("\n") + 1
        kept, newline = (kept[:line_end], "") if line_end >= len(kept) // 2 else (kept, "\n")
        cut = f"**[... {len(markdown) - len(kept):,} characters cut: {why} ...]**"
        text = f"{kept}{newline}{closing(kept + newline)}\n{cut}\n"
        if size(text) <= limit:
            return text
        room -= size(text) - limit
    return ""  # not even the mark fits


def longest_prefix(text: str, room: int, size: Callable[[str], int]) -> str:
    """The longest start of `text` that `size` measures within `room`."""
    low, high = 0, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        low, high = (middle, high) if size(text[:middle]) <= room else (low, middle - 1)
    return text[:low]


def closing(markdown: str) -> str:
    """What closes the code fence and the `<details>` that `markdown`, cut, leaves open. A fence is
    closed by one of the same character at least as long, with nothing after it (CommonMark)."""
    fence_open: str | None = None
    details = 0
    for line in markdown.split("\n"):
        found = FENCE.match(line)
        if fence_open is not None:
            if found and found[1][0] == fence_open[0] and len(found[1]) >= len(fence_open) and not found[2].strip():
                fence_open = None
        elif found:
            fence_open = found[1]
        elif line.startswith("<details>"):
            details += 1
        elif line == "</details>":
            details -= 1
    return (f"{fence_open}\n" if fence_open else "") + "\n</details>\n" * details


def fence(text: str, info: str = "text") -> str:
    """`text` in a Markdown code block whose fence is longer than any backtick run inside it, so
    nothing in the text can close it."""
    longest = max((len(run) for run in re.findall(r"`{3,}", text)), default=2)
    ticks = "`" * (longest + 1)
    return f"{ticks}{info}\n{text.rstrip()}\n{ticks}"


def count(number: int, noun: str, nouns: str = "") -> str:
    """`1 attempt`, `2 attempts`: a number and its noun, agreeing (`nouns` for an irregular plural)."""
    return f"{number} {noun if number == 1 else nouns or noun + 's'}"
