"""What a failing assertion of the inline checks is shown with: the values it compared.

The checks are rewritten once per task, before they run, so that each assertion keeps the values
of its operands and of the calls inside them: each such subexpression `e` becomes
`(__autofix_N__ := (e))`, inserted into the text at the node's own offsets, so no line moves and
the assertion still evaluates the same operands once, in the same order, to the same truth. The
runner reads those names back when the assertion fails (bot/judge/sandboxed/checks_runner.py)
and sends their reprs, bounded; `explain` turns them into the sentence the model reads:
`gcd(0, 5) returned 0, expected 5`. An assertion at the top of the checks gets its operands from
the runner's record, so only the calls inside them are captured there.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass, field

from bot import syntax

CAPTURED = 6  # subexpressions one assertion keeps
SHOWN_CHARS = 240  # of one value in the feedback
NEWLINE = re.compile(rb"\r\n|\r|\n")  # the tokenizer's line ends (not str.splitlines', which knows more)
# Where a subexpression is not always evaluated, or not in the assertion's own scope: nothing inside
# is captured (a value kept there could be a stale one, or a name bound in the wrong scope).
OPAQUE = (
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
    ast.BoolOp,
    ast.IfExp,
    ast.JoinedStr,
    ast.Await,
)
SYMBOLS = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
}


@dataclass
class Capture:
    name: str  # the temporary the runner reads; "" when the runner doesn't capture it
    source: str  # the subexpression as the checks wrote it
    call: bool  # "returned" rather than "is"
    role: str  # "left", "right", "operand" (of `not`, or the whole test) or "inner"


@dataclass
class Assertion:
    first: int  # its lines in the checks
    last: int
    op: str = ""  # the comparison's symbol, "" when it isn't one comparison
    left: Capture | None = None  # a comparison's operands, captured or not
    right: Capture | None = None
    literal: tuple[bool, bool] = (False, False)  # which operands show their value in the source
    captures: list[Capture] = field(default_factory=list)


def rewrite(code: str, tree: ast.Module) -> tuple[str, dict[int, Assertion]]:
    """The checks with every assertion's captures inserted, and the assertions by their first
    line. An assertion at the top level captures only what the runner's record lacks. One inside
    a function or a loop deletes its captures once it held (`; del ...` after it, on its line), so
    what an assertion that raised midway kept is all of this evaluation's."""
    assertions: dict[int, Assertion] = {}
    marks: list[tuple[int, int, int, str]] = []  # (byte offset, order, nesting, text): see insert
    starts = line_starts(code)
    top = {id(node) for node in tree.body}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assert):
            continue
        assertion = assertions[node.lineno] = describe(node, code)
        taken: set[tuple[int, int]] = set()
        for capture, expr in analyse(node, assertion, top_level=id(node) in top, code=code):
            start = offset(starts, expr.lineno, expr.col_offset)
            end = offset(starts, expr.end_lineno, expr.end_col_offset)
            if (start, end) in taken or len(assertion.captures) == CAPTURED:
                continue
            taken.add((start, end))
            capture.name = f"__autofix_{len(marks)}__"
            # At one offset the closings come first, the inner first, then the openings, the outer first.
            marks += [(start, 1, start - end, f"({capture.name} := ("), (end, 0, end - start, "))")]
            assertion.captures.append(capture)
        if assertion.captures and id(node) not in top:
            names = ", ".join(capture.name for capture in assertion.captures)
            marks.append((offset(starts, node.end_lineno, node.end_col_offset), 2, 0, f"; del {names}"))
    return insert(code, marks), assertions


def describe(node: ast.Assert, code: str) -> Assertion:
    test = node.test
    assertion = Assertion(node.lineno, node.end_lineno or node.lineno)
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in SYMBOLS:
        assertion.op = SYMBOLS[type(test.ops[0])]
        assertion.left = capture(code, test.left, "left")
        assertion.right = capture(code, test.comparators[0], "right")
        assertion.literal = (literal(test.left), literal(test.comparators[0]))
    return assertion


def analyse(node: ast.Assert, assertion: Assertion, top_level: bool, code: str) -> list[tuple[Capture, ast.expr]]:
    """The subexpressions worth a value, outermost first: the operands (the runner's record has
    those of a top-level comparison, and of a top-level test), then the calls inside them."""
    test = node.test
    if assertion.op:
        assert isinstance(test, ast.Compare) and assertion.left and assertion.right
        operands: list[tuple[Capture, ast.expr]] = [(assertion.left, test.left), (assertion.right, test.comparators[0])]
        found = [] if top_level else list(operands)
    else:
        operand = test.operand if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) else test
        operands = [(capture(code, operand, "operand"), operand)]
        found = [] if literal(operand) or (top_level and operand is test) else list(operands)
    for _, expr in operands:
        found += [(capture(code, call, "inner"), call) for call in calls(expr) if call is not expr]
    return found


def capture(code: str, expr: ast.expr, role: str) -> Capture:
    return Capture("", ast.get_source_segment(code, expr) or "", isinstance(expr, ast.Call), role)


def calls(expr: ast.expr) -> list[ast.Call]:
    """The calls inside `expr` in source order, not looking into what may not be evaluated."""
    found: list[ast.Call] = []
    stack: list[ast.AST] = [] if isinstance(expr, OPAQUE) else [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call):
            found.append(node)
        stack.extend(child for child in ast.iter_child_nodes(node) if not isinstance(child, OPAQUE))
    return sorted(found, key=lambda call: (call.lineno, call.col_offset))


def literal(expr: ast.expr) -> bool:
    try:
        syntax.literal_eval(expr)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return False
    return True


def line_starts(code: str) -> list[int]:
    data = code.encode("utf-8", "surrogatepass")
    return [0] + [match.end() for match in NEWLINE.finditer(data)]


def offset(starts: list[int], line: int | None, column: int | None) -> int:
    """A node's (line, UTF-8 byte column) as a byte offset into the code."""
    assert line is not None and column is not None  # every expression ast.parse made has them
    return starts[line - 1] + column


def insert(code: str, marks: list[tuple[int, int, int, str]]) -> str:
    """Each mark's text at its byte offset, in the marks' order where they share one."""
    data = code.encode("utf-8", "surrogatepass")
    parts, at = [], 0
    for position, _, _, text in sorted(marks):
        parts += [data[at:position], text.encode()]
        at = position
    parts.append(data[at:])
    return b"".join(parts).decode("utf-8", "surrogatepass")


# -- the sentence


def explain(
    assertion: Assertion, values: dict[str, str], left: str | None = None, right: str | None = None, raised=False
) -> str:
    """What the failing `assertion` compared, from the reprs the runner sent (`values`, by name);
    `left` and `right` are the reprs of a top-level comparison's operands, from its record. One
    that `raised` midway has only the values it got to, and no verdict on them."""
    shown = {capture.role: values[capture.name] for capture in assertion.captures if capture.name in values}
    if raised:
        return "\n".join(
            f"where {said(capture, clip(values[capture.name]))}"
            for capture in assertion.captures
            if capture.name in values and not (capture.role == "right" and assertion.literal[1])
        )
    left, right = shown.get("left", left), shown.get("right", right)
    lines = []
    if assertion.left and assertion.right and left is not None and right is not None:
        left, right = cut_pair(left, right) if assertion.op == "==" else (clip(left), clip(right))
        lines.append(comparison(assertion, left, right))
    elif "operand" in shown:
        operand = next(capture for capture in assertion.captures if capture.role == "operand")
        lines.append(said(operand, clip(shown["operand"])))
    inner = [capture for capture in assertion.captures if capture.role == "inner" and capture.name in values]
    lines += [f"where {said(capture, clip(values[capture.name]))}" for capture in inner]
    return "\n".join(lines)


def comparison(assertion: Assertion, left: str, right: str) -> str:
    """`f(x) returned 0, expected 5`; for another operator, both values and what is false."""
    assert assertion.left and assertion.right
    literal_left, literal_right = assertion.literal
    subject = left if literal_left else said(assertion.left, left)
    if assertion.op == "==":
        return f"{subject}, expected {right}" + ("" if literal_right else f" ({clip(assertion.right.source)})")
    other = "" if literal_right else f"; {said(assertion.right, right)}"
    return f"{subject}{other}: {left} {assertion.op} {right} is false"


def said(capture: Capture, value: str) -> str:
    return f"{clip(capture.source)} {'returned' if capture.call else 'is'} {value}"


def clip(text: str, limit: int = SHOWN_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def cut_pair(left: str, right: str, limit: int = SHOWN_CHARS) -> tuple[str, str]:
    """Two reprs that differ, each cut to `limit` so that where they first differ is kept: the
    start is dropped ("...") when the difference lies further in."""
    if len(left) <= limit and len(right) <= limit:
        return left, right
    common = len(os.path.commonprefix([left, right]))
    start = 0 if common < limit // 2 else common - limit // 4
    return window(left, start, limit), window(right, start, limit)


def window(text: str, start: int, limit: int) -> str:
    head = "..." if start else ""
    rest = text[start:]
    return head + (rest if len(rest) + len(head) <= limit else rest[: limit - len(head) - 3] + "...")
