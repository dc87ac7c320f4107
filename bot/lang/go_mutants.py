"""Mutants of Go: bot/judge/strength.py's operators on tree-sitter's tree, for the lines a candidate
wrote. A mutant changes one thing: a comparison flipped (`<` → `>=`), `&&`/`||` swapped or a `!`
dropped, an integer off by one, `true`/`false` swapped, a string emptied, a `return` of its
function's zero values (`0`, `""`, `false`, `nil`, `T{}` for a struct the file declares,
`*new(T)` for any other type), an `if`'s condition negated, `+`/`-` swapped, a call's first two
arguments swapped. Nothing under a type, an import or the package clause is mutated: a type
never runs, and a mutant that can't compile is killed by no test. Each mutant is a copy of the
whole file with that one edit, kept only when it parses; two that read alike count once.

No compiler proves a null mutant equal to the code, as Python's bytecode does: each rewrite keeps
what the code computes by construction: a statement that does nothing (`_ = 0`, `{}`,
`if false {}`) on a line of its own, an integer written as a sum of untyped constants (Go computes
them exactly, at compile time), an expression in parentheses, `a == b` as `!(a != b)`, and the
sides of a comparison of two names or literals swapped (`a < b` as `b > a`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cached_property

from ast_grep_py import SgNode

from bot.lang import mutation
from bot.lang.base import Mutant
from bot.lang.mutation import CHOOSE, INTEGER, Mutation, Rewrite, drawn, made, shown, summed
from bot.lang.tree import line, span

FLIPPED = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}
BOOLEAN = {"&&": "||", "||": "&&"}
ARITHMETIC = {"+": "-", "-": "+", "+=": "-=", "-=": "+="}
NEGATED = {"==": "!=", "!=": "=="}
MIRRORED = {"==": "==", "!=": "!=", "<": ">", ">": "<", "<=": ">=", ">=": "<="}
# Builtins whose arguments don't trade places: a type and a size, a slice and its items, symmetric ones.
NOT_SWAPPED = {"append", "make", "new", "copy", "delete", "min", "max", "complex", "print", "println", "panic",
               "len", "cap", "clear", "close"}  # fmt: skip
NO_OPS = ("_ = 0", "{}", "if false {}")  # statements that do nothing

# What never runs, or can't change without the code no longer compiling: types, imports, the package.
NOT_RUN = frozenset({
    "package_clause", "import_declaration", "type_declaration", "parameter_list", "type_parameter_list",
    "type_arguments", "array_type", "implicit_length_array_type", "slice_type", "map_type", "pointer_type",
    "channel_type", "function_type", "struct_type", "interface_type", "generic_type", "qualified_type",
    "type_identifier", "negated_type", "type_constraint", "type_elem", "parenthesized_type", "comment",
})  # fmt: skip
FUNCTIONS = frozenset({"function_declaration", "method_declaration", "func_literal"})
STRINGS = {"interpreted_string_literal", "raw_string_literal"}
LITERALS = {"int_literal", "float_literal", "rune_literal", "true", "false", "nil", "iota", *STRINGS}
SIMPLE = {"identifier", *LITERALS}  # what reading twice or in another order changes nothing
NUMBERS = {"int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "uintptr",
           "byte", "rune", "float32", "float64", "complex64", "complex128"}  # fmt: skip
NILS = {"error", "any", "pointer_type", "slice_type", "map_type", "channel_type", "function_type", "interface_type"}


class Source(mutation.Source):
    def __init__(self, code: str, original: str | None):
        super().__init__(code, "go", original, NOT_RUN)

    @cached_property
    def types(self) -> dict[str, SgNode]:
        """The file's own named types: name, what it stands for."""
        found = {}
        for spec in self.root.find_all(any=[{"kind": "type_spec"}, {"kind": "type_alias"}]):
            name, shape = spec.field("name"), spec.field("type")
            if name is not None and shape is not None:
                found[name.text()] = shape
        return found


def mutants(code: str, original: str | None, budget: int | None = None) -> list[Mutant]:
    """Up to `budget` distinct mutants of the lines of `code` not in `original` (bot/lang/mutation.py)."""
    return made(Source(code, original), mutations, budget)


def mutations(source: Source, node: SgNode) -> Iterator[Mutation]:
    kind = node.kind()
    if kind in {"binary_expression", "assignment_statement"}:
        operator = node.field("operator")
        symbol = operator.text() if operator is not None else ""
        for table, what in ((FLIPPED, "comparison"), (BOOLEAN, "boolean"), (ARITHMETIC, "arithmetic")):
            if operator is not None and symbol in table and not (what == "arithmetic" and joins_strings(node)):
                yield Mutation(line(node), what, f"'{symbol}' → '{table[symbol]}'", ((*span(operator), table[symbol]),))
    elif kind == "unary_expression" and (operand := node.field("operand")) is not None and operator_of(node) == "!":
        change = shown(source.segment(node), source.segment(operand))
        yield Mutation(line(node), "boolean", change, ((*span(node), source.segment(operand)),))
    elif kind == "int_literal" and INTEGER.fullmatch(node.text()):
        number = int(node.text())
        for value in (number + 1, number - 1):
            text = str(value) if value >= 0 else f"({value})"
            yield Mutation(line(node), "constant", f"'{number}' → '{value}'", ((*span(node), text),))
    elif kind in {"true", "false"}:
        other = "false" if kind == "true" else "true"
        yield Mutation(line(node), "constant", f"'{kind}' → '{other}'", ((*span(node), other),))
    elif kind in STRINGS and len(node.text()) > 2:
        yield Mutation(line(node), "constant", shown(node.text(), '""'), ((*span(node), '""'),))
    elif kind == "return_statement":
        yield from zero_return(source, node)
    elif kind == "if_statement" and (condition := node.field("condition")) is not None:
        before = source.segment(condition)
        yield Mutation(
            line(node), "branch", shown(f"if {before}", f"if !({before})"), ((*span(condition), f"!({before})"),)
        )
    elif kind == "call_expression":
        yield from swapped(source, node)


def plain(node: SgNode) -> bool:
    """A name, a literal, a field of one (`item.Qty`) or its length: read in any order, the same."""
    kind = node.kind()
    if kind == "selector_expression":
        operand = node.field("operand")
        return operand is not None and plain(operand) and operand.kind() != "int_literal"
    if kind == "call_expression":
        callee, arguments = node.field("function"), node.field("arguments")
        given = arguments.named_children() if arguments is not None else []
        return callee is not None and callee.text() in {"len", "cap"} and len(given) == 1 and plain(given[0])
    return kind in SIMPLE


def operator_of(node: SgNode) -> str:
    operator = node.field("operator")
    return operator.text() if operator is not None else ""


def joins_strings(node: SgNode) -> bool:
    """A `+` with a string literal on a side: `-` of strings doesn't compile."""
    sides = [node.field("left"), node.field("right")]
    return any(
        side is not None and (side.kind() in STRINGS or side.find(kind="interpreted_string_literal")) for side in sides
    )


def zero_return(source: Source, node: SgNode) -> Iterator[Mutation]:
    values = next((child for child in node.named_children() if child.kind() == "expression_list"), None)
    function = next((up for up in node.ancestors() if up.kind() in FUNCTIONS), None)
    if values is None or function is None:
        return
    given = [child for child in values.named_children() if child.kind() != "comment"]
    types = result_types(function)
    if len(given) != len(types):  # `return f()` of a function giving several
        return
    zeros = [zero_of(source, kind) for kind in types]
    if any(zero is None for zero in zeros):
        return
    before = ", ".join(source.segment(value) for value in given)
    after = ", ".join(zero for zero in zeros if zero is not None)
    if before == after:
        return
    yield Mutation(line(node), "return", shown(f"return {before}", f"return {after}"), ((*span(values), after),))


def result_types(function: SgNode) -> list[SgNode]:
    """The type of each value the function returns, in order."""
    result = function.field("result")
    if result is None:
        return []
    if result.kind() != "parameter_list":
        return [result]
    types = []
    for declaration in result.named_children():
        kind = declaration.field("type")
        if kind is not None:
            types += [kind] * max(1, len(declaration.field_children("name")))
    return types


def zero_of(source: Source, kind: SgNode, depth: int = 0) -> str | None:
    """Go's zero value of the type `kind` as code writes it: by the file's own declaration of a
    named type, else `*new(T)`, which any type has."""
    text = source.segment(kind)
    name = kind.kind()
    if name == "type_identifier" and text in NUMBERS:
        return "0"
    if name == "type_identifier" and text in {"string", "bool"}:
        return '""' if text == "string" else "false"
    if name in NILS or text in NILS:
        return "nil"
    declared = source.types.get(text) if name == "type_identifier" else None
    if declared is not None and depth < 8:
        if declared.kind() == "struct_type":
            return f"{text}{{}}"
        return zero_of(source, declared, depth + 1)
    return f"*new({text})"


def swapped(source: Source, node: SgNode) -> Iterator[Mutation]:
    arguments, callee = node.field("arguments"), node.field("function")
    if arguments is None or callee is None or callee.text() in NOT_SWAPPED:
        return
    given = [child for child in arguments.named_children() if child.kind() != "comment"]
    if len(given) < 2 or any(arg.kind() == "variadic_argument" or arg.kind() in NOT_RUN for arg in given[:2]):
        return
    first, second = given[0], given[1]
    one, two = source.segment(first), source.segment(second)
    if one == two:
        return
    after = f"{source.segment(callee)}({', '.join([two, one, *(source.segment(arg) for arg in given[2:])])})"
    edits = ((*span(first), two), (*span(second), one))
    yield Mutation(line(node), "arguments", shown(source.segment(node), after), edits)


def null_mutants(code: str, original: str | None) -> list[Mutant]:
    """Two variants of `code` that compute what it computes (bot/lang/mutation.py's `drawn`)."""
    source = Source(code, original)
    return drawn(source, Nulls(source))


class Nulls(mutation.Nulls):
    """Go's rewrites of the lines written that keep what the code computes."""

    source: Source

    def __init__(self, source: Source):
        super().__init__(source, FUNCTIONS)

    def kinds(self) -> list[Callable[[], list[Rewrite]]]:
        return [self.statements, self.sums, self.negations, self.parentheses, self.mirrors]

    def places(self) -> Iterator[list[Rewrite]]:
        """For each list of statements, before each statement written, one that does nothing, on
        a line of its own (never before one sharing its line)."""
        lines = self.source.code.split("\n")
        for body in (node for node in self.source.running if node.kind() == "statement_list"):
            places = []
            for statement in body.named_children():
                if statement.kind() == "comment":
                    continue
                number, (start, _) = line(statement), span(statement)
                before = lines[number - 1][: statement.range().start.column]
                if before.strip() or (self.source.written is not None and number not in self.source.written):
                    continue
                no_op = CHOOSE.choice(NO_OPS)
                at = start - len(before)
                places.append(Rewrite(number, f"'{no_op}' added", ((at, at, f"{before}{no_op}\n"),), "statement"))
            yield places

    def expressions(self, kinds: set[str]) -> list[SgNode]:
        return [node for node in self.source.nodes() if node.kind() in kinds]

    def sums(self) -> list[Rewrite]:
        """An integer written as a sum: `5` → `(2 + 3)`."""
        made = (summed(node) for node in self.expressions({"int_literal"}))
        return [rewrite for rewrite in made if rewrite is not None]

    def negations(self) -> list[Rewrite]:
        """`a == b` → `!(a != b)`, and `!=` alike."""
        found = []
        for node in self.expressions({"binary_expression"}):
            left, right, symbol = node.field("left"), node.field("right"), operator_of(node)
            if left is None or right is None or symbol not in NEGATED:
                continue
            text = f"!({self.source.segment(left)} {NEGATED[symbol]} {self.source.segment(right)})"
            found.append(
                Rewrite(line(node), shown(self.source.segment(node), text), ((*span(node), text),), "negation")
            )
        return found

    def parentheses(self) -> list[Rewrite]:
        """A binary expression or a call in parentheses; never the call a `go` or `defer` makes,
        which Go refuses parenthesised."""
        found = []
        for node in self.expressions({"binary_expression", "call_expression"}):
            parent = node.parent()
            if parent is not None and parent.kind() in {"go_statement", "defer_statement"}:
                continue
            before = self.source.segment(node)
            found.append(Rewrite(line(node), shown(before, f"({before})"), ((*span(node), f"({before})"),), "parens"))
        return found

    def mirrors(self) -> list[Rewrite]:
        """A comparison of two names, literals, their fields or lengths read the other way round:
        `a < b` → `b > a`."""
        found = []
        for node in self.expressions({"binary_expression"}):
            left, right, symbol = node.field("left"), node.field("right"), operator_of(node)
            if left is None or right is None or symbol not in MIRRORED:
                continue
            if not (plain(left) and plain(right)):
                continue
            text = f"{self.source.segment(right)} {MIRRORED[symbol]} {self.source.segment(left)}"
            found.append(Rewrite(line(node), shown(self.source.segment(node), text), ((*span(node), text),), "mirror"))
        return found
