"""Search/replace edits over repository files, parsed and applied strictly.

The model answers in the format coding models already know:

    path/to/file.py
    <<<<<<< SEARCH
    the exact current lines
    =======
    the new lines
    >>>>>>> REPLACE

Blocks may stand inside code fences or outside them; a block without a path line of its own edits
the file of the block before it (or, for the first, the one file an edit of a single target may
change). A malformed block stops the reading, and its refusal names the
block by its number and line, the marker missing, where the reading stopped, and the line that
was likely meant as the marker.

A SEARCH must match whole lines of the file exactly and in exactly one place; an empty SEARCH
creates a new file. A reply is applied all or nothing: one refused block (a protected path, a
SEARCH that doesn't match) leaves every file as it was, and the refusal goes back to the model.
Nothing is ever matched approximately: a near miss that got applied could change code nobody
asked to change.

One transformation is made, and checked: SEARCH lines copied with the gutter autofix numbers the
file with (`  12 | x = 1`) are read without it when every SEARCH line has it, their numbers run
on, and the lines then match exactly where those numbers say; REPLACE lines lose the gutter when
each has one. The numbers make the match surer, not looser.

A reply is read under bot/judge/bounded.py's bounds, and in linear time: at most MAX_BLOCKS
blocks are applied, at most MAX_PROBLEMS problems told, each SEARCH found by str.find.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from bot.judge import bounded
from bot.text import REPLY_CHARS, clip_line, clip_tail, fence

SEARCH, DIVIDER, REPLACE = "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE"
FENCE = re.compile(r"^\s*(```|~~~)")
MARKER = re.compile(r"(<{5,9} SEARCH)|>{5,9} REPLACE")
# Lines that were meant as the marker missing: what a block's refusal points at.
NEAR_MISS = {DIVIDER: re.compile(r"^={3,}|^-{5,}$"), REPLACE: re.compile(r"REPLACE|^>{3,}|^<{5,}", re.I)}
GUTTER = re.compile(r"^ *(\d+) \|(?: |$)")  # bot/core/source.py's numbering, `  12 | `, as a model copies it
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


def parse(reply: str, default_path: str | None = None) -> list[Block]:
    """The reply's blocks; `default_path` is the file a block edits when no path line comes before
    it or any block before it (edit mode's one target)."""
    try:
        return bounded.read(lambda: blocks_in(reply, default_path))
    except EditError:
        raise
    except bounded.Unreadable as exc:
        raise EditError([f"the reply could not be read: {exc.reason}"]) from None


def blocks_in(reply: str, default_path: str | None = None) -> list[Block]:
    try:
        bounded.checked(reply, "the reply")
    except bounded.Unreadable as exc:
        raise EditError([exc.reason]) from None
    lines = reply.replace("\r\n", "\n").split("\n")
    blocks: list[Block] = []
    problems: list[str] = []
    start = 0  # where the text that may hold the next block's path begins
    number, path = 0, default_path  # the blocks begun so far; the last block's path
    i = 0
    while i < len(lines):
        if marker(lines[i]) != SEARCH:
            if marker(lines[i]):
                problems.append(f"line {i + 1}: {lines[i].strip()!r} outside a block (a block starts with {SEARCH!r})")
            i += 1
            continue
        number += 1
        path = path_before(lines[start:i]) or path  # a block without a path line edits the last block's file
        divider, stop = index_of(lines, DIVIDER, i + 1, (SEARCH, REPLACE))
        end, stop = index_of(lines, REPLACE, divider + 1, (SEARCH,)) if divider is not None else (None, stop)
        if divider is None or end is None:
            missing, after = (DIVIDER, i) if divider is None else (REPLACE, divider)
            problems.append(f"block {number} (line {i + 1}): {unclosed(lines, after, stop, missing)}")
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


def marker(line: str) -> str | None:
    """The marker `line` is (SEARCH, DIVIDER, REPLACE), or None. A SEARCH's or REPLACE's run of
    angle brackets may be 5 to 9 long, as models miscount it; its word makes it unmistakable. The
    divider stays exact: a run of '=' underlines headings in docstrings."""
    text = line.strip()
    if text == DIVIDER:
        return DIVIDER
    found = MARKER.fullmatch(text)
    return (SEARCH if found[1] else REPLACE) if found else None


def unclosed(lines: list[str], after: int, stop: int, missing: str) -> str:
    """Why a block is not closed, and where the reading stopped: what the model needs to find the
    line it got wrong. The `missing` marker was looked for after line `after`, up to `stop`."""
    since = f"its {SEARCH!r}" if missing == DIVIDER else f"its {DIVIDER!r} (line {after + 1})"
    where = f"the {marker(lines[stop])!r} at line {stop + 1}" if stop < len(lines) else "the reply's end"
    said = f"no {missing!r} line after {since}, before {where}"
    for j in range(after + 1, stop):
        text = lines[j].strip()
        if NEAR_MISS[missing].search(text):
            meant = clip_line(text, 40)
            return f"{said}; line {j + 1} holds {meant!r}: the marker is {missing!r}, exactly, on a line of its own"
    for j in range(after + 1, stop):
        if missing == REPLACE and FENCE.match(lines[j]):
            return f"{said}; the code fence at line {j + 1} comes first: end the block with {REPLACE!r} before it"
    return said


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


def index_of(lines: list[str], wanted: str, begin: int, stops: tuple[str, ...]) -> tuple[int | None, int]:
    """(the first line from `begin` that is the marker `wanted`, or None; the line the search
    stopped at: that one, one of the markers `stops` (out of order, so the block was never
    closed), or the end)."""
    for j in range(begin, len(lines)):
        found = marker(lines[j])
        if found == wanted:
            return j, j
        if found in stops:
            return None, j
    return None, len(lines)


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
    if not found and (numbered := without_gutter(block)) is not None:
        block, line = numbered
        found = line_starts(body, block.search, MAX_PLACES)
        at = body.count("\n", 0, found[0]) + 1 if len(found) == 1 else line
        if at != line:
            return text, f"the SEARCH lines, without their line numbers, match line {at}, not line {line} as numbered"
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


def without_gutter(block: Block) -> tuple[Block, int] | None:
    """The block read without the numbered view's gutter, and the line its SEARCH's numbers say it
    starts at; None unless every SEARCH line has the gutter and the numbers run on by one."""
    search = [GUTTER.match(line) for line in block.search.splitlines()]
    if not search or not all(search):
        return None
    numbers = [int(match[1]) for match in search if match]
    if numbers != list(range(numbers[0], numbers[0] + len(numbers))):
        return None
    replace = block.replace.splitlines()
    marks = [GUTTER.match(line) for line in replace]
    if all(marks):
        replace = [line[match.end() :] for line, match in zip(replace, marks, strict=True) if match]
    text = [line[match.end() :] for line, match in zip(block.search.splitlines(), search, strict=True) if match]
    return Block(block.path, joined(text), joined(replace)), numbers[0]


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
