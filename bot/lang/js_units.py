"""The definitions of a JavaScript or TypeScript file, and one of them replaced by a model's text.

A definition is what a reader calls a function, method or class, whatever its syntax: a function or
class declaration, `const f = (…) => …` or `= function …`, a class's method or function-valued
field, a method of the object a module exports (`module.exports = {…}`, `export default {…}`), and
an assignment of a function to `exports.f`, `module.exports.f` or `A.prototype.f`. What gets
replaced is the definition's own node (its decorators with it; an `export` before it stays the
file's), by its span in the text, so the rest of the file keeps every character."""

from __future__ import annotations

from dataclasses import dataclass

from ast_grep_py import SgNode

from bot.lang.base import Definition, Unit
from bot.lang.tree import last_line, line, parsed, problem, span, walk

FUNCTION_VALUES = {"arrow_function", "function_expression", "function", "generator_function"}
DECLARED_FUNCTIONS = {"function_declaration", "generator_function_declaration"}
DECLARED_CLASSES = {"class_declaration", "abstract_class_declaration"}
FIELDS = {"field_definition", "public_field_definition"}
EXPORTS = {"module.exports", "exports"}
# What a member's reply is parsed inside, when it doesn't parse alone: a class's body, the exported object.
WRAPPERS = {"class": ("class __AutofixUnit__ {\n", "\n}\n"), "object": ("module.exports = {\n", "\n};\n")}
SHAPES = {"declaration": "a declaration", "assignment": "an assignment", "member": "a member of its class or object"}


@dataclass(frozen=True)
class Found:
    """A definition and where it lies."""

    name: str
    qualname: str
    kind: str  # function, method or class
    shape: str  # declaration, assignment or member: what a replacement must be too
    member_of: str  # "class" or "object" for a member, else ""
    nested: bool  # inside a function: part of that function's unit, no unit of its own
    first: int  # its first line, an `export` and decorators included
    last: int
    start: int  # the span replaced: decorators included, an `export` not
    end: int
    declarator: tuple[int, int] | None  # `f = …` of `const f = …`
    heading: tuple[int, int]  # `function f(a, b)`, `class A extends B`, `const f = (a) =>`: up to its body


def found(root: SgNode, outer: bool = False) -> list[Found]:
    """Every definition under `root`, in the order of the text; with `outer`, those not nested in a
    function only, and a function's body is not walked (most of a file's nodes)."""
    out: list[Found] = []
    stack: list[tuple[SgNode, str, bool, str]] = [(child, "", False, "") for child in reversed(root.children())]
    while stack:
        node, prefix, nested, member_of = stack.pop()
        if nested and outer:
            continue
        kind = node.kind()
        one = defined(node, prefix, nested, member_of)
        if one is not None:
            out.append(one)
            prefix, nested = one.qualname, nested or one.kind != "class"
        elif kind in FUNCTION_VALUES or kind == "method_definition":
            nested = True
        children = [(child, "") for child in node.children()]
        if kind in DECLARED_CLASSES or kind == "class":
            body = node.field("body")
            children = [(child, "") for child in node.children() if child.kind() != "class_body"]
            children += [(member, "class") for member in body.children()] if body is not None else []
        elif (exported := exported_object(node)) is not None:
            children = [(member, "object") for member in exported.children()]
        stack.extend((child, prefix, nested, members) for child, members in reversed(children))
    return sorted(out, key=lambda one: one.start)


def defined(node: SgNode, prefix: str, nested: bool, member_of: str) -> Found | None:
    """The definition `node` is, if it is one."""
    kind = node.kind()
    value: SgNode | None = node  # what holds the body: the declaration, or the function a name is given
    if kind in DECLARED_FUNCTIONS or kind in DECLARED_CLASSES:
        name = text_of(node.field("name"))
        what, shape = ("class" if kind in DECLARED_CLASSES else "function"), "declaration"
    elif kind == "variable_declarator" and (value := node.field("value")) is not None:
        if not (is_function(value) or value.kind() == "class") or node.field("name") is None:
            return None
        name, shape = text_of(node.field("name")), "declaration"
        what = "class" if value.kind() == "class" else "function"
    elif member_of and kind == "method_definition":
        name, what, shape = member_name(node.field("name")), "method", "member"
    elif member_of == "class" and kind in FIELDS and is_function(value := node.field("value")):
        name, what, shape = member_name(node.field("name") or node.field("property")), "method", "member"
    elif member_of == "object" and kind == "pair" and is_function(value := node.field("value")):
        name, what, shape = member_name(node.field("key")), "method", "member"
    elif kind == "expression_statement" and (assigned := assigned_function(node)) is not None:
        name, owner, value = assigned
        prefix, what, shape = owner or prefix, "method" if owner else "function", "assignment"
    else:
        return None
    if not name:
        return None
    if member_of == "object":
        what = "function"  # of the module's exports: its functions
    replaced = node
    declarator = None
    if kind == "variable_declarator":
        declarator = span(node)
        parent = node.parent()
        if parent is not None and sum(c.kind() == "variable_declarator" for c in parent.children()) == 1:
            replaced = parent
    start, end = span(replaced)
    first = line(replaced)
    for before in replaced.prev_all():  # the decorators of a class member are its siblings
        if before.kind() != "decorator":
            break
        start, first = span(before)[0], line(before)
    outer = replaced.parent()
    if outer is not None and outer.kind() == "export_statement":
        first = line(outer)
    qualname = f"{prefix}.{name}" if prefix else name
    body = value.field("body") if value is not None else None
    heading = (span(replaced)[0], span(body)[0] if body is not None else end)
    return Found(
        name, qualname, what, shape, member_of, nested, first, last_line(replaced), start, end, declarator, heading
    )


def is_function(node: SgNode | None) -> bool:
    return node is not None and node.kind() in FUNCTION_VALUES


def text_of(node: SgNode | None) -> str:
    return node.text() if node is not None else ""


def member_name(node: SgNode | None) -> str:
    """A member's name as code calls it: `'q-r'` is `q-r`; a computed name (`[Symbol.iterator]`) as written."""
    if node is None:
        return ""
    return node.text()[1:-1] if node.kind() == "string" else node.text()


def assigned_function(statement: SgNode) -> tuple[str, str, SgNode] | None:
    """(name, owner, what is assigned) of `exports.f = …`, `module.exports.f = …` ("" owner) or
    `A.prototype.f = …` (owner `A`), a function or class assigned."""
    assignment = statement.child(0)
    if assignment is None or assignment.kind() != "assignment_expression":
        return None
    left, right = assignment.field("left"), assignment.field("right")
    if left is None or left.kind() != "member_expression" or right is None:
        return None
    if not (is_function(right) or right.kind() == "class"):
        return None
    target, name = text_of(left.field("object")), text_of(left.field("property"))
    if target in EXPORTS:
        return name, "", right
    if target.endswith(".prototype") and target.count(".") == 1:
        return name, target.removesuffix(".prototype"), right
    return None


def exported_object(node: SgNode) -> SgNode | None:
    """The object literal of `module.exports = {…}` or `export default {…}`, if `node` is one of those."""
    if node.kind() == "expression_statement":
        assignment = node.child(0)
        if assignment is not None and assignment.kind() == "assignment_expression":
            value = assignment.field("right")
            if text_of(assignment.field("left")) == "module.exports" and value is not None and value.kind() == "object":
                return value
    elif node.kind() == "export_statement" and any(child.kind() == "default" for child in node.children()):
        return next((child for child in node.children() if child.kind() == "object"), None)
    return None


def definitions(code: str, language: str) -> list[Definition]:
    """(qualified name, first line, last line) of every definition, at any depth; for code that
    doesn't parse, those the parser could still place."""
    return [(one.qualname, one.first, one.last) for one in found(parsed(code, language))]


def units(code: str, language: str) -> list[Unit]:
    """The definitions not inside a function; none for code that doesn't parse."""
    root = parsed(code, language)
    if problem(root) is not None:
        return []
    lines = code.splitlines()
    return [
        Unit(one.name, one.qualname, one.kind, one.first, one.last, indentation(lines[one.first - 1]))
        for one in found(root)
        if not one.nested
    ]


def indentation(text: str) -> str:
    return text[: len(text) - len(text.lstrip())]


def spliced(code: str, language: str, qualname: str, new: str) -> str:
    """`code` with the unit `qualname` replaced by its definition in `new` (a member may come alone:
    it is read inside a class or the exported object, as its own was), re-indented as the unit
    was. ValueError, its message for the model, when `new` doesn't parse or doesn't define the
    unit's name in the unit's shape, or when the result doesn't parse where `code` did."""
    target = next((one for one in found(parsed(code, language)) if one.qualname == qualname and not one.nested), None)
    if target is None:
        raise ValueError(f"the file has no `{qualname}` to replace")
    piece = replacement(language, target, new)
    indent = indentation(code[code.rfind("\n", 0, target.start) + 1 : target.start])
    text = code[: target.start] + reindented(piece, indent) + code[target.end :]
    broken = problem(parsed(text, language))
    if broken is not None and problem(parsed(code, language)) is None:
        raise ValueError(f"your `{target.name}` does not fit where the file's was: {broken}")
    return text


@dataclass(frozen=True)
class Piece:
    """The replacement's text, the indentation of the line it starts on in the reply, and the lines
    of it (from 0) inside a multi-line template string, whose indentation is the string's content."""

    text: str
    indent: str
    literal_lines: frozenset[int]


def replacement(language: str, target: Found, new: str) -> Piece:
    """The text of `new`'s definition of `target`'s name, in `target`'s shape."""
    attempts = [("", "")] + ([WRAPPERS[target.member_of]] if target.member_of else [])
    why: str | None = None
    readable = False
    other: Found | None = None
    for before, after in attempts:
        source = before + new + after
        root = parsed(source, language)
        broken = problem(root)
        if broken is not None:
            why = why or broken  # the reply's own line numbers: the attempt without a wrapper's
            continue
        readable = True
        named = [one for one in found(root) if one.name == target.name and not one.nested]
        fitting = [one for one in named if one.shape == target.shape and one.member_of == target.member_of]
        fitting = [one for one in fitting if one.qualname == target.qualname] or fitting
        if not fitting:
            other = other or (named[-1] if named else None)
            continue
        match = fitting[-1]  # a model that refines its answer puts the final version last
        start, end = span_like(match, target)
        indent = indentation(source[source.rfind("\n", 0, start) + 1 : start])
        return Piece(source[start:end], indent, literal_lines(root, source, start, end))
    if not readable:
        raise ValueError(f"the code in your reply does not parse: {why}")
    if other is not None:
        raise ValueError(
            f"the code in your reply defines `{target.name}` as {SHAPES[other.shape]}, "
            f"where the file has {SHAPES[target.shape]}"
        )
    raise ValueError(f"the code in your reply does not define `{target.name}`")


def span_like(match: Found, target: Found) -> tuple[int, int]:
    """The reply's span to put in: a declarator alone where the file's declaration declares several."""
    if target.declarator is not None and (target.start, target.end) == target.declarator and match.declarator:
        return match.declarator
    return match.start, match.end


def literal_lines(root: SgNode, source: str, start: int, end: int) -> frozenset[int]:
    first = source.count("\n", 0, start)
    inside: set[int] = set()
    for node in walk(root):
        if node.kind() == "template_string" and start <= span(node)[0] < end:
            inside.update(range(line(node), last_line(node)))  # the lines after its first, 0-based
    return frozenset(number - first for number in inside)


def reindented(piece: Piece, indent: str) -> str:
    """`piece`'s lines after its first moved from its indentation to `indent`, but for a template
    string's."""
    lines = piece.text.split("\n")
    out = [lines[0]]
    for number, text in enumerate(lines[1:], 1):
        if number in piece.literal_lines:
            out.append(text)
        else:
            out.append(indent + text.removeprefix(piece.indent) if text.strip() else "")
    return "\n".join(out)
