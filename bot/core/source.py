"""How a model is shown code it must change: numbered lines, and for a large file its outline plus
windows around the lines that matter (where tracebacks point, what the task names), never the
whole file."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

from bot import syntax
from bot.lang.base import numbered  # the languages' way of numbering lines, Python's too

LOCATIONS = (
    re.compile(r"^(?P<path>[^\s:\"'<>][^:\n\"]*\.py):(?P<line>\d+):", re.M),  # pytest: path.py:12: in f
    re.compile(r"File \"(?P<path>[^\"\n]+\.py)\", line (?P<line>\d+)"),  # Python's own tracebacks
)
CONTEXT = 6  # lines shown around a line a traceback points at
DEFINITION_LINES = 80  # of a function or class the task or a failing test names, at most
OUTLINE_ENTRIES = 60  # definitions an outline lists, at most


def pointed_at(text: str, path: str, root: str = "") -> set[int]:
    """The line numbers of `path` that the tracebacks in `text` point at (paths relative to the
    work folder, or absolute under `root`)."""
    found = set()
    for pattern in LOCATIONS:
        for match in pattern.finditer(text):
            where = match["path"].removeprefix(root.rstrip("/") + "/") if root else match["path"]
            if where == path or where.endswith("/" + path):
                found.add(int(match["line"]))
    return found


def definitions(code: str) -> list[tuple[str, int, int]]:
    """(name, first line, last line) of every function and class, at any depth; none for code
    that doesn't parse (the outline then falls back to the file's first lines)."""
    try:
        tree = syntax.parse(code)
    except (SyntaxError, ValueError, RecursionError):
        return []
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            found.append((node.name, first, node.end_lineno or node.lineno))
    return sorted(found, key=lambda d: d[1])


def outline(code: str, near: set[int]) -> str:
    """One numbered line per function and class (methods too): the file's map. A file with more
    than OUTLINE_ENTRIES of them shows those nearest the lines in `near`, and says so."""
    lines = code.splitlines()
    starts = sorted(
        {first for _, first, _ in definitions(code)}
        & {n for n, line in enumerate(lines, 1) if line.lstrip().startswith(("def ", "class ", "async def "))}
    )
    if len(starts) <= OUTLINE_ENTRIES:
        return numbered(lines, starts, gaps=False)
    anchors = sorted(near) or [1]
    nearest = sorted(starts, key=lambda n: min(abs(n - a) for a in anchors))[:OUTLINE_ENTRIES]
    return f"({OUTLINE_ENTRIES} of its {len(starts)} definitions: those nearest the lines shown below)\n" + numbered(
        lines, nearest, gaps=False
    )


def windows(code: str, lines_wanted: set[int], names: Iterable[str]) -> str:
    """The lines around `lines_wanted`, and the definitions (up to DEFINITION_LINES each) of the
    functions and classes named in `names`, numbered; "" when nothing is wanted."""
    lines = code.splitlines()
    shown = {n for line in lines_wanted for n in range(line - CONTEXT, line + CONTEXT + 1) if 1 <= n <= len(lines)}
    wanted_names = set(names)
    for name, first, last in definitions(code):
        if name in wanted_names:
            shown.update(range(first, min(last, first + DEFINITION_LINES - 1) + 1))
    return numbered(lines, shown) if shown else ""
