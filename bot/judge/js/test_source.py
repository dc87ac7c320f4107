"""A failing JavaScript test's own lines, up to the one that failed, for the model: the runners'
reports carry the assertion's message and stack, not the test that made it."""

from __future__ import annotations

import os
import re
from pathlib import Path

from ast_grep_py import SgRoot

from bot import safefs
from bot.judge.js.canaries import LANGUAGES, SOURCE_CAP, SPLIT, TESTS, callee_root, enclosing_suites, literal

FRAME = re.compile(r"[( ](?P<path>[^\s()]+\.[cm]?[jt]sx?):(?P<line>\d+):\d+\)?\s*$", re.M)
SHOWN = 30  # lines of a test shown at most


def test_source(test_id: str, frames: str, sources: str) -> str:
    """The test's lines from its first to the failing one (">"), read from its file under
    `sources`, when its stack names a line inside it; "" otherwise."""
    path, _, name = test_id.partition("::")
    failed = [int(m["line"]) for m in FRAME.finditer(frames) if os.path.normpath(m["path"]) == os.path.normpath(path)]
    if not failed or not name or os.path.isabs(path) or ".." in Path(path).parts:
        return ""
    data = safefs.read_regular(Path(sources) / path, SOURCE_CAP)
    try:
        text = (data or b"").decode("utf-8")
    except UnicodeDecodeError:
        return ""
    span = declared_at(text, LANGUAGES.get(os.path.splitext(path)[1], "javascript"), name.split(SPLIT))
    line = failed[0]
    if span is None or not span[0] <= line <= span[1]:
        return ""
    lines = text.splitlines()[span[0] - 1 : line]
    if len(lines) > SHOWN:
        lines = [lines[0], "    ..."] + lines[len(lines) - SHOWN + 2 :]
    shown = [f"    {text}" for text in lines[:-1]] + [f">   {lines[-1]}"]
    return f"{path}:{span[0]}, the test up to its failing line:\n" + "\n".join(shown)


def declared_at(text: str, language: str, titles: list[str]) -> tuple[int, int] | None:
    """The lines (1-based, inclusive) of the test call whose suites' and own titles are `titles`."""
    for call in SgRoot(text, language).root().find_all(kind="call_expression"):
        if callee_root(call) not in TESTS or call.field("function") is None:
            continue
        arguments = [c for c in (call.field("arguments") or call).children() if c.is_named()]
        if not arguments or literal(arguments[0]) != titles[-1]:
            continue
        if enclosing_suites(call) == titles[:-1]:
            return call.range().start.line + 1, call.range().end.line + 1
    return None
