"""A twin changes an assertion its run reaches (found on toolz 1.0.0's suite, #44's real run): the
last `==` of the test's own body, never one in a `try`, a branch or a loop, which the original may
never run. A twin whose changed assertion was never reached passes beside its original, and an
honest run was read as forged ("a canary and the test it contradicts were both reported passed")."""

from suite_env import PYTHON as SUITE_PYTHON

from bot.judge.validate import python_paths
from bot.judge.verdict import Plugins, run_tests
from bot.sandbox.tiers import Limits, open_sandbox

RIGHT = "import math\n\n\ndef gcd(a, b):\n    return math.gcd(a, b)\n"
# As toolz's test_tlz: the last `==` checks an optional package that isn't installed.
TESTS = """\
from calc import gcd


def test_gcd():
    assert gcd(12, 8) == 4
    try:
        import fastcalc_not_installed
        assert fastcalc_not_installed.gcd(12, 8) == 4
    except ImportError:
        pass
    if gcd(1, 1) == 2:
        assert gcd(2, 2) == 2
"""


def test_a_twin_never_changes_an_assertion_its_run_may_not_reach(tmp_path):
    (tmp_path / "calc.py").write_text(RIGHT)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_calc.py").write_text(TESTS)
    sandbox = open_sandbox("bwrap", readable=python_paths())
    command = f"{SUITE_PYTHON} -m pytest -q tests"
    for _ in range(3):  # the one test is the one to twin, in every run
        run = run_tests(sandbox, command, tmp_path, Limits(wall_seconds=30), "calc.py", plugins=Plugins())
        assert run.forged == [] and run.tampered == []
        assert [(case.test_id, case.outcome) for case in run.cases or []] == [("tests.test_calc::test_gcd", "passed")]


def test_a_twin_of_an_assertion_against_an_empty_list_compiles(tmp_path):
    """`== []` becomes `== [0]`: the element made for it has the assertion's place in the file,
    which compiling the twin needs (toolz asserts `== []`; without it pytest stopped at collection,
    INTERNALERROR, and the run reported no test)."""
    (tmp_path / "evens.py").write_text("def evens(items):\n    return [x for x in items if x % 2 == 0]\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_evens.py").write_text(
        "from evens import evens\n\n\ndef test_none():\n    assert evens([1, 3]) == []\n"
    )
    sandbox = open_sandbox("bwrap", readable=python_paths())
    command = f"{SUITE_PYTHON} -m pytest -q tests"
    limits = Limits(wall_seconds=30)  # outcomes only: no assertion rewriting, which would fill the place in
    run = run_tests(sandbox, command, tmp_path, limits, "evens.py", plugins=Plugins(), outcomes_only=True)
    assert "INTERNALERROR" not in run.outcome.output and run.forged == []
    assert [(case.test_id, case.outcome) for case in run.cases or []] == [("tests.test_evens::test_none", "passed")]
