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
"""

from __future__ import annotations

import difflib
import os
import re
import stat
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath
from typing import Literal

from bot import safefs
from bot.github.git import is_git_path
from bot.spec import is_protected

SEARCH, DIVIDER, REPLACE = "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE"
FENCE = re.compile(r"^\s*(```|~~~)")
PATH_DECORATION = "`*#: \t"  # what models wrap a path line in: `x.py`, **x.py**, # x.py, x.py:
NAME_MAX = 255  # bytes in one file name, on Linux's file systems
TEXT_CAP = 2 << 20  # bytes of one file autofix reads, shows or edits

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


class EditError(Exception):
    """The reply could not be applied; `problems` says why, one line each."""

    def __init__(self, problems: list[str]):
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Block:
    path: str
    search: str  # "" creates a file
    replace: str


def parse(reply: str) -> list[Block]:
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
    if problems:
        raise EditError(problems)
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


@dataclass(frozen=True)
class Entry:
    """What a path of a work tree is, found without following a symbolic link."""

    kind: Literal["missing", "text", "binary", "large", "link", "other"]
    text: str | None = None  # a text file's content
    link: str | None = None  # the link met on the way, as `ls -l` shows it: "notes.txt -> /proc/self/environ"


def look(root: Path, relpath: str) -> Entry:
    """`relpath` inside `root`, each folder opened relative to the one before it and never
    through a link: what a pull request or a model put there can't make autofix read elsewhere
    (`notes.txt -> /proc/self/environ` is shown as that link). A file that is not UTF-8 text, or
    holds a NUL byte, is "binary"; one over TEXT_CAP is "large"; neither is returned."""
    parts = PurePosixPath(relpath).parts
    if not parts or PurePosixPath(relpath).is_absolute() or ".." in parts:
        return Entry("missing")
    folder = os.open(root, safefs.DIR_FLAGS)
    try:
        for depth, name in enumerate(parts, 1):
            try:
                mode = os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode
            except (OSError, ValueError):  # nothing there, or a name no file can have (too long, a NUL in it)
                return Entry("missing")
            if stat.S_ISLNK(mode):
                return Entry("link", link=f"{'/'.join(parts[:depth])} -> {os.readlink(name, dir_fd=folder)}")
            if depth == len(parts):
                break
            if not stat.S_ISDIR(mode):  # a file stands where a folder of the path would be
                return Entry("other")
            inner = os.open(name, safefs.DIR_FLAGS, dir_fd=folder)
            os.close(folder)
            folder = inner
        data = safefs.read_regular((folder, name), TEXT_CAP + 1)
    finally:
        os.close(folder)
    if data is None:  # a folder, FIFO, socket or device: never opened
        return Entry("other")
    if len(data) > TEXT_CAP:
        return Entry("large")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Entry("binary")
    return Entry("binary") if "\0" in text else Entry("text", text=text)


@dataclass
class Workspace:
    """A folder the model edits, with the original content of every file it changed, so the
    combined patch can be shown at any time."""

    root: Path
    protected: tuple[str, ...]
    allowed: tuple[str, ...] = ()  # globs of editable paths; empty: any unprotected path
    originals: dict[str, str | None] = field(default_factory=dict)  # None: the file is new

    def apply(self, reply: str) -> list[str]:
        """Apply every block of `reply`, or none (EditError): the paths changed."""
        blocks = parse(reply)
        current: dict[str, str | None] = {}
        problems = []
        for number, block in enumerate(blocks, 1):
            path = str(PurePosixPath(block.path))  # one spelling: "./a//b.py" is "a/b.py"
            problem = self.refusal(path)
            if problem is None:
                if path not in current:
                    current[path] = self.read(path)
                text, problem = substitute(current[path], block)
                if problem is None:
                    current[path] = text
            if problem:
                problems.append(f"block {number} ({block.path}): {problem}")
        for path in current:  # else one write would find a file where it needs a folder
            clash = next((str(folder) for folder in PurePosixPath(path).parents if str(folder) in current), None)
            if clash is not None:
                problems.append(f"{path}: its folder {clash} is a file this reply writes")
        if problems:
            raise EditError(problems)
        for path, new_text in current.items():
            self.originals.setdefault(path, self.read(path))
            target = self.root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(new_text or "", encoding="utf-8")
        return sorted(current)

    def refusal(self, path: str) -> str | None:
        relative = PurePosixPath(path)
        if relative.is_absolute() or ".." in relative.parts or not relative.parts:
            return "the path must be relative to the repository's root, without '..'"
        if "\0" in path or any(len(os.fsencode(part)) > NAME_MAX for part in relative.parts):
            return "not a name a file can have (a NUL in it, or a name longer than 255 bytes)"
        if is_git_path(path):
            return "a path in .git, git's own folder, which autofix never edits; fix the code under test instead"
        if is_protected(path, self.protected, self.allowed):
            return "a protected path (tests and CI configuration can't be edited); fix the code under test instead"
        if self.allowed and not any(fnmatch(path, pattern) for pattern in self.allowed):
            return f"not among the paths the repository lets autofix edit ({', '.join(self.allowed)})"
        kind = self.look(path).kind
        if kind == "link":
            return "the path goes through a symbolic link; edit the file it points to"
        if kind == "binary":
            return "a binary file (not UTF-8 text); autofix edits text files only"
        if kind == "large":
            return f"a file over {TEXT_CAP >> 20} MiB; autofix edits smaller files only"
        if kind == "other":
            return "not a regular file, or a folder on its way is not a folder"
        return None

    def look(self, path: str) -> Entry:
        return look(self.root, path)

    def read(self, path: str) -> str | None:
        """The text of the file at `path`; None for anything else (missing, a link, binary, huge)."""
        return self.look(path).text

    @property
    def changed(self) -> list[str]:
        return sorted(path for path, before in self.originals.items() if self.read(path) != before)

    def patch(self) -> str:
        """The combined change since the start, as a unified diff `git apply` accepts."""
        return "".join(file_diff(path, self.originals[path], self.read(path)) for path in self.changed)


def substitute(text: str | None, block: Block) -> tuple[str, str | None]:
    """(the new text, None) or (unchanged, why not)."""
    if not block.search:
        if text is not None:
            return "", "an empty SEARCH creates a new file, but the file exists: quote the lines to replace"
        return block.replace, None
    if text is None:
        return "", "no such file (an empty SEARCH creates one)"
    body = text if text.endswith("\n") or not text else text + "\n"
    # A lookahead, so that overlapping occurrences count too: "x\nx\n" is in "x\nx\nx\n" twice.
    found = [
        m.start()
        for m in re.finditer(f"(?={re.escape(block.search)})", body)
        if m.start() == 0 or body[m.start() - 1] == "\n"
    ]
    if not found:
        return (
            text,
            "the SEARCH lines do not match the file exactly "
            "(compare them with its current content, whitespace included)",
        )
    if len(found) > 1:
        return text, f"the SEARCH lines match {len(found)} places; add surrounding lines so they match one"
    at = found[0]
    new = body[:at] + block.replace + body[at + len(block.search) :]
    return (new if text.endswith("\n") or not new.endswith("\n") else new[:-1]), None


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
