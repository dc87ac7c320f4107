"""A review on autofix's own pull request in a JavaScript repository (node:test, no dependencies)
and in a Go module: the thread asking for new behaviour gets its reproduction test in the suite's
own framework and folder, as a free-form issue does (a `.test.js` file beside the repository's
tests, run by node's runner; a `_test.go` file in the package of the file the thread is on, in
its tests' package clause), shown a test of the repository's for its ways, then the gate and one
commit on autofix's branch."""

import json
import os

from action_world import REPO, World, act
from fake_openai import Reply
from test_go_flows import APPLE, APPLE_TESTS, FIXED
from test_go_flows import TESTS as GO_TESTS
from test_go_spec import GO
from test_review_loop import BRANCH, review_event

SHOUT = 'function shout(words) {\n  return words.toUpperCase() + "!";\n}\n\nmodule.exports = { shout };\n'
TESTS = (
    'const test = require("node:test");\nconst assert = require("node:assert");\n'
    'const { shout } = require("../src/shout");\n\n'
    'test("shouts", () => {\n  assert.strictEqual(shout("hi"), "HI!");\n});\n'
)
PACKAGE = json.dumps({"name": "shout", "version": "1.0.0", "scripts": {"test": "node --test"}})
ASKED = "shout(null) should return an empty string instead of throwing."
REPRODUCES = (
    '```javascript\nconst test = require("node:test");\nconst assert = require("node:assert");\n'
    'const { shout } = require("../src/shout");\n\ntest("null is empty", () => {\n'
    '  assert.strictEqual(shout(null), "");\n});\n```'
)
ANSWER = (
    "src/shout.js\n```javascript\n<<<<<<< SEARCH\nfunction shout(words) {\n=======\n"
    'function shout(words) {\n  if (words === null) return "";\n>>>>>>> REPLACE\n```\n\nthread 1: done\n'
)


def test_a_javascript_review_is_reproduced_in_the_suite_s_framework_then_committed(
    tmp_path, monkeypatch, github, capsys
):
    world = World(tmp_path, monkeypatch, github)
    config = "tests:\n  command: npm test\nmax_attempts: 2\n"
    before = {"src/shout.js": SHOUT.replace(' + "!"', ""), "test/shout.test.js": TESTS.replace('"HI!"', '"HI"')}
    world.commit_to_origin({"package.json": PACKAGE, ".github/autofix.yml": config, **before})
    pull = autofix_pull(world, github, {"src/shout.js": SHOUT, "test/shout.test.js": TESTS})
    review = reviewed(world, github, pull, {"path": "src/shout.js", "line": 2, "body": ASKED})

    code, out, openai = act(capsys, world, {"reproduce": [Reply(REPRODUCES)], "review": [Reply(ANSWER)]})
    assert code == 0, "\n".join(out)
    assert openai.stages() == ["reproduce", "review"]
    asked = openai.prompts()[0]
    assert (
        "node:test (node --test) test file" in asked and "One of the repository's tests:\n\ntest/shout.test.js" in asked
    )
    path = f"test/autofix-review-{review.id}.test.js"
    assert f"autofix: reproduce: {path}::null is empty fail on the branch's head" in out
    assert world.file_at(BRANCH, path) == REPRODUCES.split("\n", 1)[1].rsplit("```", 1)[0]
    assert 'if (words === null) return "";' in world.file_at(BRANCH, "src/shout.js")
    assert world.show(f"{BRANCH}^") == pull.head_sha  # one commit on autofix's branch
    [thread] = github.review_threads(REPO, pull.number)
    assert thread.resolved


def autofix_pull(world, github, files: dict[str, str]):
    """autofix's pull request: `files` committed on its branch, its marker in the body."""
    seed = world.seed
    world.git("checkout", "--quiet", "-B", BRANCH, "origin/master", cwd=seed)
    for path, text in files.items():
        (seed / path).write_text(text)
    world.git("commit", "--quiet", "-am", "autofix: the fix", cwd=seed)
    sha = world.git("rev-parse", "HEAD", cwd=seed)
    world.git("push", "--quiet", "origin", BRANCH, cwd=seed)
    github.add_branch(REPO, BRANCH, sha=sha)
    body = "<!-- autofix:issue-1 -->\n\n✅ autofix fixed issue #1"
    return github.add_pull(REPO, head=BRANCH, base="master", title="Fix it", body=body, user="github-actions[bot]")


def reviewed(world, github, pull, comment: dict):
    review = github.add_review(REPO, pull.number, user="Codertocat", state="CHANGES_REQUESTED", comments=[comment])
    world.event("pull_request_review", review_event(github, pull, review))
    return review


NEGATIVE = 'A negative score is a mistake upstream: Grade should return "?" for it, not a C.'
GO_REPRODUCES = (
    '```go\npackage grade_test\n\nimport (\n\t"testing"\n\n\t"example.com/shop/grade"\n)\n\n'
    'func TestNegative(t *testing.T) {\n\tif got := grade.Grade(-1); got != "?" {\n'
    '\t\tt.Fatalf("Grade(-1) = %q, want ?", got)\n\t}\n}\n```'
)
GO_ANSWER = (
    "grade/grade.go\n```go\n<<<<<<< SEARCH\nfunc Grade(score int) string {\n=======\n"
    'func Grade(score int) string {\n\tif score < 0 {\n\t\treturn "?"\n\t}\n>>>>>>> REPLACE\n```\n\nthread 1: done\n'
)


def test_a_go_review_is_reproduced_in_the_package_the_thread_is_on_then_committed(
    tmp_path, monkeypatch, github, capsys
):
    monkeypatch.setenv("PATH", f"{os.path.dirname(GO)}:{os.environ.get('PATH', '')}")
    world = World(tmp_path, monkeypatch, github)
    world.input("strength", "off")
    files = {
        "go.mod": "module example.com/shop\n\ngo 1.22\n",
        "apple/apple.go": APPLE,
        "apple/apple_test.go": APPLE_TESTS,
        "grade/grade_test.go": GO_TESTS,
        ".github/autofix.yml": "tests:\n  command: go test ./...\ntimeout: 180\nmax_attempts: 2\n",
    }
    world.commit_to_origin({**files, "grade/grade.go": FIXED.replace("score >= 90", "score > 90")})
    pull = autofix_pull(world, github, {"grade/grade.go": FIXED})
    review = reviewed(world, github, pull, {"path": "grade/grade.go", "line": 4, "body": NEGATIVE})

    code, out, openai = act(capsys, world, {"reproduce": [Reply(GO_REPRODUCES)], "review": [Reply(GO_ANSWER)]})
    assert code == 0, "\n".join(out)
    assert openai.stages() == ["reproduce", "review"]
    assert "One of the repository's tests:\n\ngrade/grade_test.go" in openai.prompts()[0]
    path = f"grade/autofix_review_{review.id}_test.go"  # in grade/, not apple/, whose test file sorts first
    assert "autofix: reproduce: ./grade::TestNegative fail on the branch's head" in out
    assert world.file_at(BRANCH, path) == GO_REPRODUCES.split("\n", 1)[1].rsplit("```", 1)[0]
    assert '\tif score < 0 {\n\t\treturn "?"\n\t}' in world.file_at(BRANCH, "grade/grade.go")
    assert world.show(f"{BRANCH}^") == pull.head_sha
    [thread] = github.review_threads(REPO, pull.number)
    assert thread.resolved
