"""Search/replace edits over repository files, parsed and applied strictly.

The model answers in the format coding models already know:

    path/to/file.py
    <<<<<<< SEARCH
    the exact current lines
    =======
    the new lines
    >>>>>>> REPLACE

A SEARCH must match whole lines of the file exactly and in exactly one place; an empty SEARCH
creates a new file. A reply is applied all or nothing: one refused block (a protected path, a
SEARCH that doesn't match) leaves every file as it was, and the refusal goes back to the model.
Nothing is ever matched approximately: a near miss that got applied could change code nobody
asked to change.

A reply is read under bot/judge/bounded.py's bounds, and in linear time: at most MAX_BLOCKS
blocks are applied, at most MAX_PROBLEMS problems told, each SEARCH found by str.find.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from bot.judge import bounded
from bot.text import REPLY_CHARS, clip_tail, fence

SEARCH, DIVIDER, REPLACE = "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE"
FENCE = re.compile(r"^\s*(```|~~~)")
PATH_DECORATION = "`*#: \t"  # what models wrap a path line in: `x.py`, **x.py**, # x.py, x.py:
MAX_BLOCKS = 100  # each is matched against a whole file: a reply of 100,000 would be as many scans
MAX_PROBLEMS = 20  # told one by one; the rest counted
MAX_PLACES = 10  # a SEARCH's matches counted: past one it is refused anyway

FORMAT_HELP = f"""\
Answer with one or more edit blocks. Each block is: a line holding the file's path relative to \
the repository's root, then

{SEARCH}
the exact lines the file holds now, including indentation and blank lines
{DIVIDER}
the lines that replace them
{REPLACE}

The SEARCH lines must match the current file exactly and in exactly one place (add surrounding \
lines to make it unique); nothing is matched approximately. An empty SEARCH creates a new file. \
Line numbers shown in this message are not part of the files. Use several blocks for several \
places or files. If any block cannot be applied, none is, and you are told why."""


class EditError(bounded.Unreadable):
    """The reply could not be applied; `problems` says why, one line each."""

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems


def after_reply(reply: str, feedback: str) -> str:
    """The previous reply (its end, fenced) and what came of it, for the next edit prompt."""
    return f"## Your previous reply\n\n{fence(clip_tail(reply, REPLY_CHARS))}\n\n## What came of it\n\n{feedback}"


def refused(problems: list[str]) -> str:
    """What the model is told when its reply's edits could not be applied."""
    return "Your edits were refused, so no file was changed:\n" + "\n".join(f"- {p}" for p in problems)


@dataclass(frozen=True)
class Block:
    path: str
    search: str  # "" creates a file
    replace: str


def parse(reply: str) -> list[Block]:
    try:
        return bounded.read(lambda: blocks_in(reply))
    except EditError:
        raise
    except bounded.Unreadable as exc:
        raise EditError([f"the reply could not be read: {exc.reason}"]) from None


def blocks_in(reply: str) -> list[Block]:
    try:
        bounded.checked(reply, "the reply")
    except bounded.Unreadable as exc:
        raise EditError([exc.reason]) from None
    lines = reply.replace("\r\n", "\n").split("\n")
    blocks: list[Block] = []
    problems: list[str] = []
    start = 0  # where the text that may hold the next block's path begins
    i = 0
    while i < len(lines):
        if lines[i].strip() != SEARCH:
            if lines[i].strip() in (DIVIDER, REPLACE):
                problems.append(f"line {i + 1}: {lines[i].strip()!r} outside a block (a block starts with {SEARCH!r})")
            i += 1
            continue
        number = len(blocks) + len(problems) + 1
        path = path_before(lines[start:i])
        divider = index_of(lines, DIVIDER, i + 1, stop=SEARCH)
        end = index_of(lines, REPLACE, (divider or i) + 1, stop=SEARCH)
        if divider is None or end is None:
            missing = DIVIDER if divider is None else REPLACE
            problems.append(f"block {number} (line {i + 1}): no {missing!r} line closes it")
            break  # what follows can't be told apart from the unclosed block's lines
        if path is None:
            problems.append(f"block {number} (line {i + 1}): no line with the file's path before {SEARCH!r}")
        else:
            blocks.append(Block(path, joined(lines[i + 1 : divider]), joined(lines[divider + 1 : end])))
        i = start = end + 1
    if len(problems) > MAX_PROBLEMS:
        problems = [*problems[:MAX_PROBLEMS], f"and {len(problems) - MAX_PROBLEMS:,} more problems"]
    if problems:
        raise EditError(problems)
    if len(blocks) > MAX_BLOCKS:
        raise EditError([f"the reply has {len(blocks):,} edit blocks; at most {MAX_BLOCKS} are applied at once"])
    if not blocks:
        raise EditError([f"no edit blocks found: the reply has no {SEARCH!r} ... {REPLACE!r} block"])
    return blocks


def path_before(lines: list[str]) -> str | None:
    """The last non-empty line before the block that is not a code fence, undecorated."""
    for line in reversed(lines):
        if not line.strip():
            continue
        if FENCE.match(line):
            continue
        path = line.strip().strip(PATH_DECORATION)
        return path or None
    return None


def index_of(lines: list[str], marker: str, begin: int, stop: str) -> int | None:
    for j in range(begin, len(lines)):
        text = lines[j].strip()
        if text == marker:
            return j
        if text == stop:  # the next block began: this one was never closed
            return None
    return None


def joined(lines: list[str]) -> str:
    return "".join(line + "\n" for line in lines)


def substitute(text: str | None, block: Block) -> tuple[str, str | None]:
    """(the new text, None) or (unchanged, why not)."""
    if not block.search:
        if text is not None:
            return "", "an empty SEARCH creates a new file, but the file exists: quote the lines to replace"
        return block.replace, None
    if text is None:
        return "", "no such file (an empty SEARCH creates one)"
    body = text if text.endswith("\n") or not text else text + "\n"
    found = line_starts(body, block.search, MAX_PLACES)
    if not found:
        return (
            text,
            "the SEARCH lines do not match the file exactly "
            "(compare them with its current content, whitespace included)",
        )
    if len(found) > 1:
        places = f"{len(found)}" if len(found) < MAX_PLACES else f"{MAX_PLACES} or more"
        return text, f"the SEARCH lines match {places} places; add surrounding lines so they match one"
    at = found[0]
    new = body[:at] + block.replace + body[at + len(block.search) :]
    return (new if text.endswith("\n") or not new.endswith("\n") else new[:-1]), None


def line_starts(body: str, search: str, limit: int) -> list[int]:
    """Where `search` starts a line of `body`, overlapping occurrences too ("x\nx\n" is in
    "x\nx\nx\n" twice), the first `limit` of them. str.find runs in linear time; a regex
    lookahead tried at every offset took the file's length times the SEARCH's."""
    found: list[int] = []
    needle, haystack = "\n" + search, "\n" + body  # a line start is just after a newline
    at = haystack.find(needle)
    while at >= 0 and len(found) < limit:
        found.append(at)
        at = haystack.find(needle, at + 1)
    return found


def file_diff(path: str, before: str | None, after: str | None) -> str:
    old = (before or "").splitlines(keepends=True)
    new = (after or "").splitlines(keepends=True)
    lines = list(difflib.unified_diff(old, new, "/dev/null" if before is None else f"a/{path}", f"b/{path}"))
    out = [f"diff --git a/{path} b/{path}\n"]
    if before is None:
        out.append("new file mode 100644\n")
    for line in lines:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)
