"""What the repository map (bot/core/repomap.py) reads of a source file in a language besides
Python, whose files the map reads with `ast`: the definitions its outline lists, the names the file
defines for other files and the names it uses, from which the map links files."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Symbol:
    name: str
    line: int
    depth: int  # 0 at the module's level, 1 for a method, 2 in a nested class
    header: str  # as written, on one line: `class X(Base):`, `def m(self, a)`, `function f(a, b)`
    doc: str  # its documentation's first line (a docstring, a JSDoc comment); "" without one


@dataclass(frozen=True)
class Names:
    symbols: tuple[Symbol, ...]
    defines: frozenset[str]  # what other files may use: top-level names, members, the module's own name
    uses: Counter[str]  # the names the file reads, how often each


class MapView(Protocol):
    @property
    def language(self) -> str:
        """The language's name, as a reader writes it: `TypeScript`."""

    def names(self, path: str, code: str) -> Names:
        """What the map reads of the file at `path` (from the root, '/'-separated) holding `code`."""
