"""Python's units: one function or class asked for whole in place of edit blocks (for a model that
can't write SEARCH/REPLACE blocks, bot/core/edits.py) goes into the file by the definition's span
(`ast`: its decorators to its last line). The rest of the file stays as it is, however long.

`put_in` does the same, unasked, for a reply in edit mode that holds no edit block at all but
definitions of the file's functions or classes (a small model's usual answer): each takes the place
of the file's definition of its name."""

from __future__ import annotations

import ast
from dataclasses import dataclass

from bot import syntax
from bot.core import source
from bot.core.extract import candidates, dedented, parses, read
from bot.lang.base import Unit, pointed_unit

Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
DEFINITION = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class NotSpliced(ValueError):
    """The reply's code can't take the unit's place; the reason is its message (a ValueError, as
    every language's splice refuses, bot/lang/base.py)."""


def units(code: str) -> list[Unit]:
    """The file's functions and classes, and the methods and classes inside classes; not what is
    nested in a function (the function is the unit). None for code that doesn't parse."""
    try:
        tree = syntax.parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []
    lines = code.splitlines()
    found: list[Unit] = []

    def visit(body: list[ast.stmt], owner: str) -> None:
        for node in body:
            if not isinstance(node, DEFINITION):
                continue
            is_class = isinstance(node, ast.ClassDef)
            kind = "class" if is_class else "method" if owner else "function"
            first = first_line(node)
            line = lines[node.lineno - 1]
            indent = line[: len(line) - len(line.lstrip())]
            qualname = f"{owner}.{node.name}" if owner else node.name
            found.append(Unit(node.name, qualname, kind, first, node.end_lineno or node.lineno, indent))
            if is_class:
                visit(node.body, qualname)

    visit(tree.body, "")
    return found


def pointed_at(code: str, failures: str, target: str, task: str) -> Unit | None:
    """The one unit the failures point at (bot/lang/base.py's `pointed_unit`): Python's tracebacks
    end nearest the error."""
    return pointed_unit(units(code), shown_lines(failures, target), source.definitions(code), failures, task)


def shown_lines(text: str, path: str) -> list[int]:
    """The lines of `path` the tracebacks in `text` show, in the order shown."""
    found = []
    for pattern in source.LOCATIONS:
        for match in pattern.finditer(text):
            if match["path"] == path or match["path"].endswith("/" + path):
                found.append((match.start(), int(match["line"])))
    return [line for _, line in sorted(found)]


def spliced(code: str, unit: Unit, new: str) -> str:
    """`code` with `unit` replaced by the definition of its name in `new` (the reply's code, at
    the top level): indented as the unit was, its decorators with it; what else `new` holds is
    left out, as the model was told."""
    try:
        tree = syntax.parse(new)
    except SyntaxError as exc:
        raise NotSpliced(f"the code in your reply does not parse: {exc.msg} (its line {exc.lineno})") from None
    defining = [node for node in tree.body if isinstance(node, DEFINITION) and node.name == unit.name]
    if not defining:
        raise NotSpliced(f"the code in your reply does not define `{unit.name}`")
    node = defining[-1]
    piece = new.splitlines()[first_line(node) - 1 : node.end_lineno]
    lines = code.splitlines(keepends=True)
    placed = "".join(f"{unit.indent}{line}\n" if line.strip() else "\n" for line in piece)
    return "".join(lines[: unit.first - 1]) + placed + "".join(lines[unit.last :])


@dataclass(frozen=True)
class Placed:
    """What `put_in` made of a reply: the new text, the definitions put in place (qualnames), and
    what of the reply was not applied."""

    text: str
    placed: list[str]
    left_out: list[str]  # definitions the file has no place for, and a count of other statements

    def told(self) -> str:
        """What the model is told with the verdict: its reply was used, and how."""
        said = (
            "Your reply had no edit blocks, so its definitions took the place of the file's: "
            f"{', '.join(f'`{name}`' for name in self.placed)}."
        )
        if self.left_out:
            said += f" Not applied: {', '.join(self.left_out)}."
        return said


def put_in(code: str, reply: str) -> Placed:
    """`code` with each top-level definition of `reply`'s code whose name the file defines at its
    top level in place of the file's. A class that lacks some of the file's class's members gives
    only the members it has (a class written with just its changed method keeps the others).
    Definitions of names the file lacks and other statements (imports, calls of its own tests)
    are left out, and counted. The code is the reply's code region that places the most (of
    equals, the last). NotSpliced when none places anything."""
    try:
        tree = syntax.parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        raise NotSpliced("the reply has no edit blocks, and the file does not parse") from None
    top = {node.name: node for node in tree.body if isinstance(node, DEFINITION)}
    region = read(reply, lambda: placing_most(reply, top))
    if not region:
        raise NotSpliced(NOTHING_PLACED)
    new = syntax.parse(region).body
    text, placed, left_out = code, [], []
    for name, node in defined(new).items():
        if name not in top:
            left_out.append(f"`{name}` (the file has no such definition)")
            continue
        old = top[name]
        if isinstance(node, ast.ClassDef) and isinstance(old, ast.ClassDef):
            given, held = members(node), members(old)
            if not held.keys() <= given.keys():  # a partial class: its members, one by one
                for member, child in given.items():
                    if member in held:
                        text = spliced(text, unit_named(text, f"{name}.{member}"), piece(region, child))
                        placed.append(f"{name}.{member}")
                    else:
                        left_out.append(f"`{name}.{member}` (the file's class has no such member)")
                continue
        text = spliced(text, unit_named(text, name), piece(region, node))
        placed.append(name)
    if not placed:
        raise NotSpliced(NOTHING_PLACED)
    kept = {ast.dump(node) for node in tree.body if not isinstance(node, DEFINITION)}
    others = sum(not isinstance(node, DEFINITION) and ast.dump(node) not in kept for node in new)
    if others:
        left_out.append(f"{others} other statement{'s' if others > 1 else ''} of the reply")
    return Placed(text, placed, left_out)


NOTHING_PLACED = "the reply has no edit blocks, and its code defines none of the file's functions or classes"


def placing_most(reply: str, top: dict[str, Definition]) -> str:
    """The reply's code region that defines the most of the names in `top` (of equals, the last),
    or "" when none defines any."""
    parsing = [code for code in candidates(reply) if parses(code)]
    scored = [(sum(name in top for name in defined(syntax.parse(code).body)), code) for code in parsing]
    best = max((score for score, _ in scored), default=0)
    return [code for score, code in scored if score == best][-1] if best else ""


def defined(body: list[ast.stmt]) -> dict[str, Definition]:
    """The definitions among `body`'s statements by name, in order of first appearance; the last
    of a name wins (a model that refines its answer puts the final version last)."""
    found: dict[str, Definition] = {}
    for node in body:
        if isinstance(node, DEFINITION):
            found[node.name] = node
    return found


def members(node: ast.ClassDef) -> dict[str, Definition]:
    return {child.name: child for child in node.body if isinstance(child, DEFINITION)}


def unit_named(code: str, qualname: str) -> Unit:
    return next(unit for unit in units(code) if unit.qualname == qualname)


def piece(code: str, node: Definition) -> str:
    """A definition's text, decorators included, at the margin (a method is written at its class's depth)."""
    return dedented("\n".join(code.splitlines()[first_line(node) - 1 : node.end_lineno]) + "\n")


def first_line(node: Definition) -> int:
    """A definition's first line: its first decorator's, or its `def` or `class` line."""
    return min([node.lineno, *(d.lineno for d in node.decorator_list)])
