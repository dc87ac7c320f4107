"""A reply's module-level code that runs its own tests when the module is imported: a call to a
`check_*`/`test_*` function it defines, `unittest.main()`, a top-level assert or print that calls
its own functions.

Models append their own tests to a function they were asked for, often with an expectation of
their own that is wrong; importing the module then fails and no check runs. The inline checks
import the target without those lines (the runner compiles the text `skipping` returns, each
line where it was), so the task's checks decide, and the feedback says which lines were left out.
Only lines the target didn't already have: an existing module's own top-level code stays.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from bot import syntax
from bot.judge.assertions import line_starts, offset
from bot.text import clip_line

TEST_NAME = re.compile(r"^(?:check|test)|_tests?$")
RUNNERS = {("unittest", "main"), ("doctest", "testmod"), ("pytest", "main")}
QUOTED_CHARS = 80  # of one skipped line in the feedback


@dataclass(frozen=True)
class SelfTest:
    line: int
    end_line: int
    start: int  # byte offsets of the statement in the code
    end: int
    source: str
    why: str  # "calls its own test function check_solution", "prints", ...


def find(code: str, original: str | None = None) -> list[SelfTest]:
    """The module-level statements of `code` that run tests or print on import, and that
    `original` (the target as it is) has not."""
    try:
        tree = syntax.parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []  # importing it fails anyway, and says where
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    kept = top_level(original)
    starts = line_starts(code)
    found = []
    for node in tree.body:
        why = reason(node, defined)
        source = ast.get_source_segment(code, node) or ""
        if why and source not in kept:
            start = offset(starts, node.lineno, node.col_offset)
            end = offset(starts, node.end_lineno, node.end_col_offset)
            found.append(SelfTest(node.lineno, node.end_lineno or node.lineno, start, end, source, why))
    return found


def reason(node: ast.stmt, defined: set[str]) -> str:
    """Why `node` runs a test: an assert or a print counts when it calls the module's own code
    (`print(gcd(0, 5))`; not `assert sys.version_info >= (3, 9)`)."""
    if isinstance(node, ast.Assert) and calls_own(node, defined):
        return "asserts"
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)):
        return ""
    func = node.value.func
    if isinstance(func, ast.Name) and func.id == "print" and calls_own(node, defined):
        return "prints"
    if isinstance(func, ast.Name) and func.id in defined and TEST_NAME.search(func.id):
        return f"calls its own test function {func.id}"
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and (func.value.id, func.attr) in RUNNERS:
        return f"runs {func.value.id}.{func.attr}()"
    return ""


def calls_own(node: ast.stmt, defined: set[str]) -> bool:
    names = (n.func.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name))
    return any(name in defined for name in names)


def top_level(original: str | None) -> set[str]:
    try:
        tree = syntax.parse(original or "")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return set()
    return {ast.get_source_segment(original or "", node) or "" for node in tree.body}


def skipping(code: str, found: list[SelfTest]) -> str:
    """`code` with each of `found` replaced by `pass`, every line where it was."""
    data = code.encode("utf-8", "surrogatepass")
    parts, at = [], 0
    for test in sorted(found, key=lambda t: t.start):
        parts += [data[at : test.start], b"pass", b"\n" * (test.end_line - test.line)]
        at = test.end
    parts.append(data[at:])
    return b"".join(parts).decode("utf-8", "surrogatepass")


def note(found: list[SelfTest]) -> str:
    """What the feedback says about them."""
    lines = "\n".join(f"line {t.line}: {clip_line(t.source.splitlines()[0], QUOTED_CHARS)}  ({t.why})" for t in found)
    return (
        "### lines that run when the module is imported (not judged)\n"
        f"{lines}\n"
        "The module runs these itself when it is imported. The checks imported it without them, so "
        "they decided nothing: the failing checks listed are the task's. Leave your own tests and prints "
        "out of the module."
    )
