"""The target file of a task: only passing code reaches it, and never half-written."""

from __future__ import annotations

from bot.core.report import write_atomically
from bot.spec import Spec


def write_target(spec: Spec, code: str) -> None:
    target = spec.target_path
    write_atomically(target, code, target.stat().st_mode & 0o777 if target.exists() else 0o644)
