"""What a reviewer should look at in a JavaScript or TypeScript change (bot/core/review.py's kinds,
found on tree-sitter's tree): processes (`child_process`), the network (`http`, `https`, `net`,
`dgram`, `tls`, `fetch`, `XMLHttpRequest`, `WebSocket`), `process.env`, files read or written by
an absolute path or one climbing out (`..`), dynamic code (`eval`, `new Function`, `vm`) and long
encoded literals. A module is followed through the names it is bound to (`const cp =
require('child_process')`, `import { exec } from 'node:child_process'`). Only what the change adds
counts: a finding on a line the old text lacks, of a kind and detail the old text didn't have. Code
that doesn't parse is read as far as tree-sitter can place it: a reviewer's hint refuses nothing."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ast_grep_py import SgNode

from bot.lang.base import Spot, changed_lines
from bot.lang.tree import line, parsed, walk

MODULES = {
    "child_process": "process", "http": "network", "https": "network", "http2": "network", "net": "network",
    "dgram": "network", "tls": "network", "vm": "dynamic code",
}  # fmt: skip
FILES = {"fs", "fs/promises"}
NETWORK_CALLS = {"fetch", "globalThis.fetch", "window.fetch"}
NETWORK_CLASSES = {"XMLHttpRequest", "WebSocket", "EventSource"}
DYNAMIC_CALLS = {"eval": "eval()", "Function": "new Function()"}

ENCODED = 200  # characters: a base64- or hex-looking literal this long is an encoded payload
BASE64 = re.compile(r"[A-Za-z0-9+/_-]+={0,2}")
HEX = re.compile(r"(?:[0-9a-fA-F]{2}|\\x[0-9a-fA-F]{2})+")
OUTSIDE = re.compile(r"(?:/[\w.-]|~(?:/|$)|\.\.(?:/|$))")  # absolute, the home folder, a climb out
SHOWN_CHARS = 24  # of a long literal


def findings(old: str | None, new: str, language: str) -> list[Spot]:
    """(line, kind, detail) of what `new` adds to `old` (None: a new file), in the order of the file."""
    before = {(kind, detail) for _, kind, detail in spots(old, language)} if old is not None else set()
    written = None if old is None else changed_lines(old, new)
    found: list[Spot] = []
    for at, kind, detail in spots(new, language):
        if (written is None or at in written) and (kind, detail) not in before:
            before.add((kind, detail))
            found.append((at, kind, detail))
    return found


def spots(code: str, language: str) -> list[Spot]:
    root = parsed(code, language)
    nodes = list(walk(root))
    aliases = dict(bindings(nodes))
    found: list[Spot] = []
    for node in nodes:
        kind = node.kind()
        if kind in {"call_expression", "new_expression", "import_statement"}:
            found += calls(node, aliases)
        elif kind == "identifier" and node.text() in aliases and not declared(node):
            dotted = chained(node, aliases[node.text()])
            if (what := MODULES.get(dotted.split(".")[0])) is not None:
                found.append((line(node), what, dotted))
        elif kind == "member_expression" and node.text() == "process.env":
            found.append((line(node), "environment", "process.env"))
        elif kind in {"string", "template_string"} and not node.find(kind="template_substitution"):
            found += literal(node)
    return sorted(found)


def module_of(node: SgNode) -> str | None:
    """The module `require('x')`, `import('x')` or `import … from 'x'` loads, without `node:`."""
    if node.kind() == "import_statement":
        source = node.field("source")
    else:
        callee, arguments = node.field("function"), node.field("arguments")
        if callee is None or callee.text() not in {"require", "import"} or arguments is None:
            return None
        source = next(iter(arguments.named_children()), None)
    if source is None or source.kind() != "string":
        return None
    return source.text()[1:-1].removeprefix("node:")


def bindings(nodes: list[SgNode]) -> Iterator[tuple[str, str]]:
    """(local name, what it stands for) of each name bound to a module or one of its members."""
    for node in nodes:
        if node.kind() == "variable_declarator":
            value, name = node.field("value"), node.field("name")
            module = module_of(value) if value is not None and value.kind() == "call_expression" else None
            if module is None or name is None:
                continue
            if name.kind() == "identifier":
                yield name.text(), module
            elif name.kind() == "object_pattern":
                for part in name.named_children():
                    if part.kind() == "shorthand_property_identifier_pattern":
                        yield part.text(), f"{module}.{part.text()}"
                    elif (
                        part.kind() == "pair_pattern" and (key := part.field("key")) and (bound := part.field("value"))
                    ):
                        yield bound.text(), f"{module}.{key.text()}"
        elif node.kind() == "import_statement" and (module := module_of(node)) is not None:
            for clause in (child for child in node.children() if child.kind() == "import_clause"):
                for part in clause.named_children():
                    if part.kind() == "identifier":  # import cp from 'child_process'
                        yield part.text(), module
                    elif part.kind() == "namespace_import":  # import * as cp from …
                        yield from ((name.text(), module) for name in part.named_children())
                    for specifier in part.find_all(kind="import_specifier"):  # import { exec as run } from …
                        if (imported := specifier.field("name")) is not None:
                            yield (specifier.field("alias") or imported).text(), f"{module}.{imported.text()}"


def declared(node: SgNode) -> bool:
    """Whether the identifier `node` is a name being bound (`cp` of `const cp = …`), not a use."""
    parent = node.parent()
    if parent is None:
        return False
    if parent.kind() in {"variable_declarator", "pair_pattern"}:
        bound = parent.field("name") or parent.field("value")
        return bound is not None and bound.range().start.index == node.range().start.index
    return any(up.kind() == "import_statement" for up in node.ancestors())


def chained(node: SgNode, dotted: str) -> str:
    """`dotted` with the properties the chain around `node` reads after it: `cp.exec` → `child_process.exec`."""
    current = node
    while (parent := current.parent()) is not None and parent.kind() == "member_expression":
        target, name = parent.field("object"), parent.field("property")
        if target is None or name is None or target.range().start.index != current.range().start.index:
            break
        dotted, current = f"{dotted}.{name.text()}", parent
    return dotted


def calls(node: SgNode, aliases: dict[str, str]) -> Iterator[Spot]:
    """A module loaded, the network or dynamic code called, a file outside the repository touched."""
    module = module_of(node)
    if module is not None and module in MODULES:
        yield line(node), MODULES[module], module
    callee = node.field("function") if node.kind() == "call_expression" else node.field("constructor")
    if callee is None:
        return
    name = callee.text()
    if name in NETWORK_CALLS or (node.kind() == "new_expression" and name in NETWORK_CLASSES):
        yield line(node), "network", f"{name}()" if name in NETWORK_CALLS else name
    elif name in DYNAMIC_CALLS and name not in aliases:
        yield line(node), "dynamic code", DYNAMIC_CALLS[name]
    root = name.split(".")[0]
    if aliases.get(root, "").split(".")[0] in FILES and (arguments := node.field("arguments")) is not None:
        for part in walk(arguments):
            if part.kind() == "string_fragment" and OUTSIDE.match(part.text()) and " " not in part.text():
                yield line(part), "outside file", part.text()


def literal(node: SgNode) -> Iterator[Spot]:
    text = node.text()[1:-1]
    stripped = "".join(text.split())
    if len(stripped) < ENCODED:
        return
    shape = "base64-looking" if BASE64.fullmatch(stripped) else "hex-looking" if HEX.fullmatch(stripped) else ""
    if shape:
        flat = " ".join(text.split())
        shown = flat if len(flat) <= SHOWN_CHARS else flat[:SHOWN_CHARS] + "…"
        yield line(node), "long literal", f"{shown} ({len(text)} characters, {shape})"
