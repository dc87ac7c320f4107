"""A source file's syntax tree, from tree-sitter's grammar through ast-grep: parsed, walked without
recursion (a hostile nesting can't exhaust Python's stack), and its first error named. ast-grep's
positions count characters of the Python string (not UTF-8 bytes), so a node's span slices the
text as it is."""

from __future__ import annotations

from collections.abc import Iterator

from ast_grep_py import SgNode, SgRoot

from bot.text import clip_line

SHOWN_CHARS = 40  # of the text around a parse error


def parsed(code: str, language: str) -> SgNode:
    """The root of `code`'s tree; tree-sitter always gives one, with ERROR and missing nodes
    where the code doesn't parse."""
    return SgRoot(code, language).root()


def walk(node: SgNode) -> Iterator[SgNode]:
    """`node` and everything under it, in the order of the text."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children()))


def span(node: SgNode) -> tuple[int, int]:
    """Where `node` starts and ends in the text, as indexes of the string."""
    where = node.range()
    return where.start.index, where.end.index


def name_of(node: SgNode) -> str:
    """The text of the node's `name` field (a function's, a method's), or ""."""
    name = node.field("name")
    return name.text() if name is not None else ""


def renamed(node: SgNode, new: str) -> str:
    """The node's text with its `name` field's text `new`."""
    name = node.field("name")
    assert name is not None
    start, _ = span(node)
    left, right = span(name)
    text = node.text()
    return text[: left - start] + new + text[right - start :]


def edited(text: str, edits: list[tuple[int, int, str]]) -> str:
    """`text` with each (start, end, new) edit made, the last first, so that no index moves."""
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def line(node: SgNode) -> int:
    """The line `node` starts on (1-based)."""
    return node.range().start.line + 1


def last_line(node: SgNode) -> int:
    return node.range().end.line + 1


def problem(root: SgNode) -> str | None:
    """None when the tree holds no error; else where the first is and what: an ERROR node (text the
    grammar can't place) or a missing one (a token it had to assume, the only nodes of no text).
    ast-grep searches in Rust: a walk from Python would cost five times as much."""
    found = [node for node in (root.find(kind="ERROR"), root.find(regex="^$")) if node is not None]
    found = [node for node in found if node.kind() != root.kind()]  # an empty file's root has no text either
    if not found:
        return None
    first = min(found, key=lambda node: span(node)[0])
    if first.kind() == "ERROR":
        return f"line {line(first)}: syntax error at `{clip_line(' '.join(first.text().split()), SHOWN_CHARS)}`"
    return f"line {line(first)}: missing `{first.kind()}`"
