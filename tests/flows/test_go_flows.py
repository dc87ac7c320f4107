"""The GitHub flows on a Go module, end to end through `autofix action` as test_js_flows.py drives
JavaScript's: a labeled issue whose yaml block names a Go target judged by `go test ./...`, and a
free-form issue, reproduced by a `_test.go` file autofix places in the package of the file
localization picked, in that package's clause, run alone by go (`-run '^(TestX)$' ./pkg`), failing
before the fix and passing after. Real PyGithub against the fake GitHub, the real openai SDK
against the scripted server, real git, the real sandbox, real go (a module of two small packages,
no dependencies)."""

import os

import pytest
from action_world import REPO, World, act, labeled
from fake_openai import Reply
from test_go_spec import GO

FIXED = """\
package grade

// Grade gives an A from 90 up, a B from 80 up, else a C.
func Grade(score int) string {
	if score >= 90 {
		return "A"
	}
	if score >= 80 {
		return "B"
	}
	return "C"
}
"""
BROKEN = FIXED.replace("score >= 90", "score > 90")
# The package's tests are an external test package's: the reproduction is written in that clause.
TESTS = """\
package grade_test

import (
	"testing"

	"example.com/shop/grade"
)

func TestGrade(t *testing.T) {
	for score, want := range map[int]string{95: "A", 80: "B", 10: "C"} {
		if got := grade.Grade(score); got != want {
			t.Errorf("Grade(%d) = %q, want %q", score, got, want)
		}
	}
}
"""
# Another package, whose test file sorts first: the reproduction goes where the bug is, not here.
APPLE = "package apple\n\n// Count returns n.\nfunc Count(n int) int { return n }\n"
APPLE_TESTS = (
    'package apple\n\nimport "testing"\n\nfunc TestCount(t *testing.T) {\n'
    '\tif Count(2) != 2 {\n\t\tt.Fatal("Count(2) != 2")\n\t}\n}\n'
)
TASK = "Grade(score) must give an A from 90 up, a B from 80 up, else a C."
BLOCK = f"{TASK}\n\n```yaml\ntarget: grade/grade.go\ntests:\n  command: go test ./...\nmax_attempts: 2\n```\n"
FIX = (
    "90 itself is an A.\n\ngrade/grade.go\n```go\n<<<<<<< SEARCH\n"
    "\tif score > 90 {\n=======\n\tif score >= 90 {\n>>>>>>> REPLACE\n```\n"
)


def go(code: str) -> str:
    return f"Here is the code.\n\n```go\n{code}```\n"


@pytest.fixture
def world(tmp_path, monkeypatch, github):
    monkeypatch.setenv("PATH", f"{os.path.dirname(GO)}:{os.environ.get('PATH', '')}")
    world = World(tmp_path, monkeypatch, github)
    world.input("strength", "off")
    world.commit_to_origin(
        {
            "go.mod": "module example.com/shop\n\ngo 1.22\n",
            "apple/apple.go": APPLE,
            "apple/apple_test.go": APPLE_TESTS,
            "grade/grade.go": BROKEN,
            "grade/grade_test.go": TESTS,
            ".github/autofix.yml": "tests:\n  command: go test ./...\ntimeout: 180\n",
        }
    )
    return world


def grade_issue(body: str = BLOCK) -> dict:
    event = labeled(body=body)
    event["issue"]["title"] = "Grade gives 90 a B"
    return event


def changed(world: World, branch: str, base: str = "master") -> list[str]:
    return world.git("diff", "--name-only", base, branch, cwd=world.origin).splitlines()


def test_a_labeled_issue_naming_a_go_target_opens_a_pull_request(world, github, capsys):
    world.event("issues", grade_issue(BLOCK.replace("  command: go test ./...", "  command: go test ./grade")))
    code, out, openai = act(capsys, world, [go(FIXED)])
    assert code == 0, "\n".join(out)
    assert [line[:28] for line in out if line.startswith("::group::attempt")] == ["::group::attempt 1/2  PASS  "]
    assert world.branches() == ["autofix/issue-1", "master"]
    assert changed(world, "autofix/issue-1") == ["grade/grade.go"]
    assert world.file_at("autofix/issue-1", "grade/grade.go") == FIXED
    [pull] = github.pulls(REPO)
    assert pull.body.startswith(
        "<!-- autofix:issue-1 -->\n\n✅ autofix wrote `grade/grade.go` for #1: the 1 test of `go test ./grade` passed "
        "on attempt 1 of 2.\n\n**The change:** `grade/grade.go`.\n\nFixes #1\n\n"
    )


ISSUE = '`Grade(90)` gives "B", but 90 is an A.'
# Calls a name the package lacks: it doesn't build, the test's own mistake in the compiler's words.
MISSING = """\
package grade_test

import (
	"testing"

	"example.com/shop/grade"
)

func TestNinety(t *testing.T) {
	if got := grade.Letter(90); got != "A" {
		t.Fatalf("Letter(90) = %q, want A", got)
	}
}
"""
REPRODUCES = MISSING.replace("grade.Letter", "grade.Grade").replace("Letter(90)", "Grade(90)")


def test_a_free_form_go_issue_is_reproduced_by_a_test_in_the_localized_package_then_fixed(world, github, capsys):
    world.event("issues", grade_issue(ISSUE))
    script = {
        "localize": [Reply("```\ngrade/grade.go\n```")],
        "reproduce": [Reply(go(MISSING)), Reply(go(REPRODUCES))],
        "repair": [Reply(FIX)],
    }
    code, out, openai = act(capsys, world, script)
    assert code == 0, "\n".join(out)
    assert openai.stages() == ["localize", "reproduce", "reproduce", "repair"]
    assert "autofix: baseline: 2 tests, 0 failing" in out
    assert "autofix: reproduce: ./grade::TestNinety fail on the current code" in out
    prompts = openai.prompts()
    # A Go test file in the package localization picked, in the clause of that package's tests.
    assert (
        "Answer with one ```go block holding one complete Go test file, which autofix saves as "
        "grade/autofix_issue_1_test.go and runs with `go test`: `package grade_test`, as the package's other tests"
    ) in prompts[1]
    assert "One of the repository's tests:\n\ngrade/grade_test.go:\n```go\n    1  package grade_test\n" in prompts[1]
    # go built it: a name the package lacks is the test's own mistake, in the compiler's words.
    assert "The test file was refused: your test file failed to build: " in prompts[2]
    assert "grade/autofix_issue_1_test.go:10:18: undefined: grade.Letter" in prompts[2]
    assert (
        "This test, grade/autofix_issue_1_test.go (it can't be edited), reproduces the bug: it fails now and must "
        f"pass.\n\n```go\n{REPRODUCES}```\n\nHow it fails now:\n\n```text\n./grade::TestNinety:\n"
        '=== RUN   TestNinety\n    autofix_issue_1_test.go:11: Grade(90) = "B", want A\n'
    ) in prompts[3]
    assert world.branches() == ["autofix/issue-1", "master"]
    assert changed(world, "autofix/issue-1") == ["grade/autofix_issue_1_test.go", "grade/grade.go"]
    assert world.file_at("autofix/issue-1", "grade/autofix_issue_1_test.go") == REPRODUCES
    assert world.file_at("autofix/issue-1", "grade/grade.go") == FIXED
    [pull] = github.pulls(REPO)
    assert (pull.title, pull.draft) == ("Fix Grade gives 90 a B", False)
    assert pull.body.startswith(
        "<!-- autofix:issue-1 -->\n\n✅ autofix fixed issue #1: `grade/autofix_issue_1_test.go` failed before the "
        "change and passes after it, and every test that passed before still passes (3 tests passed), on attempt 1 "
        "of 3.\n\n**The change:** `grade/grade.go`.\n\nFixes #1\n\n<details><summary>The reproduction test, "
        "<code>grade/autofix_issue_1_test.go</code>: it failed before the change</summary>\n\n"
        f"```go\n{REPRODUCES}```\n\n</details>\n\n"
        # Go's mutants of the fixed line, judged by go running the reproduction alone: `90` → `89` survives.
        "**Proof:** reproduction test: failed before, passes after, and fails 3 of 4 mutants of the fix; suite: 3 "
        "passed, 0 new failures; pre-existing failures: 0.\n\n"
    )
    assert "- `grade/grade.go:5 '90' → '89'`" in pull.body
    assert "\n\n**Judged by:** `go test ./...`.\n\n" in pull.body
