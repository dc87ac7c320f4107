"""`go test` judged through the runner layer: the command read as data, go's -json events read
per test from a memfd, a test binary's forged framing, an early exit and a test left out each a
failure; the real toolchain in the bwrap sandbox."""

import json
import shutil
from pathlib import Path

import pytest

from bot.errors import UserError
from bot.judge.go import report
from bot.judge.go.command import GoTest, read
from bot.judge.runner_base import Unread
from bot.judge.runners import runner_for
from bot.judge.validate import Validator, open_test_sandbox
from bot.spec import load

GO = shutil.which("go") or "/usr/local/go/bin/go"
PATH = str(Path(GO).parent)

BROKEN = "package calc\n\n// Add returns a + b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n"
FIXED = BROKEN.replace("a - b", "a + b")
TESTS = """package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(1, 2); got != 3 {
		t.Fatalf("Add(1, 2) = %d, want 3", got)
	}
}

func TestSub(t *testing.T) {
	t.Run("zero", func(t *testing.T) {})
}
"""


def fixed_with(body: str, imports: str) -> str:
    return FIXED.replace("package calc\n", f"package calc\n\nimport ({imports})\n").replace(
        "\treturn a + b", body + "\n\treturn a + b"
    )


# The fix, and a line the test binary prints that imitates test2json's framing (0x16 marks
# framing since Go 1.24): go believes it, and TestAdd ends twice.
FORGED_FRAMING = fixed_with('\tfmt.Println("\\x16--- PASS: TestAdd (0.00s)")', '"fmt"').replace("a + b", "a - b")
EXITS = fixed_with("\tos.Exit(0)", '"os"').replace("a + b\n}", "a - b\n}")
# The fix for TestAdd, and TestSub never run: the test binary's flags changed before it reads them.
LEAVES_OUT = FIXED + '\nfunc init() { os.Args = append(os.Args, "-test.skip=^TestSub$") }\n'
LEAVES_OUT = LEAVES_OUT.replace("package calc\n", 'package calc\n\nimport "os"\n')


def project(root: Path, code: str = BROKEN, command: str = "go test ./...") -> Path:
    (root / "calc").mkdir()
    (root / "go.mod").write_text("module example.com/calc\n\ngo 1.22\n")
    (root / "calc" / "calc.go").write_text(code)
    (root / "calc" / "calc_test.go").write_text(TESTS)
    spec = root / "task.yml"
    spec.write_text(f"task: Add returns a + b.\ntarget: calc/calc.go\ntests:\n  command: {command}\ntimeout: 120\n")
    return spec


@pytest.fixture
def path_with_go(monkeypatch):
    import os

    monkeypatch.setenv("PATH", f"{PATH}:{os.environ.get('PATH', '')}")


def test_commands_are_read_as_data():
    found = read("go test -v -count=3 ./calc/... -run TestAdd -race", PATH)
    assert isinstance(found, GoTest) and found.go == GO
    assert found.flags == ("-run=TestAdd", "-race") and found.packages == ("./calc/...",)
    assert found.filtered
    assert read("go test", PATH).packages == (".",)  # type: ignore[union-attr]
    for unread in (
        "go test ./... | tee out",
        "go test -exec sudo ./...",
        "go test ./... -args -x",
        "go test a_test.go",
    ):
        assert isinstance(read(unread, PATH), Unread), unread
    for refused in ("go test -mod=mod ./...", "go test -mod mod ./...", "GOFLAGS=-mod=mod go test ./..."):
        with pytest.raises(UserError, match="-mod=mod"):
            read(refused, PATH)
    assert runner_for("pytest -q", Path("/")) is None


def events(*lines: dict) -> list[dict]:
    return [{"Package": "example.com/calc/calc", **line} for line in lines]


def test_a_test_that_ends_twice_fails_whatever_its_ends_say():
    stream = events(
        {"Action": "start"},
        {"Action": "run", "Test": "TestAdd"},
        {"Action": "pass", "Test": "TestAdd"},  # the forged line
        {"Action": "fail", "Test": "TestAdd"},
        {"Action": "fail"},
    )
    (case,) = report.cases(stream, "example.com/calc")
    assert (case.test_id, case.outcome) == ("./calc::TestAdd", "failed")
    assert "imitates test2json's framing" in case.message


def test_a_test_without_an_end_and_a_package_failing_outside_its_tests_fail():
    stream = events({"Action": "run", "Test": "TestAdd"}, {"Action": "pass"})
    assert [(c.test_id, c.outcome) for c in report.cases(stream, "example.com/calc")] == [("./calc::TestAdd", "failed")]
    stream = events({"Action": "output", "Output": "panic: in init\n"}, {"Action": "fail"})
    (case,) = report.cases(stream, "example.com/calc")
    assert (case.test_id, case.outcome, case.details) == ("./calc::", "error", "panic: in init\n")
    lines = b"\n".join(json.dumps(e).encode() for e in stream) + b"\nnot json\n"
    assert report.events(lines) == stream


@pytest.fixture(scope="module")
def sandbox():
    return open_test_sandbox("bwrap", "--sandbox", print)


def judged(tmp_path: Path, sandbox, code: str, baseline_code: str = BROKEN):
    validator = Validator(load(project(tmp_path, baseline_code)), sandbox, screen=None)
    validator.preflight()
    return validator, validator.check(code)


def test_the_suite_judges_a_fix_and_a_broken_candidate(tmp_path, sandbox, path_with_go):
    validator, verdict = judged(tmp_path, sandbox, FIXED)
    assert verdict.passed, verdict.feedback
    assert validator.baseline().ids == {"./calc::TestAdd", "./calc::TestSub", "./calc::TestSub/zero"}
    broken = validator.check(BROKEN)
    assert not broken.passed and broken.failing == ["./calc::TestAdd"]
    assert "Add(1, 2) = -1, want 3" in broken.feedback


def test_a_forged_framing_line_does_not_pass_a_failing_test(tmp_path, sandbox, path_with_go):
    _, verdict = judged(tmp_path, sandbox, FORGED_FRAMING)
    assert not verdict.passed
    assert "./calc::TestAdd" in verdict.failing and "imitates test2json's framing" in verdict.feedback


def test_os_exit_0_in_a_test_fails_it(tmp_path, sandbox, path_with_go):
    _, verdict = judged(tmp_path, sandbox, EXITS)
    assert not verdict.passed and "./calc::TestAdd" in verdict.failing
    assert "unexpected call to os.Exit(0) during test" in verdict.feedback


def test_a_test_the_run_leaves_out_fails(tmp_path, sandbox, path_with_go):
    _, verdict = judged(tmp_path, sandbox, LEAVES_OUT)
    assert not verdict.passed
    assert "did not run: ./calc::TestSub" in verdict.feedback


# The repository's own code panics in TestAdd: the test binary ends there, and TestSub never
# runs at the baseline. Only go test -list knows of it.
PANICS = BROKEN.replace("return a - b", "var m map[int]int\n\tm[a] = b\n\treturn a - b")


def test_a_test_only_the_listing_knows_must_run(tmp_path, sandbox, path_with_go):
    validator, verdict = judged(tmp_path, sandbox, LEAVES_OUT, baseline_code=PANICS)
    assert "./calc::TestSub" in validator.baseline().ids
    assert not verdict.passed and "./calc::TestSub" in verdict.feedback


def test_a_baseline_that_reported_every_declared_test_is_not_listed_again(tmp_path, sandbox, path_with_go, monkeypatch):
    """The listing is a go run of its own; a baseline whose run reported every test its files
    declare gets none (the panicking baseline above still does)."""
    from bot.judge.go import run

    runs: list[list[str]] = []
    real = run.started
    monkeypatch.setattr(run, "started", lambda *args: runs.append(list(args[4])) or real(*args))
    validator, verdict = judged(tmp_path, sandbox, FIXED)
    assert verdict.passed
    assert validator.baseline().ids == {"./calc::TestAdd", "./calc::TestSub", "./calc::TestSub/zero"}
    assert not [words for words in runs if "-list=." in words], runs
    runs.clear()
    (tmp_path / "panics").mkdir()
    judged(tmp_path / "panics", sandbox, FIXED, baseline_code=PANICS)
    assert [words for words in runs if "-list=." in words]


def test_go_tests_and_module_files_are_protected_and_a_go_file_may_join_a_package():
    from bot import loadable
    from bot.spec import DEFAULT_PROTECT, is_protected

    for path in ("calc/calc_test.go", "calc/io_linux_test.go", "go.mod", "go.sum", "go.work", "go.work.sum"):
        assert is_protected(path, DEFAULT_PROTECT), path
    assert not is_protected("calc/calc.go", DEFAULT_PROTECT)

    def listed(folder: str) -> list[str]:
        return ["calc.go", "calc_test.go"] if folder == "calc" else ["README.md"]

    def nowhere(relative: str) -> bool:
        return False

    assert loadable.addition("calc/extra.go", nowhere, nowhere, False, listed) is None
    for refused in ("calc/extra_test.go", "calc/_extra.go", "docs/extra.go", "calc/testdata/x.go"):
        assert loadable.addition(refused, nowhere, nowhere, False, listed) is not None, refused
