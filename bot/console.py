"""Colour for a person at a terminal: PASS and passed green, FAIL and failed red, SAME and notes
yellow. Off wherever nobody reads the lines as they come: a file or a pipe, the Action's log (its
workflow commands group the lines there), a terminal that says it can't (`TERM=dumb`), and
wherever `NO_COLOR` is set (no-color.org)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TextIO

GREEN, RED, YELLOW = "32", "31", "33"  # SGR foreground codes
VERDICTS = {"PASS": GREEN, "FAIL": RED, "SAME": YELLOW}


def colour_wanted(stream: TextIO, environ: Mapping[str, str] = os.environ) -> bool:
    if environ.get("NO_COLOR"):  # no-color.org: set and not empty
        return False
    if environ.get("GITHUB_ACTIONS") == "true" or environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a stand-in without isatty, or a closed stream
        return False


@dataclass(frozen=True)
class Paint:
    on: bool = False

    @classmethod
    def for_stream(cls, stream: TextIO, environ: Mapping[str, str] = os.environ) -> Paint:
        return cls(colour_wanted(stream, environ))

    def __call__(self, text: str, colour: str) -> str:
        return f"\033[1;{colour}m{text}\033[0m" if self.on else text

    def verdict(self, word: str) -> str:
        """An attempt's PASS, FAIL or SAME."""
        return self(word, VERDICTS[word]) if word in VERDICTS else word

    def passed(self, text: str) -> str:
        return self(text, GREEN)

    def failed(self, text: str) -> str:
        return self(text, RED)

    def note(self, text: str) -> str:
        return self(text, YELLOW)


PLAIN = Paint()
