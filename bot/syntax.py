"""Python's parser, shared by autofix's threads. CPython 3.11's ast module keeps one recursion
counter per interpreter while it turns a parse into objects; two threads parsing at once (the
eval's workers, the proof's runs side by side) can leave it wrong, and the parse then raises
`SystemError: AST constructor recursion depth mismatch` (python/cpython#106905, seen in this
suite). Every `ast.parse` and `ast.literal_eval` of autofix's own process goes through one lock
here; tests/test_syntax.py keeps it that way."""

from __future__ import annotations

import ast
import re
import threading
from typing import Any

_LOCK = threading.Lock()


def parse(source: str | bytes) -> ast.Module:
    with _LOCK:
        return ast.parse(source)


def literal_eval(text: str | ast.expr) -> Any:
    with _LOCK:
        return ast.literal_eval(text)


class Segments:
    """`ast.get_source_segment` for many nodes of one code: it splits the whole code into lines at
    every call, which made a 5,000-line module's self-test scan take a minute."""

    LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")  # as ast splits them: not at \f or \v

    def __init__(self, code: str):
        self.lines = self.LINES.findall(code)

    def of(self, node: ast.AST) -> str | None:
        end_line, end_col = getattr(node, "end_lineno", None), getattr(node, "end_col_offset", None)
        if end_line is None or end_col is None:
            return None
        first, last = node.lineno - 1, end_line - 1  # type: ignore[attr-defined]
        if not 0 <= first <= last < len(self.lines):
            return None
        start = node.col_offset  # type: ignore[attr-defined]
        if first == last:
            return utf8(self.lines[first])[start:end_col].decode("utf-8", "surrogatepass")
        head = utf8(self.lines[first])[start:].decode("utf-8", "surrogatepass")
        tail = utf8(self.lines[last])[:end_col].decode("utf-8", "surrogatepass")
        return head + "".join(self.lines[first + 1 : last]) + tail


def utf8(line: str) -> bytes:
    return line.encode("utf-8", "surrogatepass")  # ast's column offsets count UTF-8 bytes
