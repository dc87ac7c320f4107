"""Where autofix puts a reproduction test of a pytest suite (gate.Suite.new_test_file): where the
test command collects it as it stands, so the project's own CI runs it after the merge too
(found on toolz, whose suite runs as `pytest toolz/tests`: a test under tests/autofix/ ran in
autofix's runs only, named to pytest by autofix)."""

import pytest
from suite_env import PYTHON as SUITE_PYTHON

from bot.judge import gate

PYTEST = f"{SUITE_PYTHON} -m pytest -q"


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ("toolz/tests", "toolz/tests/test_autofix_review_7.py"),  # tests/autofix/ isn't collected
        ("-x toolz/tests tests", "tests/autofix/test_review_7.py"),  # it is, under tests
        ("tests", "tests/autofix/test_review_7.py"),
        ("", "tests/autofix/test_review_7.py"),  # pytest's own discovery
        ("toolz/tests/test_core.py", "tests/autofix/test_review_7.py"),  # a file: named to pytest as before
    ],
)
def test_a_reproduction_test_goes_where_the_command_collects_it(tmp_path, arguments, expected):
    (tmp_path / "toolz" / "tests").mkdir(parents=True)
    (tmp_path / "toolz" / "tests" / "test_core.py").write_text("def test_x():\n    pass\n")
    (tmp_path / "tests").mkdir()
    suite = gate.Suite(None, f"{PYTEST} {arguments}".strip(), (), 60)  # type: ignore[arg-type]: never run
    assert suite.new_test_file(tmp_path, "review_7") == expected
