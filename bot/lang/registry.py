"""Which code view reads a file: by its extension, or by the kind a spec gives its target. Python's
view is bot/core/languages.py's, over bot/core/source.py: none here, None."""

from __future__ import annotations

from pathlib import PurePosixPath

from bot.lang.base import CodeView
from bot.lang.go import GO
from bot.lang.javascript import JAVASCRIPT, TSX, TYPESCRIPT

VIEWS: dict[str, CodeView] = {
    ".js": JAVASCRIPT, ".mjs": JAVASCRIPT, ".cjs": JAVASCRIPT, ".jsx": JAVASCRIPT,
    ".ts": TYPESCRIPT, ".mts": TYPESCRIPT, ".cts": TYPESCRIPT,
    ".tsx": TSX,
    ".go": GO,
}  # fmt: skip
KINDS: dict[str, tuple[CodeView, ...]] = {
    "javascript": (JAVASCRIPT,), "typescript": (TYPESCRIPT, TSX), "go": (GO,),
}  # bot/spec.py's  # fmt: skip


def for_path(path: str) -> CodeView | None:
    """The view of the file at `path`, by its extension; None for a language without one."""
    return VIEWS.get(PurePosixPath(path).suffix.lower())


def for_kind(kind: str, path: str) -> CodeView | None:
    """The view of a target of `kind` at `path`: its extension's when that reads the kind (TSX is
    TypeScript), else the kind's first; None for a kind without one."""
    views = KINDS.get(kind, ())
    by_path = for_path(path)
    return by_path if by_path in views else next(iter(views), None)
