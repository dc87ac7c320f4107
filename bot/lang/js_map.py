"""What the repository map reads of a JavaScript or TypeScript file (`mapped.MapView`): its
definitions (bot/lang/js_units.py's, but those inside a function) with their headings and their
JSDoc's first line; the names it defines for other files (those definitions, its top-level
declarations, TypeScript's interfaces, types and enums, its module's name); and the names it uses:
every identifier, and the module named by each `import`, `export … from` and `require(…)`
(`'../toDate/index.js'` uses `toDate`), found by ast-grep's searches, in Rust: a walk from Python
over every node would cost several times as much."""

from __future__ import annotations

import bisect
import itertools
from collections import Counter
from dataclasses import dataclass
from pathlib import PurePosixPath

from ast_grep_py import SgNode

from bot.lang import js_units, registry
from bot.lang.mapped import Names, Symbol
from bot.lang.tree import parsed

NAMES = ("identifier", "property_identifier", "shorthand_property_identifier", "shorthand_property_identifier_pattern")
TYPE_NAMES = (*NAMES, "type_identifier")  # TypeScript's grammars: JavaScript's has no such kind
DECLARATIONS = {"lexical_declaration", "variable_declaration"}
TYPES = {"interface_declaration", "type_alias_declaration", "enum_declaration"}
IMPORTING = ("import_statement", "export_statement")  # whose string is the module's specifier
LOADS = ("require($M)", "import($M)")
FOLDER_MODULE = "index"  # `./toDate` loads ./toDate/index.js
CONSTRUCTOR = "constructor"  # called by its class's name: another file's `new X` uses no one's `constructor`


@dataclass(frozen=True)
class JsMap:
    grammar: str  # ast-grep's name: javascript, typescript, tsx
    language: str
    kinds: tuple[str, ...]  # the grammar's nodes that name something

    def names(self, path: str, code: str) -> Names:
        root = parsed(code, self.grammar)
        found = js_units.found(root, outer=True)
        symbols = tuple(outline(code, found, documented(root)))
        defined = Counter(one.name for one in found) | Counter(declared(root))  # `const f = () => …` once
        uses = Counter(node.text() for node in root.find_all(any=[{"kind": kind} for kind in self.kinds]))
        uses.update(module_of(source) for source in loaded(root))
        # A definition's own name is no use of it: a file defining its own `chunk` uses no other's.
        uses -= defined
        defines = (set(defined) | {module_of(path)}) - {CONSTRUCTOR}
        return Names(symbols, frozenset(name for name in defines if is_name(name)), uses)


JS = JsMap("javascript", "JavaScript", NAMES)
TS = JsMap("typescript", "TypeScript", TYPE_NAMES)
TSX = JsMap("tsx", "TypeScript", TYPE_NAMES)


def outline(code: str, found: list[js_units.Found], docs: dict[int, str]) -> list[Symbol]:
    """The definitions as the map lists them: each on the line its heading starts, as deep as the
    definitions holding it, its heading on one line."""
    starts = [0, *itertools.accumulate(len(each) for each in code.splitlines(keepends=True))]  # of each line
    holding: list[int] = []  # the ends of the definitions that hold the current one
    symbols = []
    for one in found:  # in the order of their starts
        while holding and holding[-1] <= one.start:
            holding.pop()
        start, end = one.heading
        header = " ".join(code[start:end].split())
        symbols.append(
            Symbol(one.name, bisect.bisect_right(starts, start), len(holding), header, docs.get(one.first, ""))
        )
        holding.append(one.end)
    return symbols


def documented(root: SgNode) -> dict[int, str]:
    """The first line of each JSDoc comment's text, by the line after it: the line what it documents starts."""
    docs = {}
    for comment in root.find_all(kind="comment", regex=r"^/\*\*"):
        text = comment.text().removeprefix("/**").removesuffix("*/")
        lines = (each.strip().lstrip("*").strip() for each in text.splitlines())
        first = next((each for each in lines if each), "")
        if first and not first.startswith("@"):  # a tag (`@type {X}`) is no description
            docs[comment.range().end.line + 2] = first
    return docs


def declared(root: SgNode) -> list[str]:
    """The names the file's top-level declarations give (`const TAX = 20`, `export let x`), and
    TypeScript's interfaces, type aliases and enums."""
    names = []
    for child in root.children():
        statement = child.field("declaration") if child.kind() == "export_statement" else child
        if statement is None:
            continue
        if statement.kind() in DECLARATIONS:
            named = (each.field("name") for each in statement.children() if each.kind() == "variable_declarator")
            names += [name.text() for name in named if name is not None and name.kind() == "identifier"]
        elif statement.kind() in TYPES and (name := statement.field("name")) is not None:
            names.append(name.text())
    return names


def loaded(root: SgNode) -> list[str]:
    """The module specifiers the file imports, re-exports or requires, as written."""
    found = [node.text() for kind in IMPORTING for node in root.find_all(kind="string", inside={"kind": kind})]
    for pattern in LOADS:
        found += [loads.text() for match in root.find_all(pattern=pattern) if (loads := match.get_match("M"))]
    return [text[1:-1] for text in found if text[:1] in "'\"`" and len(text) > 1]


def module_of(path: str) -> str:
    """The name a module goes by: its file's, without the extension; its folder's for an index file."""
    where = PurePosixPath(path)
    stem = where.stem if registry.for_path(where.name) is not None else where.name
    return where.parent.name if stem == FOLDER_MODULE else stem


def is_name(word: str) -> bool:
    return word.replace("$", "_").isidentifier()
