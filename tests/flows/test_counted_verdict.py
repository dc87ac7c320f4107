"""The pull request's first line counts the tests that decided it for a test command too (#44):
"the 3 tests of `python -m pytest -q tests` passed", the number the passing run's own report gave
(not the canaries autofix planted beside them; a skipped test is left out too:
tests/judge/test_verdict_count.py), rendered by cmark-gfm as GitHub shows it.
End to end through `autofix action`, like test_action.py."""

import gfm
from action_world import REPO, act, labeled
from conftest import RIGHT, WRONG
from suite_env import PYTHON as SUITE_PYTHON

COMMAND = f"{SUITE_PYTHON} -m pytest -q tests"
TESTS = """\
import pytest

from unique import unique_items


@pytest.mark.parametrize("items, kept", [([3, 1, 3, 2], [3, 1, 2]), (["b", "a", "b"], ["b", "a"])])
def test_order(items, kept):
    assert unique_items(items) == kept


def test_empty():
    assert unique_items([]) == []
"""


def test_a_pytest_commands_passing_tests_are_counted_in_the_first_line(world, github, capsys):
    world.commit_to_origin({".github/autofix.yml": f"tests:\n  command: {COMMAND}\n", "tests/test_unique.py": TESTS})
    world.event("issues", labeled(body="The order is lost.\n\n```yaml\ntarget: unique.py\n```\n"))
    code, out, _ = act(capsys, world, [WRONG, RIGHT])
    assert code == 0, "\n".join(out)
    [pull] = github.pulls(REPO)
    page = gfm.read(pull.body)
    assert page.first() == f"✅ autofix wrote unique.py for #1: the 3 tests of {COMMAND} passed on attempt 2 of 3."
    assert f"Judged by: the 3 tests of {COMMAND}." in page.paragraphs
