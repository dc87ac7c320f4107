"""Mutant schemata for Go: the variants of one file (a fix's mutants and null mutants) compiled
into one package, the variant that runs chosen by a number the test binary reads when it starts,
so that the proof builds one test binary and runs it once per variant instead of compiling and
linking one per variant (bot/judge/go/run.py's `run_variants`).

The schema is the file as it is, plus, for every variant, a copy of every function any variant
changes, renamed: each changed function starts with a `switch` on the selector that calls the
chosen variant's copy with the function's own arguments (and receiver, and type parameters). So
every variant, null or not, runs every changed function through a copy of its own: code that
asks which function it is running in learns the same for each. The `switch` goes on the line of
the body's `{` and unnamed parameters get names in place: every line of the file keeps its number.

A variant that changes anything but a function's body or signature (a type, a variable, an
import, a comment), or a file that doesn't parse, has no schema: each variant is then judged in
a run of its own."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ast_grep_py import SgNode

from bot.lang import schemata
from bot.lang.tree import name_of, parsed, span

FUNCTIONS = frozenset({"function_declaration", "method_declaration"})
PARAMETERS = frozenset({"parameter_declaration", "variadic_parameter_declaration"})


def schema(code: str, variants: Sequence[str], selectors: Sequence[int], selector: str, token: str) -> str | None:
    """`code` with every variant's changed functions beside its own, the copy of variant i run
    when the package variable `selector` equals `selectors[i]` (0 runs `code` itself); copies are
    named `<name><token><i>`. None when a variant changes more than functions."""
    return schemata.schema(
        code,
        variants,
        selectors,
        token,
        "go",
        lambda node: node if node.kind() in FUNCTIONS else None,
        lambda function, copies: None if name_of(function) in ("", "_") else dispatch(function, copies, selector),
    )


def selector_file(package: str, selector: str, variable: str) -> str:
    """The file that declares `selector`, read from the environment variable `variable` once,
    before any of the package's own variables that call the functions (go initializes a
    package's variables in the order their dependencies ask)."""
    return (
        f'package {package}\n\nimport (\n\t"os"\n\t"strconv"\n)\n\n'
        f'var {selector}, _ = strconv.ParseInt(os.Getenv("{variable}"), 10, 64)\n'
    )


def package_of(code: str) -> str:
    """The name the file's package clause gives, or ""."""
    for node in parsed(code, "go").children():
        if node.kind() == "package_clause":
            for child in node.children():
                if child.kind() == "package_identifier":
                    return child.text()
    return ""


def dispatch(function: SgNode, copies: list[tuple[int, str]], selector: str) -> list[tuple[int, int, str]] | None:
    """The edits that make `function` call the copy its selector value names: unnamed receiver
    and parameters named, the `switch` after the body's `{`. None when it has no body."""
    body = function.field("body")
    if body is None:
        return None
    edits: list[tuple[int, int, str]] = []
    taken = 0

    def fresh() -> str:
        nonlocal taken
        taken += 1
        return f"{selector}p{taken}"

    receiver = ""
    if function.kind() == "method_declaration":
        field = function.field("receiver")
        named = names(field, edits, fresh) if field is not None else None
        if not named:
            return None
        receiver = named[0][0] + "."
    parameters = function.field("parameters")
    arguments = names(parameters, edits, fresh) if parameters is not None else None
    if arguments is None:
        return None
    passed = ", ".join(name + ("..." if variadic else "") for name, variadic in arguments)
    types = type_parameters(function)
    results = function.field("result") is not None
    cases = []
    for value, copy in copies:
        call = f"{receiver}{copy}{types}({passed})"
        cases.append(f"case {value}: return {call}" if results else f"case {value}: {call}; return")
    opened = span(body)[0] + 1
    joined = "; ".join(cases)
    edits.append((opened, opened, f" switch {selector} {{ {joined} }};"))
    return edits


def names(
    parameters: SgNode, edits: list[tuple[int, int, str]], fresh: Callable[[], str]
) -> list[tuple[str, bool]] | None:
    """Each parameter's name in order and whether it is variadic; an unnamed or blank one is
    named (an edit). None for a list the grammar reads otherwise."""
    found: list[tuple[str, bool]] = []
    for declaration in parameters.children():
        if declaration.kind() not in PARAMETERS:
            if declaration.kind() not in ("(", ")", ","):
                return None
            continue
        shape = declaration.field("type")
        if shape is None:
            return None
        begins = span(shape)[0]
        given = [child for child in declaration.children() if child.kind() == "identifier" and span(child)[1] <= begins]
        variadic = declaration.kind() == "variadic_parameter_declaration"
        if not given:
            name = fresh()
            at = span(declaration)[0]
            edits.append((at, at, name + " "))
            found.append((name, variadic))
            continue
        for child in given:
            name = child.text()
            if name == "_":
                name = fresh()
                edits.append((*span(child), name))
            found.append((name, variadic))
    return found


def type_parameters(function: SgNode) -> str:
    """`[T, U]` for a generic function's type parameters, else ""."""
    field = function.field("type_parameters")
    if field is None:
        return ""
    found = []
    for declaration in field.children():
        if declaration.kind() == "type_parameter_declaration":
            constraint = declaration.field("type")
            end = span(constraint)[0] if constraint is not None else span(declaration)[1]
            named = [child for child in declaration.children() if child.kind() == "identifier"]
            found += [child.text() for child in named if span(child)[1] <= end]
    return f"[{', '.join(found)}]" if found else ""
