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


JS_LOG = (
    "2026-12-01T10:00:00.0000000Z FAIL test/chunk.test.js\n"
    "2026-12-01T10:00:00.0000000Z   \x1b[1m● chunk › splits into pairs\x1b[22m\n"
    "2026-12-01T10:00:00.0000000Z   ● chunk › one per chunk\n"
    "2026-12-01T10:00:00.0000000Z PASS test/other.test.js\n"
    "2026-12-01T10:00:01.0000000Z  FAIL  test/parse.test.ts > parse > reads a date 4ms\n"
    "2026-12-01T10:00:01.0000000Z  FAIL  ../outside.test.ts > x > y\n"
    "2026-12-01T10:00:01.0000000Z FAIL gone/missing.test.js\n"
    "2026-12-01T10:00:01.0000000Z   ● a › b\n"
)


def test_jest_s_and_vitest_s_failures_are_named_as_autofix_s_reporters_name_them(tmp_path):
    (tmp_path / "test").mkdir()
    for name in ("chunk.test.js", "parse.test.ts"):
        (tmp_path / "test" / name).write_text("")
    assert failing_tests([("test", JS_LOG)], tmp_path) == {
        "test/chunk.test.js::chunk > splits into pairs",
        "test/chunk.test.js::chunk > one per chunk",
        "test/parse.test.ts::parse > reads a date",
    }


GO_LOG = (
    "2026-12-01T10:00:00.0000000Z --- FAIL: TestAdd (0.00s)\n"
    "2026-12-01T10:00:00.0000000Z     calc_test.go:7: Add(1, 2) = -1, want 3\n"
    "2026-12-01T10:00:00.0000000Z --- FAIL: TestSub (0.01s)\n"
    "2026-12-01T10:00:00.0000000Z     --- FAIL: TestSub/zero (0.00s)\n"
    "2026-12-01T10:00:00.0000000Z FAIL\n"
    "2026-12-01T10:00:00.0000000Z FAIL\texample.com/m/calc\t0.012s\n"
    "--- FAIL: TestRoot (0.00s)\n"
    "FAIL\texample.com/m\t0.003s\n"
    "--- FAIL: TestPassedPackage (0.00s)\n"
    "ok  \texample.com/m/other\t0.003s\n"
    "--- FAIL: TestElsewhere (0.00s)\n"
    "FAIL\texample.com/m/gone\t0.003s\n"
    "--- FAIL: TestOutside (0.00s)\n"
    "FAIL\tgithub.com/x/y\t0.003s\n"
    "FAIL\texample.com/m/other [build failed]\n"
    '{"Time":"2026-12-01T10:00:00Z","Action":"fail","Package":"example.com/m/other","Test":"TestJSON","Elapsed":0}\n'
    '{"Action":"pass","Package":"example.com/m/other","Test":"TestPasses"}\n'
    '{"Action":"fail","Package":"example.com/m/other","Elapsed":0.1}\n'
)


def test_go_test_s_failures_are_named_by_package_as_go_s_runner_names_them(tmp_path):
    (tmp_path / "go.mod").write_text("module example.com/m\n\ngo 1.22\n")
    (tmp_path / "root_test.go").write_text("")
    for folder in ("calc", "other"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "x_test.go").write_text("")
    assert failing_tests([("test", GO_LOG)], tmp_path) == {
        "./calc::TestAdd",
        "./calc::TestSub",
        "./calc::TestSub/zero",
        ".::TestRoot",
        "./other::TestJSON",
    }
