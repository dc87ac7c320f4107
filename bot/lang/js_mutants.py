"""Mutants of JavaScript and TypeScript: bot/judge/strength.py's operators on tree-sitter's tree, for
the lines a candidate wrote. A mutant changes one thing: a comparison or `&&`/`||` flipped, an
integer off by one, a `return` of the empty value of its kind, an if-body emptied, a call's first two
arguments swapped. Nothing under a TypeScript type (annotations, interfaces, aliases, `declare`) is
mutated: it never runs. Each mutant is a copy of the whole file with that one edit, kept only when it
parses; two that read alike count once.

No compiler proves a null mutant equal to the code, as Python's bytecode does: each rewrite keeps
what the code computes by construction (a statement that does nothing, an integer as a sum, a
parenthesised expression, `a === b` as `!(a !== b)`, a local renamed through all of its scope), and
no expression that starts a statement is rewritten, where a line without a semicolon before it
would take it in (`b` + `(x)` is a call)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ast_grep_py import SgNode

from bot.lang import mutation
from bot.lang.base import Mutant
from bot.lang.mutation import CHOOSE, INTEGER, Mutation, Rewrite, drawn, made, shown, summed
from bot.lang.tree import line, span, walk

FLIPPED = {"===": "!==", "!==": "===", "==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}
BOOLEAN = {"&&": "||", "||": "&&"}
NEGATED = {"===": "!==", "!==": "===", "==": "!=", "!=": "=="}
SYMMETRIC = {"Math.max", "Math.min"}  # their first two arguments swap without a change
NO_OPS = (";", "void 0;", "{}")  # statements that do nothing
SUFFIXES = ("value", "item", "part", "cur", "new", "one", "tmp", "acc")

# What only a type checker reads (TypeScript): nothing under these runs.
TYPE_ONLY = frozenset({
    "type_annotation", "type_arguments", "type_parameters", "interface_declaration", "type_alias_declaration",
    "ambient_declaration", "function_signature", "abstract_method_signature", "method_signature", "index_signature",
    "literal_type", "type_query", "implements_clause", "object_type", "union_type", "intersection_type",
    "conditional_type", "generic_type", "tuple_type", "array_type", "function_type", "type_predicate_annotation",
    "asserts_annotation", "lookup_type", "template_literal_type", "predefined_type", "type_identifier",
    "parenthesized_type", "readonly_type", "constructor_type", "opting_type_annotation", "omitting_type_annotation",
})  # fmt: skip
BODIES = {"program", "statement_block"}
FUNCTIONS = frozenset({"function_declaration", "generator_function_declaration", "function_expression", "function",
                       "generator_function", "arrow_function", "method_definition"})  # fmt: skip
NOT_STATEMENTS = {"comment", "hash_bang_line", "{", "}"}
JSX_TAGS = {"jsx_opening_element", "jsx_closing_element", "jsx_self_closing_element"}
BOOLEANS = {"true", "false"}
NO_VALUE = {"null", "undefined"}


class Source(mutation.Source):
    def __init__(self, code: str, language: str, original: str | None):
        super().__init__(code, language, original, TYPE_ONLY)

    def starts_statement(self, node: SgNode) -> bool:
        start = span(node)[0]
        return any(up.kind() == "expression_statement" and span(up)[0] == start for up in node.ancestors())


def mutants(code: str, language: str, original: str | None, budget: int | None = None) -> list[Mutant]:
    """Up to `budget` distinct mutants of the lines of `code` not in `original` (bot/lang/mutation.py)."""
    return made(Source(code, language, original), mutations, budget)


def mutations(source: Source, node: SgNode) -> Iterator[Mutation]:
    kind = node.kind()
    if kind == "binary_expression":
        operator = node.field("operator")
        symbol = operator.text() if operator is not None else ""
        flips = FLIPPED if symbol in FLIPPED else BOOLEAN if symbol in BOOLEAN else {}
        if operator is not None and symbol in flips:
            what = "comparison" if flips is FLIPPED else "boolean"
            yield Mutation(line(node), what, f"'{symbol}' → '{flips[symbol]}'", ((*span(operator), flips[symbol]),))
    elif kind == "number" and INTEGER.fullmatch(node.text()):
        number = int(node.text())
        for value in (number + 1, number - 1):
            text = str(value) if value >= 0 else f"({value})"
            yield Mutation(line(node), "constant", f"'{number}' → '{value}'", ((*span(node), text),))
    elif kind == "return_statement":
        yield from default_return(source, node)
    elif kind == "if_statement":
        yield from emptied(source, node)
    elif kind == "call_expression":
        yield from swapped(source, node)


def default_return(source: Source, node: SgNode) -> Iterator[Mutation]:
    value = next((child for child in node.named_children() if child.kind() != "comment"), None)
    if value is None:
        return
    default = default_for(value)
    if default is None or source.segment(value) == default:
        return
    before = source.segment(node).rstrip(";")
    yield Mutation(line(node), "return", shown(before, f"return {default}"), ((*span(value), default),))


def default_for(value: SgNode) -> str | None:
    """What a function that forgot to compute its result would return, by what it returns: the
    empty value of its evident kind, else null; None for a return of nothing already."""
    while value.kind() in {"parenthesized_expression", "ternary_expression"}:
        inner = value.field("consequence") if value.kind() == "ternary_expression" else value.child(1)
        if inner is None:
            break
        value = inner
    kind = value.kind()
    operator = value.field("operator")
    symbol = operator.text() if operator is not None else ""
    if kind in NO_VALUE or symbol == "void":
        return None
    if kind in BOOLEANS or symbol in FLIPPED or symbol in {"!", "instanceof", "in"}:
        return "false"
    empties = {"number": "0", "string": "''", "template_string": "''", "array": "[]"}
    return empties.get(kind, "null")


def emptied(source: Source, node: SgNode) -> Iterator[Mutation]:
    body = node.field("consequence")
    if body is None or (body.kind() == "statement_block" and not body.named_children()):
        return
    condition = node.field("condition")
    test = source.segment(condition) if condition is not None else ""
    change = shown(f"if {test} {source.segment(body)}", f"if {test} {{}}")
    yield Mutation(line(node), "branch", change, ((*span(body), "{}"),), shows_line=False)


def swapped(source: Source, node: SgNode) -> Iterator[Mutation]:
    arguments = node.field("arguments")
    callee = node.field("function")
    if arguments is None or arguments.kind() != "arguments" or callee is None or callee.text() in SYMMETRIC:
        return
    given = [child for child in arguments.named_children() if child.kind() != "comment"]
    if len(given) < 2 or any(arg.kind() == "spread_element" for arg in given[:2]):
        return
    first, second = given[0], given[1]
    one, two = source.segment(first), source.segment(second)
    if one == two:
        return
    after = f"{source.segment(callee)}({', '.join([two, one, *(source.segment(arg) for arg in given[2:])])})"
    edits = ((*span(first), two), (*span(second), one))
    yield Mutation(line(node), "arguments", shown(source.segment(node), after), edits)


def null_mutants(code: str, language: str, original: str | None) -> list[Mutant]:
    """Two variants of `code` that compute what it computes (bot/lang/mutation.py's `drawn`)."""
    source = Source(code, language, original)
    return drawn(source, Nulls(source))


class Nulls(mutation.Nulls):
    """JavaScript's rewrites of the lines written that keep what the code computes."""

    source: Source

    def __init__(self, source: Source):
        super().__init__(source, FUNCTIONS)
        self.everything = list(walk(source.root))
        self.names = {node.text() for node in self.everything if "identifier" in node.kind()}

    def kinds(self) -> list[Callable[[], list[Rewrite]]]:
        # TypeScript types `1` as the literal type 1 and `(0 + 1)` as number: a sum could fail its type check.
        sums = [self.sums] if self.source.language == "javascript" else []
        return [self.statements, *sums, self.negations, self.parentheses, self.renames]

    def places(self) -> Iterator[list[Rewrite]]:
        """For each body, before each statement written, one that does nothing, on a line of its
        own: never before a directive (`'use strict'`), after an overload's signature or before a
        statement sharing its line."""
        lines = self.source.code.split("\n")
        for body in (node for node in self.source.running if node.kind() in BODIES):
            statements = [child for child in body.children() if child.kind() not in NOT_STATEMENTS]
            places, prologue = [], True
            for index, statement in enumerate(statements):
                number, (start, _) = line(statement), span(statement)
                prologue = prologue and is_directive(statement)
                before = lines[number - 1][: statement.range().start.column]
                if prologue or before.strip() or statement.kind() in TYPE_ONLY:
                    continue
                if (index and is_signature(statements[index - 1])) or (
                    self.source.written is not None and number not in self.source.written
                ):
                    continue
                no_op = CHOOSE.choice(NO_OPS)
                at = start - len(before)
                places.append(Rewrite(number, f"'{no_op}' added", ((at, at, f"{before}{no_op}\n"),), "statement"))
            yield places

    def expressions(self, kinds: set[str]) -> list[SgNode]:
        return [node for node in self.source.nodes() if node.kind() in kinds and not self.source.starts_statement(node)]

    def sums(self) -> list[Rewrite]:
        """An integer written as a sum: `5` → `(2 + 3)`."""
        made = (summed(node) for node in self.expressions({"number"}) if not is_name(node))
        return [rewrite for rewrite in made if rewrite is not None]

    def negations(self) -> list[Rewrite]:
        """`a === b` → `!(a !== b)`, and the other equalities alike."""
        found = []
        for node in self.expressions({"binary_expression"}):
            operator, left, right = node.field("operator"), node.field("left"), node.field("right")
            if operator is None or left is None or right is None or operator.text() not in NEGATED:
                continue
            text = f"!({self.source.segment(left)} {NEGATED[operator.text()]} {self.source.segment(right)})"
            change = shown(self.source.segment(node), text)
            found.append(Rewrite(line(node), change, ((*span(node), text),), "negation"))
        return found

    def parentheses(self) -> list[Rewrite]:
        """A binary expression or a call in parentheses, but in an optional chain (`(a?.b()).c`
        throws where `a?.b().c` gives undefined)."""
        found = []
        for node in self.expressions({"binary_expression", "call_expression"}):
            before = self.source.segment(node)
            if "?." in before:
                continue
            found.append(Rewrite(line(node), shown(before, f"({before})"), ((*span(node), f"({before})"),), "parens"))
        return found

    def renames(self) -> list[Rewrite]:
        """A variable declared in a function renamed everywhere in the block that declares it, where
        that block holds every use of the name in the file, all on lines written: never a name an
        object shorthand (`{total}`) or a JSX tag uses, nor in code with `eval` or `with`."""
        identifiers: dict[str, list[SgNode]] = {}
        for node in self.everything:
            if node.kind() == "identifier":
                identifiers.setdefault(node.text(), []).append(node)
        unsafe = {node.text() for node in self.everything if node.kind().startswith("shorthand_property_identifier")}
        unsafe |= {name for name, uses in identifiers.items() if any(parent_kind(use) in JSX_TAGS for use in uses)}
        if "eval" in identifiers or any(node.kind() == "with_statement" for node in self.everything):
            return []
        found = []
        for declarator in self.source.nodes():
            name = declarator.field("name") if declarator.kind() == "variable_declarator" else None
            declaration = declarator.parent()
            block = declaration.parent() if declaration is not None else None
            if name is None or name.kind() != "identifier" or block is None or name.text() in unsafe:
                continue
            if self.scope(span(declarator)[0]) < 0:  # the module's own: other modules may read it
                continue
            uses = identifiers[name.text()]
            start, end = span(block)
            if any(not start <= span(use)[0] < end for use in uses):
                continue
            if self.source.written is not None and any(line(use) not in self.source.written for use in uses):
                continue
            new = fresh(name.text(), self.names)
            edits = tuple((*span(use), new) for use in uses)
            found.append(Rewrite(line(name), f"a local renamed: '{name.text()}' → '{new}'", edits, "rename"))
        return found


def fresh(name: str, taken: set[str]) -> str:
    """A name like `name` that the code doesn't hold; taken from then on."""
    new = f"{name}_{CHOOSE.choice(SUFFIXES)}"
    while new in taken:
        new += str(CHOOSE.randint(0, 9))
    taken.add(new)
    return new


def is_directive(statement: SgNode) -> bool:
    first = statement.child(0)
    return statement.kind() == "expression_statement" and first is not None and first.kind() == "string"


def is_signature(statement: SgNode) -> bool:
    """An overload's signature (`function f(x: string): void;`), which its next one must follow."""
    return statement.kind() == "function_signature" or (
        statement.kind() == "export_statement" and any(c.kind() == "function_signature" for c in statement.children())
    )


def is_name(node: SgNode) -> bool:
    """A number naming a property (`{1: x}`) or an enum member's value: no expression may stand there."""
    parent = node.parent()
    if parent is None:
        return False
    key = parent.field("key") if parent.kind() == "pair" else None
    return parent.kind() == "enum_assignment" or (key is not None and span(key) == span(node))


def parent_kind(node: SgNode) -> str:
    parent = node.parent()
    return parent.kind() if parent is not None else ""
