"""What a mutant schema is, whatever the language (go_schema.py, js_schema.py): the variants of one
file in one, each variant's copy of every top-level function any variant changes appended,
renamed `<name><token><i>`, and the edits that make each changed function call the copy a
selector picks. A language says which top-level statements declare a function it can copy, when
two of them may differ (`comparable`) and how a function calls its copies (`dispatch`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ast_grep_py import SgNode

from bot.lang.tree import edited, name_of, parsed, problem, renamed

Edit = tuple[int, int, str]
# A function, and each variant's (selector value, copy's name): the edits that make it call them.
Dispatch = Callable[[SgNode, list[tuple[int, str]]], list[Edit] | None]


def schema(
    code: str,
    variants: Sequence[str],
    selectors: Sequence[int],
    token: str,
    language: str,
    function_of: Callable[[SgNode], SgNode | None],
    dispatch: Dispatch,
    comparable: Callable[[SgNode, SgNode, SgNode, SgNode], bool] = lambda *_: True,
) -> str | None:
    """`code` with the variants' changed functions beside its own, variant i's copies called when
    the selector is `selectors[i]`; None when a variant changes a statement that declares no
    function, renames one, changes its kind, or two differ where `comparable` (the statements,
    then their functions) says they can't."""
    root = parsed(code, language)
    if problem(root) is not None:
        return None
    statements = root.children()
    mine = [function_of(node) for node in statements]
    theirs: list[list[SgNode | None]] = []
    changed: set[int] = set()
    for variant in variants:
        other = parsed(variant, language)
        if problem(other) is not None:
            return None
        declarations = other.children()
        if len(declarations) != len(statements):
            return None
        functions = [function_of(node) for node in declarations]
        for index, (one, two) in enumerate(zip(statements, declarations, strict=True)):
            if one.text() == two.text():
                continue
            first, second = mine[index], functions[index]
            if first is None or second is None or first.kind() != second.kind() or name_of(first) != name_of(second):
                return None
            if not comparable(one, first, two, second):
                return None
            changed.add(index)
        theirs.append(functions)
    if not changed:
        return None
    edits: list[Edit] = []
    copies: list[str] = []
    for index in sorted(changed):
        function = mine[index]
        assert function is not None
        name = name_of(function)
        made = dispatch(function, [(value, f"{name}{token}{i}") for i, value in enumerate(selectors)])
        if made is None:
            return None
        edits += made
        for i, functions in enumerate(theirs):
            copy = functions[index]
            assert copy is not None
            copies.append(renamed(copy, f"{name}{token}{i}"))  # the declaration alone: never exported
    return edited(code, edits).rstrip("\n") + "\n\n" + "\n\n".join(copies) + "\n"
