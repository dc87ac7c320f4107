"""Test strength: each mutation operator on a small function, equivalent and duplicate mutants left
out, only the lines written mutated; then mutants judged by the real validator in the bwrap sandbox."""

import hashlib
import itertools

import pytest

from bot.judge import guard
from bot.judge.strength import judged, measure, mutants
from bot.judge.validate import Validator, python_paths
from bot.sandbox.tiers import open_sandbox
from bot.spec import Spec

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
CHECKS = """\
assert unique_items([3, 1, 3, 2, 1]) == [3, 1, 2], "order"
assert unique_items([]) == [], "empty"
assert unique_items([5, 5, 5]) == [5], "duplicates"
assert unique_items(["b", "a", "b"]) == ["b", "a"], "strings"
"""
WEAK = 'assert unique_items([]) == [], "empty"\n'


def made(code: str, original: str | None = None, operator: str | None = None) -> list[tuple[int, str, str]]:
    """(line, change, the mutated file) of each mutant, of one operator or all."""
    return [(m.line, m.change, m.code) for m in mutants(code, original).mutants if operator in (None, m.operator)]


def test_a_comparison_is_flipped():
    code = "def has(items, x):\n    return x not in items\n"
    assert made(code, operator="comparison") == [(2, "'not in' → 'in'", "def has(items, x):\n    return x in items\n")]


def test_a_chained_comparison_flips_one_operator_per_mutant():
    code = "def between(x):\n    return 0 <= x < 10\n"
    assert [change for _, change, _ in made(code, operator="comparison")] == ["'<=' → '>'", "'<' → '>='"]
    assert made(code, operator="comparison")[1][2] == "def between(x):\n    return 0 <= x >= 10\n"


def test_a_boolean_operator_is_flipped():
    code = "def both(a, b):\n    return a and b\n"
    assert made(code, operator="boolean") == [(2, "'and' → 'or'", "def both(a, b):\n    return a or b\n")]


def test_an_integer_constant_is_off_by_one_both_ways():
    code = "def last(items):\n    return items[len(items) - 1]\n"
    assert made(code, operator="constant") == [
        (2, "'1' → '2'", "def last(items):\n    return items[len(items) - 2]\n"),
        (2, "'1' → '0'", "def last(items):\n    return items[len(items) - 0]\n"),
    ]


def test_a_negative_constant_keeps_its_meaning_where_it_lands():
    code = "def first_bit(n):\n    return (0).bit_length() + n\n"
    mutated = made(code, operator="constant")[1][2]
    assert mutated == "def first_bit(n):\n    return ((-1)).bit_length() + n\n"


@pytest.mark.parametrize(
    ("value", "default"),
    [
        ("[x for x in xs]", "[]"),
        ("{x: 1 for x in xs}", "{}"),
        ("{x for x in xs}", "set()"),
        ("(xs, 1)", "()"),
        ("'text'", '""'),
        ("2.5", "0"),
        ("sorted(xs)", "None"),
    ],
)
def test_a_return_returns_the_empty_value_of_its_evident_type(value, default):
    code = f"def f(xs):\n    return {value}\n"
    [(line, change, mutated)] = made(code, operator="return")
    assert (line, change, mutated) == (
        2,
        f"'return {value}' → 'return {default}'",
        f"def f(xs):\n    return {default}\n",
    )


def test_a_return_of_the_default_itself_is_not_a_mutant():
    assert made("def f(xs):\n    if xs:\n        return []\n    return None\n", operator="return") == []


def test_an_if_body_is_removed():
    code = "def clamp(x):\n    if x < 0:\n        x = 0\n        print(x)\n    else:\n        x += 1\n    return x\n"
    assert made(code, operator="branch") == [
        (
            2,
            "'if x < 0: x = 0 …' → 'if x < 0: pass'",
            "def clamp(x):\n    if x < 0:\n        pass\n    else:\n        x += 1\n    return x\n",
        )
    ]


def test_a_call_s_first_two_arguments_are_swapped_unless_that_changes_nothing():
    code = "def power(base, exp):\n    return pow(base, exp, 7) + max(base, exp) + pow(exp, exp)\n"
    assert made(code, operator="arguments") == [
        (
            2,
            "'pow(base, exp, 7)' → 'pow(exp, base, 7)'",
            "def power(base, exp):\n    return pow(exp, base, 7) + max(base, exp) + pow(exp, exp)\n",
        )
    ]


def test_a_mutant_with_the_original_s_bytecode_is_skipped():
    # `if 0:` is compiled away: nothing in its body can change what the function does.
    code = "def f(x):\n    if 0:\n        return x + 1\n    return x\n"
    made = mutants(code, None)
    assert [(m.line, m.change) for m in made.mutants] == [
        (2, "'0' → '1'"),
        (2, "'0' → '-1'"),
        (4, "'return x' → 'return None'"),
    ]
    # Of 7 mutations, 4 equivalent: the body's `1` both ways, its `return None`, the body removed.
    assert (made.mutations, made.tried, made.equivalent) == (7, 7, 4)


def test_two_operators_making_the_same_code_make_one_mutant():
    assert [change for _, change, _ in made("def one():\n    return 1\n")] == ["'return 1' → 'return 0'", "'1' → '2'"]


def test_only_the_lines_written_are_mutated():
    original = "def f(x):\n    return x + 1\n"
    code = "def f(x):\n    if x > 5:\n        return 0\n    return x + 1\n"
    assert [(line, change) for line, change, _ in made(code, original)] == [
        (2, "'if x > 5: return 0' → 'if x > 5: pass'"),
        (2, "'>' → '<='"),
        (2, "'5' → '6'"),
        (2, "'5' → '4'"),
        (3, "'0' → '1'"),
        (3, "'0' → '-1'"),
    ]


def test_annotations_f_strings_and_the_main_guard_are_left_alone():
    code = (
        "def pad(text: Annotated[str, 3], width: int = 8) -> Annotated[str, 4]:\n"
        '    return f"{text:>{width + 1}}"\n'
        "\n"
        'if __name__ == "__main__":\n'
        '    print(pad("x", 2))\n'
    )
    assert [(line, change) for line, change, _ in made(code)] == [
        (1, "'8' → '9'"),
        (1, "'8' → '7'"),
        (2, "'return f\"{text:>{width + 1}}\"' → 'return \"\"'"),
    ]


def test_code_that_does_not_parse_has_no_mutants():
    assert mutants("def f(:\n", None).mutations == 0


def validator(tmp_path, checks: str, screen=guard.findings) -> Validator:
    """`screen=None`: judged as if the static guard had missed what the code does (the null
    mutants are the line behind it)."""
    spec = Spec.model_validate({"task": "t", "target": "unique.py", "tests": {"code": checks}})
    spec.workdir = tmp_path
    return Validator(spec, open_sandbox("bwrap", readable=python_paths()), screen=screen)


def test_a_weak_test_kills_few_mutants_and_the_survivors_are_named(tmp_path):
    strength = measure(validator(tmp_path, WEAK), LOOP, "unique.py", budget=20, seconds=60)
    assert (strength.killed, strength.total, strength.mutations, strength.equivalent) == (1, 3, 3, 0)
    assert strength.score == 0.3333
    assert [str(survivor) for survivor in strength.survivors] == [
        "unique.py:5 'if item not in seen: seen.add(item) …' → 'if item not in seen: pass'",
        "unique.py:5 'not in' → 'in'",
    ]
    assert [survivor.mutated_line for survivor in strength.survivors] == ["", "if item in seen:"]
    assert strength.headline() == "tests killed 1 of 3 mutants (score 0.33)"
    assert not (tmp_path / "unique.py").exists()  # mutants are judged in scratch copies, never written


def test_the_example_s_tests_kill_every_mutant(tmp_path):
    strength = measure(validator(tmp_path, CHECKS), LOOP, "unique.py", budget=20, seconds=60)
    assert (strength.killed, strength.total, strength.survivors, strength.not_run) == (3, 3, [], "")


def test_the_mutant_budget_spreads_the_mutants_judged(tmp_path):
    strength = measure(validator(tmp_path, WEAK), LOOP, "unique.py", budget=2, seconds=60)
    assert (strength.killed, strength.total, strength.mutations) == (0, 2, 3)  # the two on line 5, not the return
    assert strength.headline() == (
        "tests killed 0 of 2 mutants (score 0.00); 1 of 3 mutations not run (strength_budget 2)"
    )


def test_no_mutant_starts_once_the_seconds_are_spent(tmp_path):
    ticks = itertools.count()  # the start is 0; each mutant takes the next tick before it runs
    strength = measure(
        validator(tmp_path, CHECKS), LOOP, "unique.py", budget=20, seconds=2.5, clock=lambda: next(ticks)
    )
    assert (strength.killed, strength.total, strength.mutations) == (2, 2, 3)
    assert strength.not_run == "1 not run (strength_seconds 2.5 spent)"


def self_checking(kind: str) -> str:
    """unique_items that raises when its own file, source or bytecode differs from what it was
    written as: every mutant then fails any test that calls it, however weak."""
    body = LOOP.replace("    seen = set()\n", "    _am_i_me()\n    seen = set()\n")
    check = {
        "file": 'open(__file__, "rb").read().split(b"\\n", 2)[2]',
        "source": "inspect.getsource(unique_items).encode()",
        "bytecode": "unique_items.__code__.co_code + repr(unique_items.__code__.co_consts).encode()",
    }[kind]
    # A KeyError when it differs: no comparison or branch a mutant could flip to let it through.
    rest = f"{body}\n\ndef _am_i_me():\n    {{EXPECTED: None}}[hashlib.sha256({check}).hexdigest()]\n"
    if kind == "file":
        seen = rest.encode()
    elif kind == "source":
        seen = body.encode()
    else:
        space: dict = {}
        exec(compile(rest, "<c>", "exec"), space)
        code = space["unique_items"].__code__
        seen = code.co_code + repr(code.co_consts).encode()
    return f'import hashlib, inspect\nEXPECTED = "{hashlib.sha256(seen).hexdigest()}"\n{rest}'


@pytest.mark.parametrize(("kind", "total"), [("file", 9), ("source", 3), ("bytecode", 3)])
def test_code_that_reads_itself_gets_no_score_from_weak_tests(tmp_path, kind, total):
    """Every real mutant "breaks" itself (it raises), so weak tests would kill them all: 1.00. The
    null mutants are killed too, which gives it away: the score is void."""
    code = self_checking(kind)
    assert validator(tmp_path, WEAK).check(code).failing[0].startswith("(guard)")  # the first line refuses it
    check = validator(tmp_path, WEAK, screen=None)
    assert check.check(code).passed  # the candidate itself passes the weak test
    strength = measure(check, code, "unique.py", budget=20, seconds=120)
    assert (strength.killed, strength.total) == (total, total)  # which scored 1.00 before the null mutants
    assert strength.score is None and strength.void.startswith("the tests failed a null mutant, unique.py:")
    assert strength.headline().startswith("void: the tests failed a null mutant")
    strength.min_strength = 0.8
    assert strength.too_weak  # the gate fails it


def test_a_null_mutant_whose_run_was_stopped_once_is_judged_again_and_voids_nothing():
    """A loaded machine: the first run of a null mutant hits its time limit (None), the second
    passes. Judged once, the score would be void ("the code reads its own source")."""
    code = "def pick(items):\n    if items:\n        return items[0]\n    return None\n"
    runs: list[str] = []

    def passes(path, mutant):
        runs.append(mutant.operator)
        if mutant.operator == "null":
            return None if runs.count("null") == 1 else True
        return False

    strength = judged({"pick.py": (code, None)}, passes, budget=20, seconds=60, workers=1)
    assert strength.void == "" and strength.score == 1.0
    assert runs.count("null") >= 2  # the stopped one, again


def test_a_mutant_whose_run_never_ends_is_killed():
    code = "def pick(items):\n    if items:\n        return items[0]\n    return None\n"
    strength = judged(
        {"pick.py": (code, None)}, lambda path, m: True if m.operator == "null" else None, 20, 60, workers=1
    )
    assert strength.killed == strength.total > 0 and strength.void == ""
