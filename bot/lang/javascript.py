"""The code view of JavaScript, TypeScript and TSX (`base.CodeView`), one grammar each: tree-sitter's,
through ast-grep. A `.js` file may hold JSX (the JavaScript grammar reads it); a `.ts` file may not,
as TypeScript's own compiler refuses it there.

Where failures point: V8's stack frames (Node, Jest, Vitest, Mocha: `at f (/abs/a.js:12:5)`,
`at /abs/a.ts:3:9`, `file:///abs/a.mjs:4:2`), Node's own `a.js:3` over a syntax error, tsc's
`a.ts(3,9)` and `a.ts:3:9`, Babel's `a.js: Unexpected token (3:9)`, and Jest's code frames
(`> 12 |`), each taken for the file of the location nearest it that names the same line."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import unquote

from bot.lang import base, js_mutants, js_review, js_units
from bot.lang.base import Definition, Mutant, Spot, Unit
from bot.lang.tree import parsed, problem

EXTENSION = r"\.[cm]?[jt]sx?"
LOCATIONS = (
    # A stack frame or a runner's pointer: a path (or file:// URL) after a space, `(` or a line's start.
    re.compile(rf"(?:(?<=[\s(\[])|^)(?P<url>file://)?(?P<path>[^\s()\[\]'\":]+{EXTENSION}):(?P<line>\d+)\b", re.M),
    re.compile(rf"(?:(?<=\s)|^)(?P<path>[^\s()\[\]'\":]+{EXTENSION})\((?P<line>\d+),\d+\)", re.M),  # tsc
    re.compile(rf"(?:(?<=\s)|^)(?P<path>[^\s()\[\]'\":]+{EXTENSION}): [^\n]*?\((?P<line>\d+):\d+\)$", re.M),  # Babel
)
CODE_FRAME = re.compile(r"^\s*>\s*(?P<line>\d+) \|", re.M)  # Jest's, Babel's: the line pointed at


@dataclass(frozen=True)
class JavaScript:
    """One of the three grammars; `name` is ast-grep's name for it, and a Markdown fence's."""

    name: str

    def parses(self, code: str) -> str | None:
        return problem(parsed(code, self.name))

    def definitions(self, code: str) -> list[Definition]:
        return js_units.definitions(code, self.name)

    def outline(self, code: str, near: set[int]) -> str:
        return base.outline(code, self.definitions(code), near)

    def windows(self, code: str, lines_wanted: set[int], names: Iterable[str]) -> str:
        return base.windows(code, self.definitions(code), lines_wanted, names)

    def pointed_at(self, text: str, path: str, root: str = "") -> set[int]:
        return pointed_at(text, path, root)

    def units(self, code: str) -> list[Unit]:
        return js_units.units(code, self.name)

    def pointed_unit(self, code: str, failures: str, path: str, task: str) -> Unit | None:
        # A V8 stack lists the innermost frame first: reversed, it ends nearest the error.
        frames = shown_lines(failures, path)[::-1]
        return base.pointed_unit(self.units(code), frames, self.definitions(code), failures, task)

    def spliced(self, code: str, unit: str, new: str) -> str:
        return js_units.spliced(code, self.name, unit, new)

    def mutants(self, code: str, original: str | None, budget: int | None = None) -> list[Mutant]:
        return js_mutants.mutants(code, self.name, original, budget)

    def null_mutants(self, code: str, original: str | None) -> list[Mutant]:
        return js_mutants.null_mutants(code, self.name, original)

    def findings(self, old: str | None, new: str) -> list[Spot]:
        return js_review.findings(old, new, self.name)


JAVASCRIPT = JavaScript("javascript")
TYPESCRIPT = JavaScript("typescript")
TSX = JavaScript("tsx")


def pointed_at(text: str, path: str, root: str = "") -> set[int]:
    """The line numbers of `path` the failures in `text` point at (paths relative to the work
    folder, or absolute under `root`)."""
    return set(shown_lines(text, path, root))


def shown_lines(text: str, path: str, root: str = "") -> list[int]:
    """The lines of `path` the failures in `text` point at, in the order `text` shows them."""
    located = []  # (offset in `text`, path, line)
    for pattern in LOCATIONS:
        for match in pattern.finditer(text):
            where = unquote(match["path"]) if match.groupdict().get("url") else match["path"]
            located.append((match.start(), where, int(match["line"])))
    found = [(offset, number) for offset, where, number in located if same_file(where, path, root)]
    for frame in CODE_FRAME.finditer(text):
        number = int(frame["line"])
        # Of the locations naming its line, the first after it, else the last before it.
        naming = [
            (offset < frame.start(), abs(offset - frame.start()), where) for offset, where, n in located if n == number
        ]
        if naming and same_file(min(naming)[2], path, root):
            found.append((frame.start(), number))
    return [number for _, number in sorted(found)]


def same_file(where: str, path: str, root: str) -> bool:
    if root:
        where = where.removeprefix(root.rstrip("/") + "/")
    where, path = where.removeprefix("./"), path.removeprefix("./")
    return where == path or where.endswith("/" + path)
