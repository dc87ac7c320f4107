"""Test integrity: the candidate may not touch protected paths, and pytest must run the whole suite.

A model under pressure edits tests, adds a conftest.py, skips tests or exits early with status 0.
Each of those leaves a trace here: a protected file that changed, a test that vanished or turned
into a skip, or no verdict from autofix's pytest plugin at all (bot/judge/verdict.py).
"""

from __future__ import annotations

import ast
import hashlib
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from bot import safefs, syntax
from bot.spec import CACHES, compiled

IGNORED_DIRS = {".git", "__pycache__", ".pytest_cache"}  # never copied into a scratch folder, never compared
# A protected file larger than this is known by its size and mtime, not read: hashing what the
# candidate can grow (a sparse file costs it nothing) would cost autofix what the candidate likes.
# Not by its inode: a file copied back into a scratch copy has a new one, and keeps its mtime.
HASH_CAP = 64 * 2**20
SOURCE_CAP = 16 * 2**20  # of a test module read for its test names
CONTENT = "sha256 "  # how the digest of a regular file's content begins
KINDS = {
    stat.S_IFDIR: "a folder",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
}


class Protection:
    """Which paths snapshot() digests: those `protected` covers (a folder protects what it
    holds), unless one of their components is among the IGNORED_DIRS, the CACHES or the
    `exempt` paths."""

    def __init__(self, protected: tuple[str, ...], exempt: tuple[str, ...] = ()):
        self.guard = compiled(tuple(protected))
        self.skip = compiled((*IGNORED_DIRS, *CACHES, *exempt))

    def covers(self, rel: str) -> bool:
        covered = False
        for depth, name in enumerate(parts := rel.split("/")):
            path = "/".join(parts[: depth + 1])
            if self.skip.match(name, path):
                return False
            covered = covered or self.guard.match(name, path)
        return covered

    def skipped(self, rel: str) -> bool:
        parts = rel.split("/")
        return any(self.skip.match(name, "/".join(parts[: depth + 1])) for depth, name in enumerate(parts))


def snapshot(
    root: safefs.Where, protected: tuple[str, ...], exempt: tuple[str, ...] = (), under: str = ""
) -> dict[str, str]:
    """Digest of every protected entry under root, by its path. Caches (CACHES), the
    IGNORED_DIRS and the `exempt` paths are left out, with everything in them. Never follows
    a link, never opens what isn't a regular file, never reads one past HASH_CAP. `under`: where
    root lies in the folder the patterns speak of ('': root is that folder)."""
    rules = Protection(protected, exempt)
    if under and rules.skipped(under):
        return {}
    inside_protected = bool(under) and rules.covers(under)
    found: dict[str, str] = {}
    for folder in safefs.walk(root):
        if folder.fd is None:  # it couldn't be opened, so it lists no entries to digest
            continue
        here = joined(under, folder.rel)
        # a protected folder protects what it holds
        inherited = here in found or (folder.depth == 0 and inside_protected)
        kept = []
        for entry in folder.entries:
            rel = joined(here, entry.name)
            if rules.skip.match(entry.name, rel):
                continue
            kept.append(entry)
            if inherited or rules.guard.match(entry.name, rel):
                found[rel] = digest(folder.fd, entry.name)
        folder.entries = kept  # the walk stays out of skipped folders
    return found


def joined(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder and name else folder or name


def digest(folder_fd: int, name: str) -> str:
    """The hash of a regular file's content; what anything else is."""
    try:
        info = os.stat(name, dir_fd=folder_fd, follow_symlinks=False)
        if stat.S_ISLNK(info.st_mode):
            return f"a symlink to {os.readlink(name, dir_fd=folder_fd)}"
    except OSError as exc:
        return f"unreadable ({exc.strerror})"
    if not stat.S_ISREG(info.st_mode):
        return KINDS[stat.S_IFMT(info.st_mode)]
    if info.st_size > HASH_CAP:
        return f"a file of {info.st_size} bytes, too large to hash (mtime {info.st_mtime_ns})"
    content = safefs.read_regular((folder_fd, name), HASH_CAP)
    return "an unreadable file" if content is None else CONTENT + hashlib.sha256(content).hexdigest()


def tampering(before: dict[str, str], after: dict[str, str]) -> list[tuple[str, str]]:
    """(path, what happened) for each protected path the run changed, added or removed; the
    paths and what they are now are printable (names that aren't UTF-8 come escaped)."""
    changes = []
    for rel in sorted(before.keys() | after.keys()):
        if rel not in after:
            change = "removed"
        elif rel not in before:
            change = "created"
        elif before[rel] == after[rel]:
            continue
        else:
            now = "" if after[rel].startswith(CONTENT) else f" (now {safefs.shown(after[rel])})"
            change = f"modified{now}"
        changes.append((safefs.shown(rel), change))
    return changes


@dataclass
class Case:
    test_id: str
    outcome: str  # passed | failed | error | skipped
    message: str = ""  # the first line of what went wrong
    details: str = ""  # the traceback, or the output
    # The failing assertion's operands as pytest's plugin saw them: (op, left, right), reprs
    compared: tuple[str, str, str] | None = None
    params: tuple[tuple[str, str], ...] = ()  # a parametrized test's parameters: (name, repr)


@dataclass
class OriginalSuite:
    """What the original suite holds: its test ids, those it skips, and the test names of
    modules that failed to import (typically because the target doesn't exist yet)."""

    ids: set[str] = field(default_factory=set)
    skipped: set[str] = field(default_factory=set)
    required_names: dict[str, set[str]] = field(default_factory=dict)  # module -> test names

    @classmethod
    def from_cases(
        cls, cases: list[Case], workdir: Path, declared: Callable[[str], set[str]] | None = None
    ) -> OriginalSuite:
        """`declared`: for a JavaScript suite, the names of the tests a file that failed to load
        (its id `file::`) declares (bot/judge/js/expected.py); each must run."""
        baseline = cls()
        for case in cases:
            if case.outcome == "error" and "::" not in case.test_id:
                baseline.required_names[case.test_id] = defined_tests(
                    workdir / (case.test_id.replace(".", "/") + ".py")
                )
            elif declared is not None and case.outcome == "error" and case.test_id.endswith("::"):
                module = case.test_id[:-2]
                baseline.required_names[module] = set()  # some test of it must run
                baseline.ids |= {f"{module}::{name}" for name in declared(module)}
            else:
                baseline.ids.add(case.test_id)
                if case.outcome == "skipped":
                    baseline.skipped.add(case.test_id)
        return baseline

    def violations(self, cases: list[Case]) -> list[tuple[str, str]]:
        """(test, what went wrong) for every reason the run doesn't count as the suite passing."""
        problems = []
        seen = {case.test_id for case in cases}
        for case in cases:
            if case.outcome == "skipped" and case.test_id not in self.skipped:
                problems.append((case.test_id, f"skipped ({case.message}), but tests may not be skipped"))
            elif case.outcome in ("failed", "error"):
                problems.append((case.test_id, f"{case.outcome}: {case.message}"))
        missing = sorted(self.ids - seen)
        if missing:
            problems.append(("(suite)", f"{len(missing)} test(s) of the suite did not run: {', '.join(missing[:5])}"))
        for module, names in sorted(self.required_names.items()):
            ran = {name_in(module, case.test_id) for case in cases} - {None}
            absent = sorted(names - ran) if names else ([] if ran else [module])
            if absent:
                problems.append((module, f"test(s) did not run: {', '.join(absent[:5])}"))
        return problems


def name_in(module: str, test_id: str) -> str | None:
    """The test's name within `module` as defined_tests() spells it, or None if it's elsewhere."""
    classname, _, name = test_id.partition("::")
    name = name.split("[", 1)[0]
    if classname == module:
        return name
    if classname.startswith(module + "."):
        return f"{classname[len(module) + 1 :]}::{name}"
    return None


def defined_tests(path: Path) -> set[str]:
    """Test functions and methods a module defines, as pytest names them (without parameters)."""
    source = safefs.read_regular(path, SOURCE_CAP)
    try:
        tree = syntax.parse((source or b"").decode("utf-8"))
    except (SyntaxError, UnicodeDecodeError, MemoryError):  # MemoryError: the parser's stack, on deep nesting
        return set()
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            names |= {
                f"{node.name}::{m.name}"
                for m in node.body
                if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name.startswith("test")
            }
    return names
