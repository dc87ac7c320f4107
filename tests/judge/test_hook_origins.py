"""A hook implementation from the work folder's code under repair is refused however its
attributes point elsewhere (#40 item 2): the attacker's plugin set its hook function's `func` to a
standard-library function, and the check of where hooks come from,
which followed those attributes, placed it outside the work folder."""

import pytest
from suite_env import PYTHON as SUITE_PYTHON

from bot.judge.validate import python_paths
from bot.judge.verdict import Plugins, run_tests
from bot.sandbox.tiers import Limits, open_sandbox

TIERS = ["bwrap", "landlock", "process"]
TESTS = "from calc import gcd\n\n\ndef test_gcd():\n    assert gcd(12, 8) == 4\n"
# The suite's conftest hands the plugin manager what calc.py made (how a foreign hook got there is
# the other guards' business: this is the last line, the check of every hook's origin).
CONFTEST = "import calc\n\n\ndef pytest_configure(config):\n    config.pluginmanager.register(calc.HOOKS)\n"
DISGUISES = {
    "function.func": """\
import os.path
import types

import pytest


def gcd(a, b):
    import math
    return math.gcd(a, b)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    yield


pytest_runtest_makereport.func = os.path.join
HOOKS = types.SimpleNamespace(pytest_runtest_makereport=pytest_runtest_makereport)
""",
}
sandboxes = {}


def sandbox(tier):
    if tier not in sandboxes:
        sandboxes[tier] = open_sandbox(tier, readable=python_paths())
    return sandboxes[tier]


@pytest.mark.parametrize("disguise", sorted(DISGUISES))
@pytest.mark.parametrize("tier", TIERS)
def test_a_hook_from_the_code_under_repair_is_found_through_any_disguise(tmp_path, tier, disguise):
    (tmp_path / "calc.py").write_text(DISGUISES[disguise])
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_calc.py").write_text(TESTS)
    (tmp_path / "tests" / "conftest.py").write_text(CONFTEST)
    command = f"{SUITE_PYTHON} -m pytest -q tests"
    run = run_tests(sandbox(tier), command, tmp_path, Limits(wall_seconds=30), "calc.py", plugins=Plugins())
    assert run.tampered == ["the hook pytest_runtest_makereport was implemented by calc.py"], run.outcome.output
