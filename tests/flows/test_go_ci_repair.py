"""Red CI repair of a Go repository through `autofix action`: a pull request breaks a function, its
`go test ./...` fails in CI; the failed job's log names the failing tests (`--- FAIL:` lines and the
`FAIL\tpackage` line after them), which the baseline runs again side by side with the whole suite;
autofix runs go in its sandbox, fixes the code with edit blocks, proves the fix with Go's mutants of
the fixed line and proposes it. Real PyGithub against the fake GitHub, real git, the real sandbox,
real go."""

import os

import pytest
import test_ci_repair
from action_world import REPO, World, act
from test_ci_repair import open_pull, run_event
from test_go_spec import GO

FIXED = "package calc\n\n// Add returns a + b.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n"
BROKEN = FIXED.replace("a + b\n}", "a - b\n}")
TESTS = """package calc

import "testing"

func TestAdd(t *testing.T) {
	if got := Add(1, 2); got != 3 {
		t.Fatalf("Add(1, 2) = %d, want 3", got)
	}
}

func TestTable(t *testing.T) {
	t.Run("two and two", func(t *testing.T) {
		if got := Add(2, 2); got != 4 {
			t.Errorf("Add(2, 2) = %d, want 4", got)
		}
	})
}

func TestZero(t *testing.T) {
	if got := Add(0, 0); got != 0 {
		t.Errorf("Add(0, 0) = %d, want 0", got)
	}
}
"""
CONFIG = "tests:\n  command: go test ./...\nmax_attempts: 2\ntimeout: 180\njobs: 2\n"
JOB_LOG = (
    "2024-05-01T10:00:00.0000000Z --- FAIL: TestAdd (0.00s)\n"
    "2024-05-01T10:00:00.0000000Z     calc_test.go:7: Add(1, 2) = -1, want 3\n"
    "2024-05-01T10:00:00.0000000Z --- FAIL: TestTable (0.00s)\n"
    "2024-05-01T10:00:00.0000000Z     --- FAIL: TestTable/two_and_two (0.00s)\n"
    "2024-05-01T10:00:00.0000000Z         calc_test.go:14: Add(2, 2) = 0, want 4\n"
    "2024-05-01T10:00:00.0000000Z FAIL\n"
    "2024-05-01T10:00:00.0000000Z FAIL\texample.com/calc/calc\t0.002s\n"
    "2024-05-01T10:00:00.0000000Z FAIL\n"
    "2024-05-01T10:00:01.0000000Z ##[error]Process completed with exit code 1.\n"
)
FIX = (
    "The pull request turned `+` into `-`.\n\ncalc/calc.go\n```go\n<<<<<<< SEARCH\n"
    "\treturn a - b\n=======\n\treturn a + b\n>>>>>>> REPLACE\n```\n"
)


@pytest.fixture
def world(tmp_path, monkeypatch, github):
    monkeypatch.setenv("PATH", f"{os.path.dirname(GO)}:{os.environ.get('PATH', '')}")
    monkeypatch.setattr(test_ci_repair, "JOB_LOG", JOB_LOG)  # the failed job's log open_pull gives its run
    world = World(tmp_path, monkeypatch, github)
    world.commit_to_origin(
        {
            "go.mod": "module example.com/calc\n\ngo 1.22\n",
            "calc/calc.go": FIXED,
            "calc/calc_test.go": TESTS,
            ".github/autofix.yml": CONFIG,
        }
    )
    return world


def test_a_pull_request_that_breaks_a_go_function_gets_a_fix(world, github, capsys):
    pull, run = open_pull(world, github, {"calc/calc.go": BROKEN})
    world.event("workflow_run", run_event(github, pull, run))
    code, out, openai = act(capsys, world, [FIX])
    assert code == 0, "\n".join(out)
    # The log's three failing tests ran again, and at the base, beside the whole suite.
    assert (
        "autofix: baseline ran the 3 tests the CI log names as failing again and at the base, side by side with it"
    ) in out, "\n".join(out)
    assert "autofix: baseline: 4 tests, 3 failing in both runs" in out
    assert "./calc::TestAdd" in openai.prompts()[0]
    assert world.file_at("autofix/pr-2", "calc/calc.go") == FIXED
    fix = github.pull(REPO, 3)
    assert (
        "before the change, 3 failing (`./calc::TestAdd`, `./calc::TestTable`, `./calc::TestTable/two_and_two`); "
        "after it, 0 of them still failing, 0 new failures"
    ) in fix.body
    # The proof's mutants are Go's, of the fixed line, judged by go test like the fix.
    [strength] = [line for line in fix.body.splitlines() if line.startswith("**Test strength**")]
    assert strength == (
        "**Test strength** (mutants of the code autofix wrote): tests killed 2 of 2 mutants "
        "(score 1.00). Only 2 mutants: weak evidence either way."
    )
