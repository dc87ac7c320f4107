"""A red-CI fix that passes the gate is mutated and judged by the tests it had to make pass: when
none of its mutants fails them, the fix is proposed as a draft whose proof says it is unproven."""

import pytest
from action_world import REPO, World, act
from suite_env import PYTHON as SUITE_PYTHON
from test_ci_repair import block, open_pull, run_event

CALC = "def add(a, b):\n    return a + b\n"
# Fails on `a - b` (2 - 3 is -1), passes on `a + b`, and passes on the fix's one mutant, `return None`.
WEAK_TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) != -1\n"
STRONG_TEST = "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"
CONFIG = f"tests:\n  command: {SUITE_PYTHON} -m pytest -q tests\nmax_attempts: 1\n"
FIX = block("calc.py", "    return a - b\n", "    return a + b\n")


@pytest.fixture(params=["weak", "strong"])
def world(request, tmp_path, monkeypatch, github):
    world = World(tmp_path, monkeypatch, github)
    test = WEAK_TEST if request.param == "weak" else STRONG_TEST
    world.commit_to_origin({"calc.py": CALC, "tests/test_calc.py": test, ".github/autofix.yml": CONFIG})
    world.weak = request.param == "weak"
    return world


def test_a_fix_whose_mutants_all_pass_the_failing_tests_is_proposed_unproven(world, github, capsys):
    pull, run = open_pull(world, github, {"calc.py": CALC.replace("a + b", "a - b")})
    world.event("workflow_run", run_event(github, pull, run))
    code, out, openai = act(capsys, world, [FIX])
    assert code == 0, "\n".join(out)
    fix = github.pull(REPO, 3)
    unproven = "**Unproven:** the failing tests fail none of 1 mutant of the fix."
    assert (unproven in fix.body, fix.draft) == (world.weak, world.weak)
    killed = "0 of 1 mutant (score 0.00)" if world.weak else "1 of 1 mutant (score 1.00)"
    assert f"tests killed {killed}" in fix.body


# Passes only when pytest rewrote its asserts (rewritten modules get `@py_builtins`): the proof's
# mutants run without rewriting, where this test fails every variant, the null mutants too.
REWRITTEN_TEST = STRONG_TEST.replace("    assert add", '    assert "@py_builtins" in globals()\n    assert add')


def test_a_test_that_needs_pytest_s_assertion_rewriting_still_proves_the_fix(tmp_path, monkeypatch, github, capsys):
    world = World(tmp_path, monkeypatch, github)
    world.commit_to_origin({"calc.py": CALC, "tests/test_calc.py": REWRITTEN_TEST, ".github/autofix.yml": CONFIG})
    pull, run = open_pull(world, github, {"calc.py": CALC.replace("a + b", "a - b")})
    world.event("workflow_run", run_event(github, pull, run))
    code, out, openai = act(capsys, world, [FIX])
    assert code == 0, "\n".join(out)
    fix = github.pull(REPO, 3)
    assert (fix.draft, "tests killed 1 of 1 mutant (score 1.00)" in fix.body) == (False, True)
