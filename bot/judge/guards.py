"""Which static guard reads a file, by its language: Python's (bot/judge/guard.py), JavaScript's and
TypeScript's (js/guard.py), Go's (go/guard.py); None for a document or a query. A test file autofix
adds (a free-form issue's reproduction test) calls its runner by design: the JavaScript and Go guards
read it without their runner's rules; Python's reads it whole but lets it import pytest itself
(`pytest.raises`), never pytest's internals."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import PurePosixPath

from bot.judge import guard
from bot.judge.go import guard as go_guard
from bot.judge.js import guard as js_guard
from bot.lang import registry

Screen = Callable[[str, str | None, str], list[guard.Finding]]  # (code, original, path)


def for_path(path: str, test_file: bool = False) -> Screen | None:
    if PurePosixPath(path).suffix == ".py":
        return partial(guard.findings, test_file=True) if test_file else guard.findings
    view = registry.for_path(path)
    if view is None:
        return None
    module = go_guard if view.name == "go" else js_guard
    return module.in_test_file if test_file else module.findings
