"""One whole function or class in place of edit blocks: for a model that can't write SEARCH/REPLACE
blocks (bot/core/edits.py), the unit the failures point at is named, the model writes its complete
new text, and it goes into the file by the definition's span (`ast`: its decorators to its last
line). The rest of the file stays as it is, however long.

`put_in` does the same, unasked, for a reply in edit mode that holds no edit block at all but
definitions of the file's functions or classes (a small model's usual answer): each takes the place
of the file's definition of its name."""

from __future__ import annotations

import ast
import re
from collections import Counter
from dataclasses import dataclass

from bot import syntax
from bot.core import source
from bot.core.extract import candidates, dedented, parses, read
from bot.core.prompts import task_text
from bot.core.protocol import Messages
from bot.spec import Spec
from bot.text import FEEDBACK_CHARS, clip_head, fence

SYSTEM = (
    "You repair existing code so that its automated tests pass; you cannot change the tests. "
    "You are asked for one function or class of `{target}`: reply with its complete new text (its "
    "decorators, its `def` or `class` line and its whole body) in a single ```python block, and "
    "nothing else of importance. It takes the place of the current definition; the rest of the file "
    "stays as it is. Write no edit blocks."
)
Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
DEFINITION = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
SWITCHED = "That was the second reply in a row whose edit blocks could not be applied, so write no edit blocks now."


class NotSpliced(Exception):
    """The reply's code can't take the unit's place; the reason is its message."""


@dataclass(frozen=True)
class Unit:
    """A function, method or class of the file: what the model is asked to write whole."""

    name: str  # as the `def` or `class` line names it
    qualname: str  # `Class.method` for a method
    kind: str  # "function", "method" or "class"
    first: int  # its first line, decorators included (1-based)
    last: int
    indent: str  # of its `def` or `class` line

    @property
    def called(self) -> str:
        return f"the {self.kind} `{self.qualname}`"

    def text(self, code: str) -> str:
        return "\n".join(code.splitlines()[self.first - 1 : self.last]) + "\n"


def request(spec: Spec, unit: Unit, code: str, failing: str, why: str) -> Messages:
    """The prompt asking for `unit` whole: `why` (what came of the last reply), how the file fails
    the tests, and the unit as it is now (whole: what it doesn't show, the reply would drop)."""
    failing = clip_head(failing.strip(), FEEDBACK_CHARS) or "(the tests gave no details)"
    text = (
        f"{task_text(spec, unit=unit.called)}\n\n{why}\n\n"
        f"## How `{spec.target}` fails the tests now\n\n{failing}\n\n"
        f"## {unit.called[0].upper()}{unit.called[1:]} now (lines {unit.first}-{unit.last} of `{spec.target}`)\n\n"
        f"{fence(unit.text(code), 'python')}\n\n{asking(unit)}"
    )
    return [{"role": "system", "content": SYSTEM.format(target=spec.target)}, {"role": "user", "content": text}]


def asking(unit: Unit) -> str:
    return f"Reply with the complete corrected text of {unit.called} in one ```python block."


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
    """The one unit the failures point at: the innermost one holding the most of the lines the
    tracebacks show in `target` (of equals, the one shown last, nearest an error); else the one the
    failures name most often (`test_windowed` names `windowed`); else the one the task names."""
    every = units(code)
    frames = [innermost(every, line) for line in shown_lines(failures, target)]
    hits = Counter(unit for unit in frames if unit is not None)
    if hits:
        most = max(hits.values())
        return next(unit for unit in reversed(frames) if unit is not None and hits[unit] == most)
    for text in (failures, task):
        named = source.named_in(text, code)
        words = Counter(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
        counts = {unit: words[unit.name] + words[f"test_{unit.name}"] for unit in every if unit.name in named}
        if counts:
            return max(counts, key=counts.__getitem__)  # of equals, the first in the file
    return None


def shown_lines(text: str, path: str) -> list[int]:
    """The lines of `path` the tracebacks in `text` show, in the order shown."""
    found = []
    for pattern in source.LOCATIONS:
        for match in pattern.finditer(text):
            if match["path"] == path or match["path"].endswith("/" + path):
                found.append((match.start(), int(match["line"])))
    return [line for _, line in sorted(found)]


def innermost(every: list[Unit], line: int) -> Unit | None:
    holding = [unit for unit in every if unit.first <= line <= unit.last]
    return max(holding, key=lambda unit: unit.first, default=None)


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
