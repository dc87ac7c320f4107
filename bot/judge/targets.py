"""What judges a target that isn't Python before the inline checks and the command run: a JSON or
YAML document (bot/judge/documents.py), a SQL query (bot/judge/sql.py)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol


@dataclass
class Checked:
    problems: list[tuple[str, str, str]] = field(default_factory=list)  # (name, message, detail) for Findings.add
    parsed: bool = True  # the target could be read: checks on its content can run


class TargetCheck(Protocol):
    def preflight(self) -> list[str]: ...  # before any model call: notes for the log; UserError for bad test files

    def check(self, text: str, work: Path) -> Checked: ...  # `text` is the candidate, written in `work`
