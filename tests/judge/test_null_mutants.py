"""Null mutants: variants of the code written that compute what it computes, drawn from several
rewrites at random places, so that no filter on one statement tells them from real mutants."""

from collections import Counter

import pytest

from bot.judge.strength import NO_OPS, fingerprint, null_mutants

LOOP = (
    "def unique_items(items):\n"
    "    seen = set()\n"
    "    result = []\n"
    "    for item in items:\n"
    "        if item not in seen:\n"
    "            seen.add(item)\n"
    "            result.append(item)\n"
    "    return result\n"
)
RICH = (
    "def window(items, size=3):\n"
    "    out = []\n"
    "    for start in range(len(items) - size + 1):\n"
    "        part = items[start:start + size]\n"
    "        if part and part[0] is not None and len(part) == size:\n"
    "            out.append(sum(part) // 2)\n"
    "    return out\n"
)


def results(code: str, name: str, *calls: tuple) -> list:
    space: dict = {}
    exec(compile(code, "<null>", "exec"), space)
    return [space[name](*args) for args in calls]


def kinds(change: str) -> set[str]:
    """The kinds of rewrite a null mutant's change names."""
    found = set()
    for part in change.split("; "):
        if part.endswith("' added"):
            found.add("statement")
        elif part.startswith("a local renamed"):
            found.add("rename")
        elif "' → '(" in part and "+" in part:
            found.add("sum")
        elif " → 'not " in part:
            found.add("membership")
        elif "' → '(" in part:
            found.add("parentheses")
        elif part:
            found.add("grouping")
    return found


@pytest.mark.parametrize("code, name, calls", [
    (LOOP, "unique_items", [([3, 1, 3, 2, 1],), ([],), (["b", "a", "b"],)]),
    (RICH, "window", [([1, 2, 3, 4, 5],), ([None, 6, 8, 1],), ([1, 2], 1)]),
])  # fmt: skip
def test_null_mutants_change_the_text_and_bytecode_and_never_the_results(code, name, calls):
    own = fingerprint(compile(code, "<c>", "exec"))
    expected = results(code, name, *calls)
    seen = Counter()
    for _ in range(40):  # drawn at random each time
        everywhere, *rest = null_mutants(code, None)
        assert everywhere.operator == "null" and len(rest) <= 1
        # The first changes every body's bytecode (a bytecode reader sees it) and the source beyond a statement.
        assert fingerprint(compile(everywhere.code, "<c>", "exec")) != own
        assert kinds(everywhere.change) - {"statement"}
        for null in (everywhere, *rest):
            assert null.code != code
            assert results(null.code, name, *calls) == expected
            seen.update(kinds(null.change))
    # Every kind of rewrite turns up, none of them one fixed statement.
    wanted = {"statement", "rename", "membership", "parentheses"} | ({"sum", "grouping"} if code is RICH else set())
    assert wanted <= set(seen)


def test_no_null_mutant_is_the_same_twice():
    assert len({null_mutants(LOOP, None)[0].code for _ in range(20)}) > 10


def test_statements_added_are_of_several_shapes_in_every_body():
    shapes = Counter()
    for _ in range(40):
        everywhere = null_mutants(LOOP, None)[0]
        added = [line.strip() for line in everywhere.code.splitlines() if line.strip() in NO_OPS]
        assert len(added) == 4  # the module's, the function's, the loop's and the if's body
        shapes.update(added)
    assert set(shapes) == set(NO_OPS)


def test_a_local_renamed_everywhere_in_its_function_is_proven_by_the_bytecode():
    renamed = next(
        null
        for _ in range(200)
        for null in null_mutants(LOOP, None)
        if kinds(null.change) == {"rename"} and "'seen'" in null.change
    )
    new = renamed.change.rsplit("'", 2)[1]
    assert renamed.code == LOOP.replace("seen", new)
    own = fingerprint(compile(LOOP, "<c>", "exec"))
    assert fingerprint(compile(renamed.code, "<c>", "exec")) != own  # co_varnames differ
    assert fingerprint(compile(renamed.code, "<c>", "exec"), {new: "seen"}) == own  # and nothing else


def test_a_name_read_by_name_is_never_renamed():
    code = "def f(items):\n    total = sum(items)\n    return locals()['total'] + len(f'{total=}')\n"
    for _ in range(40):
        assert not any("renamed" in null.change for null in null_mutants(code, None))
        assert all(results(null.code, "f", ([1, 2],)) == [3 + len("total=3")] for null in null_mutants(code, None))


def test_only_the_lines_written_are_rewritten():
    fixed = LOOP.replace("result.append(item)", "result.append(item)  # fixed")
    original = LOOP.replace("result.append(item)", "result.insert(0, item)")
    for _ in range(20):
        for null in null_mutants(fixed, original):
            changed = [
                number
                for number, (before, after) in enumerate(
                    zip(fixed.splitlines(), null.code.splitlines(), strict=False), 1
                )
                if before != after
            ]
            assert changed and changed[0] == 7 and null.line == 7
