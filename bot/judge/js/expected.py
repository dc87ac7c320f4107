"""The tests a JavaScript test file declares, read from its source: what a run must report of a
file that couldn't load on the repository's own code (a spec's target that doesn't exist yet).

The runner can't list that file's tests (its listing loads the file too), and a listing of the
candidate's tree is taken in processes the candidate's code runs in: a module that wraps
`globalThis.test` drops the tests it would fail from a listing as from a run. The source can't be
rewritten that way. Only what every run declares counts: a `test`/`it` call with a literal title,
at the top of the file or in the body of a `describe` with a literal title, itself declared so;
a test in a branch, a loop, a helper or `test.each` may not run, and isn't required.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from ast_grep_py import SgNode, SgRoot

from bot import safefs
from bot.judge.js.canaries import FUNCTIONS, LANGUAGES, SOURCE_CAP, SPLIT, SUITES, TESTS, literal

# Options that run some tests alone: the others are then not reported at all by some runners.
FILTERS = ("-t", "--testNamePattern", "--test-name-pattern", "--test-skip-pattern", "--test-only")


def declared(work: str, relative: str, runner: str) -> set[str]:
    """The names (`A > B > title`) of the tests every run of `relative` declares; none when the file
    can't be read or parsed."""
    text = safefs.read_text(os.path.join(work, relative), SOURCE_CAP)
    if text is None:
        return set()
    root = SgRoot(text, LANGUAGES.get(os.path.splitext(relative)[1], "javascript")).root()
    names = set()
    for call in root.find_all(kind="call_expression"):
        title = plain_call(call, TESTS)
        path = suites(call) if title is not None else None
        if title is not None and path is not None:
            names.add(SPLIT.join((*path, title)))
    return names


def filtered(argv: Sequence[str]) -> bool:
    """Whether the command runs some tests alone (a name pattern, `--test-only`)."""
    return any(word == option or word.startswith(option + "=") for word in argv for option in FILTERS)


def plain_call(call: SgNode, names: set[str]) -> str | None:
    """The literal title of `name("title", function)` as a statement of its own, `name` one of
    `names`; else None."""
    callee = call.field("function")
    statement = call.parent()
    if callee is None or callee.kind() != "identifier" or callee.text() not in names:
        return None
    if statement is None or statement.kind() != "expression_statement":
        return None
    arguments = [c for c in (call.field("arguments") or call).children() if c.is_named()]
    if len(arguments) < 2 or arguments[-1].kind() not in FUNCTIONS:
        return None
    return literal(arguments[0])


def suites(call: SgNode) -> list[str] | None:
    """The titles of the describes a test call's statement lies directly in, outermost first;
    None when anything else lies between it and the top of the file."""
    titles: list[str] = []
    node = call.parent()  # its statement
    while node is not None:
        holder = node.parent()
        if holder is None or holder.kind() == "program":
            return list(reversed(titles))
        function = holder.parent() if holder.kind() == "statement_block" else None
        arguments = function.parent() if function is not None and function.kind() in FUNCTIONS else None
        suite = arguments.parent() if arguments is not None and arguments.kind() == "arguments" else None
        title = plain_call(suite, SUITES) if suite is not None and suite.kind() == "call_expression" else None
        if suite is None or title is None:
            return None
        titles.append(title)
        node = suite.parent()
    return None
