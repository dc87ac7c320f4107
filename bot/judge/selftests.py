"""A reply's module-level code that runs its own tests when the module is imported: a call to a
`check_*`/`test_*` function it defines, `unittest.main()`, a top-level assert or print that calls
its own functions; and its own test functions (`def test_...`, with their decorators), which pytest
collects from any test file that imports the module with `*`, and whose `@pytest.mark...` fails
the import when the reply never imported pytest.

Models append their own tests to a function they were asked for, often with an expectation of
their own that is wrong; importing the module then fails and no test of the task's runs. Those
statements are dropped from the candidate before it is judged (bot/core/whole_file.py,
edit_file.py), so the file the task's tests judge is the file kept, and the feedback says which
lines were left out. Only lines the target didn't already have: an existing module's own
top-level code stays, and so does a test function of a name it defines. A target that is itself a
test module (`test_*.py`, `*_test.py`) keeps its test functions.
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
TEST_FUNCTION = re.compile(r"^test(?:_|[A-Z0-9]|$)")  # pytest collects the prefix `test`; not `testing_mode`
TEST_MODULE = re.compile(r"(?:^|/)(?:test_[^/]*|[^/]*_test)\.py$")  # pytest's default `python_files`
DEFINES = "defines its own test function"
QUOTED_CHARS = 80  # of one skipped line in the feedback


@dataclass(frozen=True)
class SelfTest:
    line: int
    end_line: int
    start: int  # byte offsets of the statement in the code
    end: int
    source: str
    why: str  # "calls its own test function check_solution", "prints", ...


def find(code: str, original: str | None = None, test_functions: bool = True) -> list[SelfTest]:
    """The module-level statements of `code` that run tests or print on import, and that
    `original` (the target as it is) has not; with `test_functions`, its test functions too."""
    try:
        tree = syntax.parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []  # importing it fails anyway, and says where
    defined = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    kept = top_level(original)
    own = defined_names(original) if test_functions else None
    starts = line_starts(code)
    segments = syntax.Segments(code)
    used = used_names(tree, defined) if own is not None else set()
    found = []
    for node in tree.body:
        if own is not None and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if TEST_FUNCTION.match(node.name) and node.name not in own and node.name not in used:
                first = min([node.lineno, *(d.lineno for d in node.decorator_list)])  # its decorators go too
                start, end = offset(starts, first, 0), offset(starts, node.end_lineno, node.end_col_offset)
                source = code.encode("utf-8", "surrogatepass")[start:end].decode("utf-8", "surrogatepass")
                found.append(SelfTest(first, node.end_lineno or first, start, end, source, f"{DEFINES} {node.name}"))
            continue
        why = reason(node, defined)
        source = (segments.of(node) or "") if why else ""
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
    segments = syntax.Segments(original or "")
    return {segments.of(node) or "" for node in tree.body}


def used_names(tree: ast.Module, defined: set[str]) -> set[str]:
    """The names the module's own code uses: all but its test functions and its self-test lines."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and TEST_FUNCTION.match(node.name):
            continue
        if not reason(node, defined):
            names.update(n.id for n in ast.walk(node) if isinstance(n, ast.Name))
    return names


def defined_names(original: str | None) -> set[str]:
    try:
        tree = syntax.parse(original or "")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return set()
    return {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def dropped(code: str, found: list[SelfTest]) -> str:
    """`code` without `found`: the lines of a statement that has them to itself are removed, with the
    blank lines above it (and those the file then ends with); one sharing a line (`f(); check()`)
    becomes `pass`."""
    data = code.encode("utf-8", "surrogatepass")
    parts, at = [], 0
    for test in sorted(found, key=lambda t: t.start):
        begin = data.rfind(b"\n", 0, test.start) + 1
        finish = data.find(b"\n", test.end)
        finish = len(data) if finish < 0 else finish + 1
        alone = not data[begin : test.start].strip() and data[test.end : finish].strip() in (b"", b";")
        if alone and begin >= at:
            while begin > at and not data[(above := data.rfind(b"\n", 0, begin - 1) + 1) : begin].strip():
                begin = above  # the blank lines that set it apart go with it
            parts += [data[at:begin]]
            at = finish
        else:
            parts += [data[at : test.start], b"pass"]
            at = test.end
    parts.append(data[at:])
    text = b"".join(parts).decode("utf-8", "surrogatepass")
    return text.rstrip() + "\n" if text.strip() else text


def note(found: list[SelfTest], target: str) -> str:
    """What the feedback says about them."""
    lines = "\n".join(f"line {t.line}: {clip_line(t.source.splitlines()[0], QUOTED_CHARS)}  ({t.why})" for t in found)
    if not any(t.why.startswith(DEFINES) for t in found):
        return (
            "### lines of your code left out (they run when the module is imported)\n"
            f"{lines}\n"
            f"These lines ran your own tests or printed when the module was imported, so they were left out "
            f"of `{target}`: the tests judged it without them, and it is kept without them. Leave your own "
            "tests and prints out of the module."
        )
    return (
        "### lines of your code left out (your own tests)\n"
        f"{lines}\n"
        f"These lines defined or ran your own tests, or printed when the module was imported, so they were "
        f"left out of `{target}`: the tests judged it without them, and it is kept without them. Leave your "
        "own tests and prints out of the module."
    )


def logged(found: list[SelfTest], target: str) -> str:
    """The log's and the report's line about them."""
    lines = ", ".join(str(t.line) if t.line == t.end_line else f"{t.line}-{t.end_line}" for t in found)
    plural = "s" if len(found) > 1 else ""
    defines = any(t.why.startswith(DEFINES) for t in found)
    what = "defined or ran its own tests" if defines else "ran its own tests on import"
    return f"left out of `{target}`: line{plural} {lines} of the reply's code, which {what}"


def left_out(code: str, original: str | None, target: str) -> tuple[str, str, str]:
    """(`code` without its lines that run its own tests, what the model is told of them, the log's
    line): the code as it is and "" twice when it has none."""
    found = find(code, original, test_functions=not TEST_MODULE.search(target))
    if not found:
        return code, "", ""
    return dropped(code, found), note(found, target), logged(found, target)
