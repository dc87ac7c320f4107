"""A test file autofix adds (a free-form issue's or a review's reproduction test) may import pytest
itself: `pytest.raises` is how a pytest test says "this must raise". pytest's internals, its exit,
its hooks and its plugin manager stay refused there, as in code under repair (bot/judge/guards.py)."""

import pytest

from bot.judge import guards

PATH = "toolz/tests/test_autofix_review_7.py"
RAISES = (
    "import pytest\nfrom pytest import approx\n\nfrom toolz import second\n\n\n"
    "@pytest.mark.parametrize('items', [[1], ()])\ndef test_short(items):\n"
    "    with pytest.raises(IndexError):\n        second(items)\n    assert 0.1 + 0.2 == approx(0.3)\n"
)


def rules(code: str, test_file: bool) -> list[tuple[int, str]]:
    screen = guards.for_path(PATH, test_file=test_file)
    assert screen is not None
    return [(found.line, found.rule) for found in screen(code, None, PATH)]


def test_a_reproduction_test_may_import_pytest_for_raises_approx_and_marks():
    assert rules(RAISES, test_file=True) == []
    assert rules(RAISES, test_file=False) == [(1, "test-runner"), (2, "test-runner")]  # code under repair


@pytest.mark.parametrize(
    "code",
    [
        "import _pytest.runner\n",
        "import pytest\n\n\ndef test_x():\n    pytest.exit('done', returncode=0)\n",
        "from pytest import main\n",
        "import pluggy\n",
        "def pytest_runtest_makereport(item, call):\n    pass\n",
        "def test_x(request):\n    request.config.pluginmanager.register(object())\n",
    ],
    ids=["internals", "exit", "main", "pluggy", "hook", "plugin-manager"],
)
def test_a_reproduction_test_still_may_not_reach_the_runner(code):
    assert [rule for _, rule in rules(code, test_file=True)] == ["test-runner"]
