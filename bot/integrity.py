"""Test integrity: the candidate may not touch protected paths, and pytest must run the whole suite.

A model under pressure edits tests, adds a conftest.py, skips tests or exits early with status 0.
Each of those leaves a trace here: a protected file that changed, a test that vanished or turned
into a skip, or no JUnit report at all.
"""

from __future__ import annotations

import ast
import hashlib
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from bot.spec import is_protected

IGNORED_DIRS = {".git", "__pycache__", ".pytest_cache"}
DETAIL_CHARS = 4000  # of one test's traceback, kept for evidence and feedback


def snapshot(root: Path, patterns: tuple[str, ...]) -> dict[str, str]:
    """Digest of every protected file, directory and symlink under root."""
    found: dict[str, str] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in IGNORED_DIRS]
        for name in dirs + files:
            path = Path(folder, name)
            rel = path.relative_to(root).as_posix()
            if is_protected(rel, patterns):
                found[rel] = digest(path)
    return found


def digest(path: Path) -> str:
    if path.is_symlink():
        return f"symlink to {os.readlink(path)}"
    if path.is_dir():
        return "folder"
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        return f"unreadable: {exc.strerror}"


def tampering(before: dict[str, str], after: dict[str, str]) -> list[tuple[str, str]]:
    """(path, what happened) for each protected path the run changed, added or removed."""
    changes = []
    for rel in sorted(before.keys() | after.keys()):
        if rel not in after:
            changes.append((rel, "removed"))
        elif rel not in before:
            changes.append((rel, "created"))
        elif before[rel] != after[rel]:
            now = f" (now a {after[rel]})" if after[rel].startswith("symlink") else ""
            changes.append((rel, f"modified{now}"))
    return changes


@dataclass
class Case:
    test_id: str
    outcome: str  # passed | failed | error | skipped
    message: str = ""  # the first line of what went wrong
    details: str = ""  # the traceback, or the output


def read_junit(path: Path) -> list[Case] | None:
    """Every test case of a JUnit report, or None when there is no readable report."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return None
    cases = []
    for case in root.iter("testcase"):
        test_id = f"{case.get('classname', '')}::{case.get('name', '')}".lstrip(":")
        found = Case(test_id, "passed")
        for kind in ("failure", "error", "skipped"):
            problem = case.find(kind)
            if problem is not None:
                lines = (problem.get("message") or problem.text or kind).strip().splitlines()
                outcome = {"failure": "failed"}.get(kind, kind)
                found = Case(test_id, outcome, lines[0] if lines else kind, (problem.text or "")[-DETAIL_CHARS:])
                break
        cases.append(found)
    return cases


@dataclass
class Baseline:
    """What the original suite holds: its test ids, those it skips, and the test names of
    modules that failed to import (typically because the target doesn't exist yet)."""

    ids: set[str] = field(default_factory=set)
    skipped: set[str] = field(default_factory=set)
    required_names: dict[str, set[str]] = field(default_factory=dict)  # module -> test names

    @classmethod
    def from_cases(cls, cases: list[Case], workdir: Path) -> Baseline:
        baseline = cls()
        for case in cases:
            if case.outcome == "error" and "::" not in case.test_id:
                baseline.required_names[case.test_id] = defined_tests(workdir / (case.test_id.replace(".", "/") + ".py"))
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
        return f"{classname[len(module) + 1:]}::{name}"
    return None


def defined_tests(path: Path) -> set[str]:
    """Test functions and methods a module defines, as pytest names them (without parameters)."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return set()
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            names |= {f"{node.name}::{m.name}" for m in node.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name.startswith("test")}
    return names
