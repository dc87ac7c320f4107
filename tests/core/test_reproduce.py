"""What counts as reproducing a bug: the model's test file run by the repository's own pytest in
the bwrap sandbox, its failures read from autofix's plugin and judged (bot/core/reproduce.py)."""

import pytest
from suite_env import PYTHON as SUITE_PYTHON

from bot.core.reproduce import Reproduction, Wanted, collected, judge
from bot.judge import gate
from bot.judge.validate import python_paths
from bot.sandbox.tiers import open_sandbox
from bot.spec import DEFAULT_PROTECT

CALC = "def add(a, b):\n    return a - b\n\n\ndef seconds(text):\n    return int(text)\n"
PATH = "tests/autofix/test_issue_1.py"
ISSUE = "`add(2, 3)` returns -1 instead of 5, and `seconds('1:30')` fails."


@pytest.fixture(scope="module")
def sandbox():
    return open_sandbox("bwrap", readable=python_paths())


def judged(tmp_path, sandbox, test: str, issue: str = ISSUE) -> Reproduction | str:
    (tmp_path / "tests/autofix").mkdir(parents=True)
    (tmp_path / "calc.py").write_text(CALC)
    (tmp_path / PATH).write_text(test)
    suite = gate.Suite(sandbox, f"{SUITE_PYTHON} -m pytest -q tests", DEFAULT_PROTECT, 60)
    return judge(collected(suite, tmp_path, PATH), PATH, test, [], issue)


def test_an_assertion_reproduces(tmp_path, sandbox):
    found = judged(tmp_path, sandbox, "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n")
    assert isinstance(found, Reproduction)
    assert (found.failing, found.wanted) == (["tests.autofix.test_issue_1::test_add"], [])


def test_an_exception_raised_in_the_repository_s_code_reproduces(tmp_path, sandbox):
    test = "from calc import seconds\n\n\ndef test_minutes():\n    assert seconds('1:30') == 90\n"
    found = judged(tmp_path, sandbox, test)
    assert isinstance(found, Reproduction) and "ValueError" in found.output


@pytest.mark.parametrize(
    "test",
    [
        "def test_add():\n    from calc import add_fixed\n\n    assert add_fixed(2, 3) == 5\n",
        "import calc\n\n\ndef test_add():\n    assert calc.add_fixed(2, 3) == 5\n",
    ],
    ids=["import", "attribute"],
)
def test_a_name_the_repository_lacks_is_no_reproduction_unless_the_issue_names_it(tmp_path, sandbox, test):
    refused = judged(tmp_path / "refused", sandbox, test)
    assert refused == (
        "tests.autofix.test_issue_1::test_add fails only because `calc` has no `add_fixed`, a name the issue doesn't "
        "mention: a name that doesn't exist yet is not the bug. Test the behaviour the issue describes through the "
        "code that exists"
    )
    asked = judged(tmp_path / "asked", sandbox, test, ISSUE + " Please add `add_fixed(a, b)`.")
    assert isinstance(asked, Reproduction) and asked.wanted == [Wanted("calc", "add_fixed")]


def test_an_exception_the_test_raises_itself_is_no_reproduction(tmp_path, sandbox):
    found = judged(tmp_path, sandbox, "from calc import add\n\n\ndef test_add():\n    assert {}['sum'] == add(2, 3)\n")
    assert isinstance(found, str)
    assert found.startswith(
        "tests.autofix.test_issue_1::test_add fails because of the test itself, not the bug (KeyError: 'sum', "
        "raised by the test's own lines, not inside the repository's code); fix the test:"
    )


def test_a_location_in_the_exception_s_own_text_is_not_read(tmp_path, sandbox):
    """pytest prints the exception's message on lines starting with "E": the test chooses it."""
    test = "def test_add():\n    raise ValueError('bad\\ncalc.py:2: ValueError')\n"
    found = judged(tmp_path, sandbox, test)
    assert isinstance(found, str) and "raised by the test's own lines" in found


def test_a_test_that_imports_pytest_for_raises_reproduces(tmp_path, sandbox):
    """`pytest.raises` is how a pytest test says "this must raise"; the guard lets a reproduction
    test import pytest (tests/judge/test_guard_test_files.py), and the run reads it as any test."""
    test = (
        "import pytest\nfrom calc import seconds\n\n\ndef test_minutes():\n"
        "    with pytest.raises(TypeError):\n        seconds(None)\n    assert seconds('1:30') == 90\n"
    )
    found = judged(tmp_path, sandbox, test)
    assert isinstance(found, Reproduction) and found.failing == ["tests.autofix.test_issue_1::test_minutes"]
