"""A reviewer's ```suggestion block: the lines it proposes in place of the lines its thread is
anchored to, applied as written (GitHub's "Commit suggestion"), then judged like any change."""

from __future__ import annotations

import re

from bot.core.workspace import Workspace
from bot.github.review.threads import Thread

SUGGESTION = re.compile(r"^(?P<fence>`{3,}|~{3,})[ \t]*suggestion[ \t]*\n(?P<code>.*?)^(?P=fence)[ \t]*$", re.M | re.S)


def suggested(thread: Thread) -> str | None:
    """The suggestion of the thread's first comment (its author's), as the page shows it; None: none."""
    found = SUGGESTION.search(thread.comments[0].text) if thread.comments else None
    return found["code"] if found else None


def apply(work: Workspace, thread: Thread, code: str) -> str | None:
    """Put `code` in place of the thread's lines; why not, or None when applied."""
    span = thread.lines
    if span is None:
        return "the thread is anchored to no line of the file"
    refused = work.refusal(thread.path)
    if refused is not None:
        return f"{thread.path}: {refused}"
    text = work.read(thread.path)
    if text is None:
        return f"{thread.path}: no such file at the pull request's head"
    lines = text.splitlines(keepends=True)
    first, last = span
    if not 1 <= first <= last <= len(lines):
        return f"lines {first}-{last} are outside {thread.path} ({len(lines)} lines)"
    work.originals.setdefault(thread.path, text)
    work.write(thread.path, "".join(lines[: first - 1]) + code + "".join(lines[last:]))
    return None
