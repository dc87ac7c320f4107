"""Which runner a test command starts: each language's module is asked in turn
(bot/judge/runner_base.py has the interface; JavaScript's in js/runner.py, Go's in go/runner.py).
None from all: pytest, unittest, or a command judged by its exit code."""

from __future__ import annotations

from pathlib import Path

from bot.judge.go import runner as go
from bot.judge.js import runner as javascript
from bot.judge.runner_base import Runner, Unread

LANGUAGES = (javascript.runner_for, go.runner_for)

__all__ = ["Runner", "Unread", "runner_for"]


def runner_for(command: str, work: Path) -> Runner | Unread | None:
    """The runner `command` starts in `work`; Unread when it is a language's command autofix can't
    read (judged by its exit code, with the reason); None when no language claims it."""
    for language in LANGUAGES:
        found = language(command, work)
        if found is not None:
            return found
    return None
