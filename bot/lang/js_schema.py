"""Mutant schemata for JavaScript: the variants of one module (a fix's mutants and null mutants)
in one file, the variant that runs chosen by a global the test file sets, so that one run of the
runner judges them all, each through copies of the test files that set it (bot/judge/js/variants.py).

The schema is the module as it is, plus, for every variant, a copy of every top-level function
declaration any variant changes, renamed: each changed function starts with a `switch` on the
selector that calls the chosen variant's copy with its own `this` and `arguments` (a generator
delegates to it). So every variant, null or not, runs every changed function through a copy of
its own. The `switch` goes on the line of the body's `{`: every line keeps its number.

A variant that changes anything but a top-level function declaration (a class, an arrow function,
a statement, a comment), a function that reads `new.target`, or a file that doesn't parse, has no
schema: each variant is then judged in a run of its own."""

from __future__ import annotations

from collections.abc import Sequence

from ast_grep_py import SgNode

from bot.lang import schemata
from bot.lang.tree import parsed, problem, span

FUNCTIONS = frozenset({"function_declaration", "generator_function_declaration"})
LANGUAGE = "javascript"


def schema(code: str, variants: Sequence[str], selectors: Sequence[int], selector: str, token: str) -> str | None:
    """`code` with every variant's changed functions beside its own, the copy of variant i run
    while `globalThis.<selector>` equals `selectors[i]`; copies are named `<name><token><i>`.
    None when a variant changes more than top-level function declarations."""
    return schemata.schema(
        code,
        variants,
        selectors,
        token,
        LANGUAGE,
        function_of,
        lambda function, copies: dispatch(function, copies, selector),
        comparable,
    )


def comparable(one: SgNode, first: SgNode, two: SgNode, second: SgNode) -> bool:
    """Two declarations a schema may hold: `export` neither added nor dropped, and no
    `new.target` (`apply` calls a copy, never constructs it)."""
    unbuilt = "new.target" not in first.text() and "new.target" not in second.text()
    return text_before(one, first) == text_before(two, second) and unbuilt


def dispatch(function: SgNode, copies: list[tuple[int, str]], selector: str) -> list[tuple[int, int, str]] | None:
    """The `switch` after the body's `{` that calls the copy the selector names with the
    function's own `this` and `arguments` (a generator delegates to it)."""
    body = function.field("body")
    if body is None:
        return None
    generator = function.kind() == "generator_function_declaration"
    cases = "; ".join(
        f"case {value}: return {'yield* ' if generator else ''}{copy}.apply(this, arguments)" for value, copy in copies
    )
    opened = span(body)[0] + 1
    return [(opened, opened, f" switch (globalThis.{selector}) {{ {cases} }}")]


def selecting(test: str, selector: str, value: int) -> str | None:
    """A test file's text that sets the selector before its own statements run, after its
    directives (`"use strict"` must stay first), on its first line: None for a file that doesn't
    parse or starts with `#!`."""
    root = parsed(test, LANGUAGE)
    if problem(root) is not None or test.startswith("#!"):
        return None
    at = 0
    for node in root.children():
        if node.kind() == "expression_statement" and node.children() and node.children()[0].kind() == "string":
            at = span(node)[1]
            continue
        break
    return f"{test[:at]} globalThis.{selector} = {value};{test[at:]}"


def function_of(node: SgNode) -> SgNode | None:
    """The function a top-level statement declares (`export function` too), or None."""
    if node.kind() in FUNCTIONS:
        return node
    if node.kind() == "export_statement":
        declared = node.field("declaration")
        if declared is not None and declared.kind() in FUNCTIONS:
            return declared
    return None


def text_before(statement: SgNode, function: SgNode) -> str:
    return statement.text()[: span(function)[0] - span(statement)[0]]
