"""Python's parser, shared by autofix's threads. CPython 3.11's ast module keeps one recursion
counter per interpreter while it turns a parse into objects; two threads parsing at once (the
eval's workers, the proof's runs side by side) can leave it wrong, and the parse then raises
`SystemError: AST constructor recursion depth mismatch` (python/cpython#106905, seen in this
suite). Every `ast.parse` and `ast.literal_eval` of autofix's own process goes through one lock
here; tests/test_syntax.py keeps it that way."""

from __future__ import annotations

import ast
import threading
from typing import Any

_LOCK = threading.Lock()


def parse(source: str | bytes) -> ast.Module:
    with _LOCK:
        return ast.parse(source)


def literal_eval(text: str | ast.expr) -> Any:
    with _LOCK:
        return ast.literal_eval(text)
