"""What the repair loop needs of a language, as one interface: a parse check, the file's definitions
and how it is shown (an outline, windows), where failures point in it, the units a model may rewrite
whole, the mutants that measure its tests and what a reviewer should look at. Python stands behind
edit mode's part of it (`EditView`: bot/core/languages.py, over bot/core/source.py and splice.py);
its mutants and findings (bot/judge/strength.py, bot/core/review.py) give the same shapes. The shared
ways of showing a file and finding what failures point at live here."""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

CONTEXT = 6  # lines shown around a line a failure points at
DEFINITION_LINES = 80  # of a definition the task or a failing test names, at most
OUTLINE_ENTRIES = 60  # definitions an outline lists, at most

Definition = tuple[str, int, int]  # qualified name (`Class.method`), first and last line (1-based)
Spot = tuple[int, str, str]  # a reviewer's finding: line, kind (`network`, `process`…), detail
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")  # what a name is mentioned as


@dataclass(frozen=True)
class Unit:
    """A function, method or class the model may be asked to write whole."""

    name: str  # as its definition names it
    qualname: str  # `Class.method` for a method
    kind: str  # "function", "method" or "class"
    first: int  # its first line (1-based), decorators included
    last: int
    indent: str  # of its first line

    @property
    def called(self) -> str:
        return f"the {self.kind} `{self.qualname}`"

    def text(self, code: str) -> str:
        return "\n".join(code.splitlines()[self.first - 1 : self.last]) + "\n"


@dataclass(frozen=True)
class Mutant:
    """One small change of the code (bot/judge/strength.py's shape): `operator` names its kind
    (comparison, boolean, constant, return, branch, arguments; null for one that keeps the code's
    behaviour), `change` shows it on one line, `code` is the whole mutated file."""

    line: int  # where the change starts, in the original code
    operator: str
    change: str
    code: str
    mutated_line: str  # the line as the mutant has it ("" when `change` shows it)


class EditView(Protocol):
    """What edit mode (bot/core/edit_file.py) needs of a language: how a file is shown, where
    failures point in it, and its units replaced whole. None of it runs the code."""

    @property
    def name(self) -> str:
        """The language, as a Markdown fence names it."""

    def definitions(self, code: str) -> list[Definition]:
        """Every function, method and class, at any depth, in the order of their first lines."""

    def outline(self, code: str, near: set[int]) -> str:
        """One numbered line per definition; of many, those nearest the lines in `near`."""

    def windows(self, code: str, lines_wanted: set[int], names: Iterable[str]) -> str:
        """The lines around `lines_wanted` and the definitions `names` names, numbered."""

    def pointed_at(self, text: str, path: str, root: str = "") -> set[int]:
        """The lines of `path` that the failures in `text` point at."""

    def units(self, code: str) -> list[Unit]:
        """What a model may rewrite whole: not what is nested in a function."""

    def pointed_unit(self, code: str, failures: str, path: str, task: str) -> Unit | None:
        """The one unit of `path` the failures point at (`pointed_unit` below), else None."""

    def spliced(self, code: str, unit: str, new: str) -> str:
        """`code` with the unit qualified as `unit` replaced by its definition in `new`;
        ValueError (the reason, for the model) when `new` can't take its place."""


class CodeView(EditView, Protocol):
    """One language's whole view of a source file's text: edit mode's, and what the judge and the
    reviewer need."""

    def parses(self, code: str) -> str | None:
        """None when `code` parses; else one line saying where and why not."""

    def mutants(self, code: str, original: str | None, budget: int | None = None) -> list[Mutant]:
        """Distinct mutants of the lines of `code` not in `original` (every line when None), at
        most `budget` of them spread over those lines, in the order of the file."""

    def null_mutants(self, code: str, original: str | None) -> list[Mutant]:
        """Variants of those lines that keep what the code computes, drawn at random."""

    def findings(self, old: str | None, new: str) -> list[Spot]:
        """What `new` adds to `old` that a reviewer should look at."""


def numbered(lines: list[str], shown: Iterable[int] | None = None, gaps: bool = True) -> str:
    """`lines` with their numbers (only those in `shown`, with "..." for each gap unless not `gaps`)."""
    numbers = sorted(set(shown)) if shown is not None else list(range(1, len(lines) + 1))
    out, last = [], 0
    for n in numbers:
        if gaps and last and n != last + 1:
            out.append("     ...")
        out.append(f"{n:>4} | {lines[n - 1]}")
        last = n
    return "\n".join(out)


def outline(code: str, found: list[Definition], near: set[int]) -> str:
    """The first line of each of `found`, numbered; of more than OUTLINE_ENTRIES, those nearest
    the lines in `near`, said so."""
    lines = code.splitlines()
    starts = sorted({first for _, first, _ in found})
    if len(starts) <= OUTLINE_ENTRIES:
        return numbered(lines, starts, gaps=False)
    anchors = sorted(near) or [1]
    nearest = sorted(starts, key=lambda n: min(abs(n - a) for a in anchors))[:OUTLINE_ENTRIES]
    return f"({OUTLINE_ENTRIES} of its {len(starts)} definitions: those nearest the lines shown below)\n" + numbered(
        lines, nearest, gaps=False
    )


def windows(code: str, found: list[Definition], lines_wanted: set[int], names: Iterable[str]) -> str:
    """The lines around `lines_wanted` and the definitions of `found` that `names` names (by
    qualified name or its last part), up to DEFINITION_LINES each, numbered; "" when none."""
    lines = code.splitlines()
    shown = {n for line in lines_wanted for n in range(line - CONTEXT, line + CONTEXT + 1) if 1 <= n <= len(lines)}
    wanted = set(names)
    for name, first, last in found:
        if name in wanted or name.rpartition(".")[2] in wanted:
            shown.update(range(first, min(last, first + DEFINITION_LINES - 1) + 1))
    return numbered(lines, shown) if shown else ""


def named_in(text: str, found: list[Definition]) -> set[str]:
    """The names (a qualified name's last part) of `found` that `text` (a task, failing tests'
    names) mentions as words, or as a test's name (`test_windowed` names `windowed`)."""
    words = set(WORD.findall(text))
    words |= {word.removeprefix("test_") for word in words if word.startswith("test_")}
    names = {name.rpartition(".")[2] for name, _, _ in found}
    return {name for name in names if name in words and len(name) > 2}


def pointed_unit(
    every: list[Unit], frames: list[int], found: list[Definition], failures: str, task: str
) -> Unit | None:
    """Of `every`, the one unit the failures point at: the innermost one holding the most of the
    lines `frames` lists (of equals, the one listed last: `frames` ends nearest the error); else the
    one the failures name most often (`test_windowed` names `windowed`); else the one the task
    names."""
    held = [innermost(every, line) for line in frames]
    hits = Counter(unit for unit in held if unit is not None)
    if hits:
        most = max(hits.values())
        return next(unit for unit in reversed(held) if unit is not None and hits[unit] == most)
    for text in (failures, task):
        named = named_in(text, found)
        words = Counter(WORD.findall(text))
        counts = {unit: words[unit.name] + words[f"test_{unit.name}"] for unit in every if unit.name in named}
        if counts:
            return max(counts, key=counts.__getitem__)  # of equals, the first in the file
    return None


def innermost(every: list[Unit], line: int) -> Unit | None:
    holding = [unit for unit in every if unit.first <= line <= unit.last]
    return max(holding, key=lambda unit: unit.first, default=None)


def changed_lines(original: str, code: str) -> set[int]:
    """The numbers of the lines of `code` that are not in `original`."""
    before, after = original.splitlines(), code.splitlines()
    # The lines both share at the start and the end first: an edit is local, and difflib over a
    # long file of look-alike lines took seconds a call.
    shorter = min(len(before), len(after))
    head = next((n for n in range(shorter) if before[n] != after[n]), shorter)
    tail = 0
    while tail < shorter - head and before[-1 - tail] == after[-1 - tail]:
        tail += 1
    middle = before[head : len(before) - tail], after[head : len(after) - tail]
    # autojunk would take blank lines, frequent in any long file, for noise to skip.
    matcher = difflib.SequenceMatcher(None, *middle, autojunk=False)
    return {head + j + 1 for tag, _, _, j1, j2 in matcher.get_opcodes() if tag != "equal" for j in range(j1, j2)}


def spread_order(total: int, wanted: int) -> list[int]:
    """The indexes of `total` mutations in the order they are tried: `wanted` evenly spaced over
    the file first, then the rest in order, to stand in for those that turn out unusable."""
    first = sorted({index * total // wanted for index in range(wanted)}) if total > wanted else list(range(total))
    chosen = set(first)
    return first + [index for index in range(total) if index not in chosen]
