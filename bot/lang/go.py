"""The code view of Go (`base.CodeView`): tree-sitter's grammar, through ast-grep.

Where failures point: `go test`'s own lines (`    calc_test.go:12: got 3, want 4`, a file's base
name only, whatever its package's folder), a panic's stack frames (`\t/abs/calc.go:7 +0x1d`, the
innermost frame first, as V8 lists them; `example.com/m/calc.go:7` built with -trimpath), the
compiler's and `go vet`'s (`./calc.go:7:2: undefined: x`, `vet: sub/calc.go:7:2: …`, relative to
where the command ran). A location naming a file by its base name alone (`calc_test.go:12`,
`./calc.go:7:2`) is taken for every file of that name: the output names no folder for it."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from bot.lang import base, go_mutants, go_review, go_units
from bot.lang.base import Definition, Mutant, Spot, Unit
from bot.lang.tree import parsed, problem

LOCATION = re.compile(r"(?:(?<=[\s(\[\"'])|^)(?P<path>[^\s()\[\]'\":]+\.go):(?P<line>\d+)\b", re.M)
TEST_NAME = re.compile(r"\b(?:Test|Benchmark|Fuzz|Example)_?([A-Za-z0-9]\w*)")


@dataclass(frozen=True)
class Go:
    name: str = "go"  # ast-grep's name for the grammar, and a Markdown fence's

    def parses(self, code: str) -> str | None:
        return problem(parsed(code, "go"))

    def definitions(self, code: str) -> list[Definition]:
        return go_units.definitions(code)

    def outline(self, code: str, near: set[int]) -> str:
        return base.outline(code, self.definitions(code), near)

    def windows(self, code: str, lines_wanted: set[int], names: Iterable[str]) -> str:
        return base.windows(code, self.definitions(code), lines_wanted, names)

    def pointed_at(self, text: str, path: str, root: str = "") -> set[int]:
        return pointed_at(text, path, root)

    def units(self, code: str) -> list[Unit]:
        return go_units.units(code)

    def pointed_unit(self, code: str, failures: str, path: str, task: str) -> Unit | None:
        # A panic's trace lists the innermost frame first: reversed, it ends nearest the error.
        frames = shown_lines(failures, path)[::-1]
        return base.pointed_unit(self.units(code), frames, self.definitions(code), tested(failures), task)

    def spliced(self, code: str, unit: str, new: str) -> str:
        return go_units.spliced(code, unit, new)

    def mutants(self, code: str, original: str | None, budget: int | None = None) -> list[Mutant]:
        return go_mutants.mutants(code, original, budget)

    def null_mutants(self, code: str, original: str | None) -> list[Mutant]:
        return go_mutants.null_mutants(code, original)

    def findings(self, old: str | None, new: str) -> list[Spot]:
        return go_review.findings(old, new)


GO = Go()


def pointed_at(text: str, path: str, root: str = "") -> set[int]:
    """The line numbers of `path` the failures in `text` point at (paths relative to the work
    folder, or absolute under `root`)."""
    return set(shown_lines(text, path, root))


def shown_lines(text: str, path: str, root: str = "") -> list[int]:
    """The lines of `path` the failures in `text` point at, in the order `text` shows them."""
    return [int(match["line"]) for match in LOCATION.finditer(text) if same_file(match["path"], path, root)]


def tested(text: str) -> str:
    """`text` with the names Go's tests are named after in the words base.named_in reads a test's
    name by: `TestWithTax` adds `test_WithTax`; `TestCart_Total`, Go's name for a test of the method
    `Cart.Total`, adds `test_Total`."""
    named = [f"test_{match[1].rpartition('_')[2]}" for match in TEST_NAME.finditer(text)]
    return text + ("\n" + " ".join(named) if named else "")


def same_file(where: str, path: str, root: str) -> bool:
    if root:
        if where.startswith("/") and not where.startswith(root.rstrip("/") + "/"):
            return False  # the toolchain's own files (`/usr/local/go/src/testing/testing.go`), a module cache's
        where = where.removeprefix(root.rstrip("/") + "/")
    where, path = where.removeprefix("./"), path.removeprefix("./")
    if "/" not in where:  # `go test` names a file by its base name; the compiler, from where it ran
        return where == path.rpartition("/")[2]
    return where == path or where.endswith("/" + path)
