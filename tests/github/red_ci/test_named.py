"""The tests a failed run's log names as failing: pytest's short summary lines, as the verdict
names tests, only for files the work folder holds, and none when there are too many to be a guess."""

from bot.github.red_ci.named import MOST, failing_tests

LOG = (
    "2026-12-01T10:00:00.0000000Z ============ short test summary info ============\n"
    "2026-12-01T10:00:00.0000000Z \x1b[31mFAILED\x1b[0m tests/test_calc.py::test_add - assert -1 == 5\n"
    "2026-12-01T10:00:00.0000000Z FAILED tests/test_calc.py::TestCalc::test_sub[2-3] - AssertionError\n"
    "2026-12-01T10:00:00.0000000Z ERROR tests/test_io.py::test_read - FileNotFoundError\n"
    "FAILED tests/test_calc.py::test_spaced[a b] - a parameter cut at its space\n"
    "FAILED elsewhere/test_gone.py::test_x - a file this checkout doesn't hold\n"
    "FAILED ../outside.py::test_x - outside the work folder\n"
    "  FAILED tests/test_calc.py::test_indented - not a summary line\n"
)


def tree(tmp_path):
    (tmp_path / "tests").mkdir()
    for name in ("test_calc.py", "test_io.py"):
        (tmp_path / "tests" / name).write_text("")
    return tmp_path


def test_the_summary_lines_name_tests_as_the_verdict_does(tmp_path):
    assert failing_tests([("test", LOG)], tree(tmp_path)) == {
        "tests.test_calc::test_add",
        "tests.test_calc::TestCalc::test_sub[2-3]",
        "tests.test_io::test_read",
    }


def test_more_than_a_guess_is_none(tmp_path):
    many = "".join(f"FAILED tests/test_calc.py::test_{n} - x\n" for n in range(MOST + 1))
    root = tree(tmp_path)
    assert failing_tests([("test", many)], root) == set()
    assert len(failing_tests([("test", many.split("\n", 1)[1])], root)) == MOST
