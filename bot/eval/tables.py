"""The eval's tables, written once and shown two ways: as GitHub-flavoured Markdown for eval.md,
and as aligned columns for a terminal, where a pipe table wraps mid-word. Either way the first
`left` columns (what a row is) are left-aligned and the figures right-aligned, so digits line up."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

GAP = "  "  # between a terminal table's columns
WIDTH = 88  # a terminal paragraph's lines: narrower than most terminals, the same on every one


@dataclass(frozen=True)
class Table:
    head: list[str]
    rows: list[list[str]]
    left: int = 1

    def markdown(self) -> str:
        aligns = ["---" if column < self.left else "--:" for column in range(len(self.head))]
        lines = [self.head, aligns, *self.rows]
        # A `|` in a cell (a bug `a | b` → `a & b`) would end the cell, code span or not.
        return "\n".join("| " + " | ".join(cell.replace("|", "\\|") for cell in line) + " |" for line in lines)

    def text(self) -> str:
        widths = [max(len(line[column]) for line in (self.head, *self.rows)) for column in range(len(self.head))]
        lines = []
        for line in (self.head, *self.rows):
            cells = [
                cell.ljust(width) if column < self.left else cell.rjust(width)
                for column, (cell, width) in enumerate(zip(line, widths, strict=True))
            ]
            lines.append(GAP.join(cells).rstrip())
        return "\n".join(lines)


def percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def span(bounds: list[float] | None) -> str:
    return "—" if bounds is None else f"{100 * bounds[0]:.1f}–{100 * bounds[1]:.1f}%"


def signed(value: float, digits: int = 0) -> str:
    """+4, −2 (a minus sign, not a hyphen), 0."""
    text = f"{abs(value):.{digits}f}"
    if float(text) == 0:
        return text
    return ("+" if value > 0 else "−") + text


def tasks_difference(value: float, sign: bool = True) -> str:
    """A difference in tasks: a whole number as one (+5, not +5.0); a mean over samples may not be."""
    digits = 0 if value == round(value) else 1
    return signed(value, digits) if sign else f"{value:.{digits}f}"


def p_value(p: float) -> str:
    return "< 0.001" if p < 0.001 else f"{p:.3g}"


def number(value: float | None, digits: int) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f} s"


def verdict(passed: bool | None) -> str:
    """A yes-or-no cell: ✅ or ❌, seen at a glance down a column."""
    return "—" if passed is None else "✅" if passed else "❌"


def wrapped(paragraph: str) -> str:
    """A paragraph for the terminal, broken between words."""
    return textwrap.fill(paragraph, WIDTH, break_long_words=False, break_on_hyphens=False)
