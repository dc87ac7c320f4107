"""The target file of a task: only passing code reaches it, and never half-written."""

from __future__ import annotations

from bot.core.report import write_atomically
from bot.spec import Spec


def write_target(spec: Spec, code: str) -> None:
    target = spec.target_path
    write_atomically(target, code, target.stat().st_mode & 0o777 if target.exists() else 0o644)


def current_text(spec: Spec) -> str | None:
    """The target as it is now: None when there is none, or it is a link or not UTF-8 text."""
    path = spec.target_path
    if path.is_symlink() or not path.is_file():
        return None
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
