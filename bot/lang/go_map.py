"""What the repository map reads of a Go file (`mapped.MapView`): its definitions (bot/lang/go_units.py's:
functions, methods with their receivers, types) with their headings and their doc comment's first
line, an interface's methods under it; the names it defines for other files (those, the methods,
its top-level `var`s and `const`s, and its package's: its folder's name, as an import path's last
element names it, but for a test file's or a `package main`'s, which nothing imports); and the
names it uses: every identifier, and the package of each import
(`"example.com/shop/internal/money"` uses `money`), found by ast-grep's searches, in Rust. A test
file (`_test.go`) is otherwise read like any other."""

from __future__ import annotations

import bisect
import itertools
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath

from ast_grep_py import SgNode

from bot.lang import go_units
from bot.lang.go_review import import_path, package_name
from bot.lang.mapped import Names, Symbol
from bot.lang.tree import line, parsed

NAMES = ("identifier", "type_identifier", "field_identifier", "package_identifier")
VALUES = {"var_declaration": "var_spec", "const_declaration": "const_spec"}


@dataclass(frozen=True)
class GoMap:
    language: str = "Go"

    def names(self, path: str, code: str) -> Names:
        root = parsed(code, "go")
        found = go_units.found(root)
        docs = documented(root, code.splitlines())
        symbols = list(outline(code, found, docs))
        members = list(interface_methods(root, docs))
        symbols = sorted([*symbols, *members], key=lambda symbol: (symbol.line, symbol.depth))
        defined = Counter(one.name for one in found) | Counter(declared(root)) | Counter(s.name for s in members)
        uses = Counter(node.text() for node in root.find_all(any=[{"kind": kind} for kind in NAMES]))
        uses -= Counter(
            node.text() for node in root.find_all(kind="package_identifier", inside={"kind": "package_clause"})
        )
        uses.update(package_name(import_path(spec)) for spec in root.find_all(kind="import_spec"))
        uses -= defined  # a definition's own name is no use of it
        clause = root.find(kind="package_identifier", inside={"kind": "package_clause"})
        importable = not path.endswith("_test.go") and (clause is None or clause.text() != "main")
        defines = set(defined) | ({module_of(path)} if importable else set())
        return Names(tuple(symbols), frozenset(name for name in defines if name.isidentifier() and name != "_"), uses)


GO = GoMap()


def outline(code: str, found: list[go_units.Found], docs: dict[int, str]) -> Iterator[Symbol]:
    """Each definition on the line its heading starts, at the file's level (a method is declared
    apart from its type), its heading on one line."""
    starts = [0, *itertools.accumulate(len(each) for each in code.splitlines(keepends=True))]
    for one in found:
        start, end = one.heading
        header = " ".join(code[start:end].split())
        if one.kind == "type" and one.grouped:
            header = f"type {header}"
        yield Symbol(one.name, bisect.bisect_right(starts, start), 0, header, docs.get(one.first, ""))


def interface_methods(root: SgNode, docs: dict[int, str]) -> Iterator[Symbol]:
    """The methods an interface the file declares names, one level under it."""
    for spec in root.find_all(kind="type_spec"):
        shape = spec.field("type")
        if shape is None or shape.kind() != "interface_type" or spec.parent() is None:
            continue
        for method in shape.find_all(kind="method_elem"):
            name = method.field("name")
            if name is not None:
                yield Symbol(name.text(), line(method), 1, " ".join(method.text().split()), docs.get(line(method), ""))


def documented(root: SgNode, lines: list[str]) -> dict[int, str]:
    """The first line of each doc comment's text (a run of `//` lines, or a `/* */` block, with
    nothing between it and what it documents), by the line after it; a directive (`//go:…`) is no
    description."""
    docs: dict[int, str] = {}
    run: list[str] = []
    last = -2
    for comment in root.find_all(kind="comment"):
        start, end = comment.range().start.line, comment.range().end.line
        text = comment.text()
        if lines[start][: comment.range().start.column].strip():  # after code on its line
            run, last = [], -2
            continue
        if start != last + 1:
            run = []
        run.append(text)
        last = end
        described = [each for part in run for each in lines_of(part)]
        first = next((each for each in described if each), "")
        if first:
            docs[end + 2] = first
    return docs


def lines_of(comment: str) -> list[str]:
    if comment.startswith("//"):
        text = comment[2:].strip()
        return [] if comment.startswith("//go:") or text.startswith("+build") else [text]
    body = comment.removeprefix("/*").removesuffix("*/")
    return [each.strip().lstrip("*").strip() for each in body.splitlines()]


def declared(root: SgNode) -> list[str]:
    """The names the file's top-level `var` and `const` declarations give."""
    names = []
    for child in root.children():
        spec_kind = VALUES.get(child.kind())
        if spec_kind is None:
            continue
        for spec in child.find_all(kind=spec_kind):
            names += [name.text() for name in spec.field_children("name")]
    return names


def module_of(path: str) -> str:
    """The name another package imports the file's by: its folder's (none at the module's root)."""
    return PurePosixPath(path).parent.name
