"""A work tree the model edits with SEARCH/REPLACE blocks (the format: bot/core/edits.py): the
paths it may touch, every file read without following a link, and the combined patch."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath
from typing import Literal

from bot import loadable, safefs
from bot.core.edits import EditError, file_diff, parse, substitute
from bot.spec import is_git_path, is_protected

NAME_MAX = 255  # bytes in one file name, on Linux's file systems
TEXT_CAP = 2 << 20  # bytes of one file autofix reads, shows or edits


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


@dataclass(frozen=True)
class Mark:
    """A work tree's edited files at one moment (None: not there), and what they were before any edit."""

    texts: dict[str, str | None]
    originals: dict[str, str | None]


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
        paths = [str(PurePosixPath(block.path)) for block in blocks]  # one spelling: "./a//b.py" is "a/b.py"
        creating = frozenset(path for block, path in zip(blocks, paths, strict=True) if not block.search)
        for number, (block, path) in enumerate(zip(blocks, paths, strict=True), 1):
            problem = self.refusal(path, creating)
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
            self.write(path, new_text or "")
        return sorted(current)

    def mark(self) -> Mark:
        """The tree as it is now, as far as edits changed it: what `restore` goes back to."""
        return Mark({path: self.read(path) for path in self.originals}, dict(self.originals))

    def restore(self, mark: Mark) -> None:
        """Every file edited since `mark` as it was then; a file added since is removed, and the
        folders it alone filled."""
        for path in sorted(set(self.originals) | set(mark.texts), reverse=True):
            text = mark.texts.get(path, self.originals.get(path))
            if text is None:
                safefs.remove_file(self.root, path, prune=True)
            elif self.read(path) != text:
                self.write(path, text)
        self.originals = dict(mark.originals)

    def write(self, path: str, text: str) -> None:
        """`text` as the file at `path`, reached folder by folder without following a link: the
        tree is a pull request's, and autofix writes it as root. `refusal` has looked already;
        this holds when what stands there changed since (EditError, naming the link)."""
        try:
            safefs.write_file(self.root, path, text.encode("utf-8"))
        except OSError as exc:
            why = f"{path}: not written: {exc.strerror}; autofix writes regular files only, never through a link"
            raise EditError([why]) from None

    def refusal(self, path: str, creating: frozenset[str] = frozenset()) -> str | None:
        """Why a reply may not write `path`; `creating`: the paths its blocks with an empty SEARCH
        make (an edit of a file that isn't there is told "no such file" instead)."""
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
        exists = self.look(path).kind != "missing"
        # Past the check above, an `edit` glob names the path: the repository asked for it.
        freed = bool(self.allowed)
        added = loadable.addition(
            path, lambda rel: self.look(rel).kind != "missing", creating.__contains__, freed, self.listed
        )
        if added and exists:
            return f"a file autofix never writes: {added}; fix the code under test instead"
        if added and path in creating:
            return (
                f"a file that may not be added: {added} (one the repository has may be edited); "
                "fix the code under test instead"
            )
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

    def listed(self, folder: str) -> list[str]:
        """The names in the tree's `folder`, reached without following a link; none when it can't be."""
        real = os.path.realpath(self.root / folder)
        if real != os.path.join(os.path.realpath(self.root), folder).rstrip("/").removesuffix("/."):
            return []
        try:
            return os.listdir(real)
        except OSError:
            return []

    def read(self, path: str) -> str | None:
        """The text of the file at `path`; None for anything else (missing, a link, binary, huge)."""
        return self.look(path).text

    @property
    def changed(self) -> list[str]:
        return sorted(path for path, before in self.originals.items() if self.read(path) != before)

    def patch(self) -> str:
        """The combined change since the start, as a unified diff `git apply` accepts."""
        return "".join(file_diff(path, self.originals[path], self.read(path)) for path in self.changed)
