"""How many tests a passing verdict counts (Verdict.tests, the figure of the pull request's first
line): the tests that passed as the run's own signed report has them, never the planted canaries,
never a skipped test, never a count the run's output prints; none for a command judged by its
exit code."""

import sys

from suite_env import PYTHON as SUITE_PYTHON

from bot.judge.validate import Validator, python_paths
from bot.sandbox.tiers import open_sandbox
from bot.spec import Spec

RIGHT = "def unique_items(items):\n    return list(dict.fromkeys(items))\n"
WRONG = "def unique_items(items):\n    return list(set(items))\n"
PYTEST_FILE = """\
import pytest

from unique import unique_items

print("==================== 999 passed in 0.01s ====================")  # a summary line of its own


@pytest.mark.parametrize("items", [[], [1], [2, 2]])
def test_kept(items):
    assert unique_items(items) == list(dict.fromkeys(items))


def test_order():
    assert unique_items([3, 1, 3, 2, 1]) == [3, 1, 2]


@pytest.mark.skip(reason="not yet")
def test_later():
    assert False
"""
UNITTEST_FILE = """\
import unittest

from unique import unique_items


class Unique(unittest.TestCase):
    def test_order(self):
        self.assertEqual(unique_items([3, 1, 3, 2]), [3, 1, 2])

    def test_empty(self):
        self.assertEqual(unique_items([]), [])

    @unittest.skip("not yet")
    def test_later(self):
        self.fail()
"""


def validator(folder, command, test_file):
    (folder / "tests").mkdir()
    (folder / "tests" / "test_unique.py").write_text(test_file)
    (folder / "unique.py").write_text(WRONG)
    spec = Spec.model_validate({"task": "t", "target": "unique.py", "tests": {"command": command}, "timeout": 30})
    spec.workdir = folder
    return Validator(spec, open_sandbox("bwrap", readable=python_paths()), screen=None)


def test_a_pytest_run_counts_the_tests_its_report_says_passed(tmp_path):
    checker = validator(tmp_path, f"{SUITE_PYTHON} -m pytest -q tests", PYTEST_FILE)
    passed = checker.check(RIGHT)
    assert passed.passed and passed.tests == 4  # 3 parameters and test_order; not the skipped one, nor canaries
    assert not checker.check(WRONG).passed


def test_a_unittest_run_counts_what_ran_less_what_was_skipped(tmp_path):
    checker = validator(tmp_path, f"{sys.executable} -m unittest discover -s tests", UNITTEST_FILE)
    passed = checker.check(RIGHT)
    assert passed.passed and passed.tests == 2


def test_a_command_judged_by_its_exit_code_counts_none(tmp_path):
    command = f"{sys.executable} -c \"print('3 passed')\""
    passed = validator(tmp_path, command, PYTEST_FILE).check(RIGHT)
    assert passed.passed and passed.tests is None
