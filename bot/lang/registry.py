"""Which code view reads a file, by its extension. Python's files stay with bot/core/source.py and
its neighbours for now: no view here, None."""

from __future__ import annotations

from pathlib import PurePosixPath

from bot.lang.base import CodeView
from bot.lang.javascript import JAVASCRIPT, TSX, TYPESCRIPT

VIEWS: dict[str, CodeView] = {
    ".js": JAVASCRIPT, ".mjs": JAVASCRIPT, ".cjs": JAVASCRIPT, ".jsx": JAVASCRIPT,
    ".ts": TYPESCRIPT, ".mts": TYPESCRIPT, ".cts": TYPESCRIPT,
    ".tsx": TSX,
}  # fmt: skip


def for_path(path: str) -> CodeView | None:
    """The view of the file at `path`, by its extension; None for a language without one."""
    return VIEWS.get(PurePosixPath(path).suffix.lower())
