"""The definitions of a Go file, and one of them replaced by a model's text.

A definition is a function (`func Map[T any](…)`), a method, qualified by its receiver's type
without a pointer or type arguments (`func (s *Stack[T]) Push(…)` is `Stack.Push`), or a type
declaration (a struct, an interface, any named type or alias). Go nests no named function in
another, so every definition is a unit. What gets replaced is the declaration's own span (of a type
in a `type ( … )` group, its spec alone); the doc comment above it stays the file's, so the rest of
the file keeps every character."""

from __future__ import annotations

from dataclasses import dataclass

from ast_grep_py import SgNode

from bot.lang.base import Definition, Unit
from bot.lang.tree import last_line, line, parsed, problem, span, walk

TYPE_SPECS = {"type_spec", "type_alias"}
KINDS = {"function_declaration": "function", "method_declaration": "method"}


@dataclass(frozen=True)
class Found:
    """A definition and where it lies."""

    name: str
    qualname: str
    kind: str  # function, method or type
    receiver: str  # a method's type (`Stack`), else ""
    grouped: bool  # a type spec of a `type ( … )` group: its spec is replaced, not the declaration
    first: int
    last: int
    start: int  # the span replaced
    end: int
    heading: tuple[int, int]  # `func (s *Stack[T]) Push(v T)`, `type Stack[T any] struct`: up to its body
    spec: tuple[int, int]  # a type's spec (`Stack[T any] struct {…}`); the span replaced otherwise


def found(root: SgNode) -> list[Found]:
    """Every definition at the file's level, in the order of the text."""
    out: list[Found] = []
    for node in root.children():
        kind = node.kind()
        if kind in KINDS:
            name = text_of(node.field("name"))
            if not name:
                continue
            receiver = receiver_type(node.field("receiver")) if kind == "method_declaration" else ""
            body = node.field("body")
            start, end = span(node)
            heading = (start, span(body)[0] if body is not None else end)
            qualname = f"{receiver}.{name}" if receiver else name
            where = (line(node), last_line(node), start, end)
            out.append(Found(name, qualname, KINDS[kind], receiver, False, *where, heading, (start, end)))
        elif kind == "type_declaration":
            specs = [child for child in node.children() if child.kind() in TYPE_SPECS]
            grouped = len(specs) != 1 or any(child.kind() == "(" for child in node.children())
            for spec in specs:
                name = text_of(spec.field("name"))
                if not name:
                    continue
                replaced = spec if grouped else node
                start, end = span(replaced)
                heading = (start, type_body(spec, end))
                where = (line(replaced), last_line(replaced), start, end)
                out.append(Found(name, name, "type", "", grouped, *where, heading, span(spec)))
    return out


def receiver_type(receiver: SgNode | None) -> str:
    """The type a receiver `(s *Stack[T])` names, without its pointer and type arguments: `Stack`."""
    if receiver is None:
        return ""
    declaration = next(iter(receiver.named_children()), None)
    kind = declaration.field("type") if declaration is not None else None
    while kind is not None and kind.kind() in {"pointer_type", "generic_type", "parenthesized_type"}:
        kind = next((child for child in kind.named_children() if child.kind() != "type_arguments"), None)
    return kind.text() if kind is not None and kind.kind() == "type_identifier" else ""


def type_body(spec: SgNode, end: int) -> int:
    """Where a struct's or interface's braces open (its heading ends there), else the spec's end."""
    shape = spec.field("type")
    if shape is not None and shape.kind() in {"struct_type", "interface_type"}:
        brace = next((child for child in walk(shape) if child.kind() == "{"), None)
        if brace is not None:
            return span(brace)[0]
    return end


def text_of(node: SgNode | None) -> str:
    return node.text() if node is not None else ""


def definitions(code: str) -> list[Definition]:
    """(qualified name, first line, last line) of every definition; for code that doesn't parse,
    those the parser could still place."""
    return [(one.qualname, one.first, one.last) for one in found(parsed(code, "go"))]


def units(code: str) -> list[Unit]:
    """Every definition, whole; none for code that doesn't parse."""
    root = parsed(code, "go")
    if problem(root) is not None:
        return []
    lines = code.splitlines()
    return [
        Unit(one.name, one.qualname, one.kind, one.first, one.last, indentation(lines[one.first - 1]))
        for one in found(root)
    ]


def indentation(text: str) -> str:
    return text[: len(text) - len(text.lstrip())]


def spliced(code: str, qualname: str, new: str) -> str:
    """`code` with the unit `qualname` replaced by its definition in `new` (a reply may hold a
    `package` clause, imports and other definitions: only the unit's is taken), re-indented as the
    unit was. ValueError, its message for the model, when `new` doesn't parse or doesn't define the
    unit, or when the result doesn't parse where `code` did."""
    target = next((one for one in found(parsed(code, "go")) if one.qualname == qualname), None)
    if target is None:
        raise ValueError(f"the file has no `{qualname}` to replace")
    piece, indent_of_piece, literal = replacement(target, new)
    indent = indentation(code[code.rfind("\n", 0, target.start) + 1 : target.start])
    text = code[: target.start] + reindented(piece, indent_of_piece, indent, literal) + code[target.end :]
    broken = problem(parsed(text, "go"))
    if broken is not None and problem(parsed(code, "go")) is None:
        raise ValueError(f"your `{target.name}` does not fit where the file's was: {broken}")
    return text


def replacement(target: Found, new: str) -> tuple[str, str, frozenset[int]]:
    """The text of `new`'s definition of `target`, the indentation of the line it starts on, and
    the lines of it (from 0) inside a multi-line raw string. A type of a `type ( … )` group may come
    as its spec alone (`Cents int`): it is read inside a group then."""
    attempts = [new] + ([f"type (\n{new}\n)\n"] if target.grouped else [])
    why = None
    for source in attempts:
        root = parsed(source, "go")
        broken = problem(root)
        if broken is None:
            break
        why = why or broken  # the reply's own line numbers: the attempt without a wrapper's
    else:
        raise ValueError(f"the code in your reply does not parse: {why}")
    every = found(root)
    fitting = [one for one in every if one.qualname == target.qualname and one.kind == target.kind]
    if not fitting:
        named = [one for one in every if one.name == target.name]
        if named:
            other = named[-1]
            raise ValueError(
                f"the code in your reply defines `{other.name}` as {shape(other)}, where the file has {shape(target)}"
            )
        raise ValueError(f"the code in your reply does not define `{target.qualname}`")
    match = fitting[-1]  # a model that refines its answer puts the final version last
    start, end = match.start, match.end
    prefix = ""
    if target.grouped:
        start, end = match.spec
    elif match.grouped:
        prefix = "type "
    indent = indentation(source[source.rfind("\n", 0, start) + 1 : start])
    return prefix + source[start:end], indent, literal_lines(root, source, start, end)


def shape(one: Found) -> str:
    return f"a method of `{one.receiver}`" if one.kind == "method" else f"a {one.kind}"


def literal_lines(root: SgNode, source: str, start: int, end: int) -> frozenset[int]:
    first = source.count("\n", 0, start)
    inside: set[int] = set()
    for node in root.find_all(kind="raw_string_literal"):
        if start <= span(node)[0] < end:
            inside.update(range(line(node), last_line(node)))  # the lines after its first, 0-based
    return frozenset(number - first for number in inside)


def reindented(text: str, was: str, indent: str, literal: frozenset[int]) -> str:
    """`text`'s lines after its first moved from the indentation `was` to `indent`, but for a raw
    string's."""
    lines = text.split("\n")
    out = [lines[0]]
    for number, each in enumerate(lines[1:], 1):
        if number in literal:
            out.append(each)
        else:
            out.append(indent + each.removeprefix(was) if each.strip() else "")
    return "\n".join(out)
