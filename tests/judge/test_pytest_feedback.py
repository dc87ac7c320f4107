"""What a failing pytest test tells the model: its node id as pytest takes it, the assertion
with pytest's own introspection of both sides, and the test's lines up to the failure, from its
file when the traceback style leaves them out."""

import pytest
from suite_env import PYTHON as SUITE_PYTHON
from test_verdict import validator

SHOP_TESTS = """\
from shop import minutes


def test_minutes():
    start = 10
    end = 70
    assert minutes(start, end) == 60
"""
WRONG = "def minutes(start, end):\n    return end - start + 1\n"


def shop(tmp_path, options: str = "", folder: str = "tests", preflight: bool = True):
    (tmp_path / folder).mkdir(parents=True)
    (tmp_path / folder / "test_shop.py").write_text(SHOP_TESTS)
    command = f"{SUITE_PYTHON} -m pytest -q -p no:cacheprovider {options} tests".replace("  ", " ")
    checker = validator(tmp_path, "bwrap", {"command": command}, target="shop.py")
    if preflight:  # then the failing tests run first, alone (Validator.rejected_quickly)
        checker.preflight()
    return checker.check(WRONG)


def test_a_failing_test_is_named_as_pytest_takes_it_with_its_source_and_both_sides(tmp_path):
    verdict = shop(tmp_path)
    assert verdict.failing == ["tests.test_shop::test_minutes"]  # the report's id, as before
    assert verdict.feedback == (
        "Failing checks:\n- tests/test_shop.py::test_minutes: failed: assert 61 == 60\n\nDetails:\n"
        "### tests/test_shop.py::test_minutes\nfailed: assert 61 == 60\n"
        "    def test_minutes():\n"
        "        start = 10\n"
        "        end = 70\n"
        ">       assert minutes(start, end) == 60\n"
        "E       assert 61 == 60\n"
        "E        +  where 61 = minutes(10, 70)\n\n"
        "tests/test_shop.py:7: AssertionError\n\n"
        "pytest: 1 failed"
    )


def test_a_short_traceback_gets_the_tests_lines_from_its_file(tmp_path):
    verdict = shop(tmp_path, "--tb=short")
    assert verdict.feedback.split("\n\nDetails:\n", 1)[1].startswith(
        "### tests/test_shop.py::test_minutes\nfailed: assert 61 == 60\n"
        "tests/test_shop.py:4, the test up to its failing line:\n"
        "    def test_minutes():\n"
        "        start = 10\n"
        "        end = 70\n"
        ">       assert minutes(start, end) == 60\n"
        "tests/test_shop.py:7: in test_minutes\n"
        "    assert minutes(start, end) == 60\n"
        "E   assert 61 == 60\n"
        "E    +  where 61 = minutes(10, 70)\n"
    )


@pytest.mark.parametrize("preflight", [True, False])
def test_a_folder_with_a_dot_in_its_name_keeps_it_in_the_node_id(tmp_path, preflight):
    verdict = shop(tmp_path, "--tb=short", folder="tests/v1.2", preflight=preflight)
    assert verdict.failing == ["tests.v1.2.test_shop::test_minutes"]
    assert verdict.feedback.startswith(
        "Failing checks:\n- tests/v1.2/test_shop.py::test_minutes: failed: assert 61 == 60\n\nDetails:\n"
        "### tests/v1.2/test_shop.py::test_minutes\nfailed: assert 61 == 60\n"
        "tests/v1.2/test_shop.py:4, the test up to its failing line:\n"
    )


def test_an_import_error_shows_the_test_file_and_not_autofix_s_stand_ins(tmp_path):
    """A test module that can't import the name it wants fails through pytest's import hook, whose
    stand-in (hidden.py) sits on the stack: the model reads the import and its error, not the
    stand-in's frames in a folder it has never seen."""
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_shop.py").write_text(SHOP_TESTS)
    command = f"{SUITE_PYTHON} -m pytest -q -p no:cacheprovider tests"
    checker = validator(tmp_path, "bwrap", {"command": command}, target="shop.py")
    verdict = checker.check("def hours(start, end):\n    return end - start\n")
    assert "from shop import minutes\nE   ImportError: cannot import name 'minutes' from 'shop'" in verdict.feedback
    assert "autofix-hooks" not in verdict.feedback, verdict.feedback
