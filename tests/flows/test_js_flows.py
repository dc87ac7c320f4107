"""The GitHub flows on a JavaScript repository, end to end through `autofix action` as their Python
tests drive them (test_action.py, test_comments.py, test_action_specs.py): a labeled issue whose
yaml block names a JS target judged by `npm test`, `/autofix` on an issue and on a pull request,
the nightly regeneration of JS spec files, and a free-form issue, reproduced by a test of the
repository's own runner in the folder of its tests. Real PyGithub against the fake GitHub, the real openai
SDK against the scripted server, real git, the real sandbox, real Jest and Vitest
(out/js/runners, lent to the workspace as the workflow's `npm ci` would leave it: untracked and
git-ignored)."""

import json

import pytest
from action_world import REPO, World, act, labeled
from fake_openai import Reply
from test_ci_repair import open_pull
from test_comments import commented

FIXED = """\
function grade(score) {
  if (score >= 90) return "A";
  if (score >= 80) return "B";
  return "C";
}
module.exports = { grade };
"""
BROKEN = FIXED.replace("score >= 90", "score > 90")
WRONG = FIXED.replace("score >= 80", "score > 80")
TESTS = """\
const { grade } = require("../src/grade");

describe("grade", () => {
  test("ninety is an A", () => { expect(grade(90)).toBe("A"); });
  test("eighty is a B", () => { expect(grade(80)).toBe("B"); });
  test("ten is a C", () => { expect(grade(10)).toBe("C"); });
});
"""
TASK = "grade(score) must give an A from 90 up, a B from 80 up, else a C."
BLOCK = f"{TASK}\n\n```yaml\ntarget: src/grade.js\ntests:\n  command: npm test\nmax_attempts: 2\n```\n"
JEST = json.dumps({"name": "p", "scripts": {"test": "jest"}})
FIX = (
    "90 itself is an A.\n\nsrc/grade.js\n```javascript\n<<<<<<< SEARCH\n"
    '  if (score > 90) return "A";\n=======\n  if (score >= 90) return "A";\n>>>>>>> REPLACE\n```\n'
)


def javascript(code: str) -> str:
    return f"Here is the code.\n\n```javascript\n{code}```\n"


def repository(world: World, node_modules, files: dict[str, str]) -> None:
    """A maintainer's commit of `files`, then the job's checkout with its `npm ci`: node_modules
    in the workspace, git-ignored (what every JS workflow has before autofix runs)."""
    world.commit_to_origin({".gitignore": "node_modules\n", **files})
    (world.workspace / "node_modules").symlink_to(node_modules)


@pytest.fixture
def world(tmp_path, monkeypatch, github, node_modules):
    world = World(tmp_path, monkeypatch, github)
    world.input("strength", "off")  # measured for JS in test_js_ci_repair.py: here a run of Jest per mutant
    files = {"src/grade.js": BROKEN, "test/grade.test.js": TESTS, "package.json": JEST}
    repository(world, node_modules, {**files, ".github/autofix.yml": "tests:\n  command: npm test\ntimeout: 60\n"})
    return world


def grade_issue(body: str = BLOCK) -> dict:
    event = labeled(body=body)
    event["issue"]["title"] = "grade gives 90 a B"
    return event


def changed(world: World, branch: str, base: str = "master") -> list[str]:
    return world.git("diff", "--name-only", base, branch, cwd=world.origin).splitlines()


def test_a_labeled_issue_naming_a_javascript_target_opens_a_pull_request(world, github, capsys):
    world.event("issues", grade_issue())
    code, out, openai = act(capsys, world, [javascript(FIXED)])
    assert code == 0, "\n".join(out)
    assert "autofix: issue #1, labeled 'autofix' by @Codertocat (admin)" in out
    assert [line[:28] for line in out if line.startswith("::group::attempt")] == ["::group::attempt 1/2  PASS  "]
    assert out[-1] == f"autofix: pull request #2 created: {github.web_url}/{REPO}/pull/2"
    # The model saw the Jest suite's failure on the repository's code, in Jest's words.
    assert "test/grade.test.js::grade > ninety is an A" in openai.prompts()[0]
    assert world.branches() == ["autofix/issue-1", "master"]
    assert world.file_at("autofix/issue-1", "src/grade.js") == FIXED
    assert changed(world, "autofix/issue-1") == ["src/grade.js"]  # no node_modules, nothing of the judge's
    assert world.show("autofix/issue-1", "%B").splitlines() == ["autofix: write src/grade.js for #1", "", "Fixes #1"]
    [pull] = github.pulls(REPO)
    assert (pull.number, pull.head_ref, pull.base_ref, pull.draft) == (2, "autofix/issue-1", "master", False)
    assert pull.title == "Fix grade gives 90 a B"
    assert pull.body.startswith(
        "<!-- autofix:issue-1 -->\n\n✅ autofix wrote `src/grade.js` for #1: the 3 tests of `npm test` passed "
        "on attempt 1 of 2.\n\n**The change:** `src/grade.js`.\n\nFixes #1\n\n"
        "| # | outcome | failing tests | seconds | tokens |\n"
        "| ---: | --- | --- | ---: | ---: |\n| 1 | ✅ pass | — | "
    )
    judged = "\n\n**Judged by:** the 3 tests of `npm test`.\n\n### For the reviewer\n\nNothing of these kinds: "
    assert judged in pull.body
    assert github.comments(REPO) == []


def test_a_labeled_javascript_issue_whose_code_fails_gets_a_comment_and_no_pull_request(world, github, capsys):
    world.event("issues", grade_issue())
    other = WRONG.replace('return "C"', 'return "C" /* still */')  # the same code again would run no test
    code, out, openai = act(capsys, world, [javascript(WRONG), javascript(other)])
    assert code == 1, "\n".join(out)
    assert out[-1] == "autofix: every attempt failed; comment on #1 created; no branch pushed"
    assert world.branches() == ["master"] and github.pulls(REPO) == []
    assert (
        world.file_at("master", "src/grade.js") == BROKEN and (world.workspace / "src/grade.js").read_text() == BROKEN
    )
    [comment] = github.comments(REPO, 1)
    assert comment.body.startswith(
        "<!-- autofix:issue-1 -->\n\n❌ autofix could not write `src/grade.js` for #1: `npm test` failed on all 2 "
        "attempts, 1 still failing at the end.\n\n<details><summary>The code attempt 2 wrote for "
        f"<code>src/grade.js</code></summary>\n\n```javascript\n{other}```\n\n</details>\n\n"
    )
    assert comment.body.count("| ❌ fail | `test/grade.test.js::grade > eighty is a B` |") == 2
    assert "<details><summary>Attempts 1–2: the same failures</summary>" in comment.body
    assert 'Expected: "B"\nReceived: "C"' in comment.body  # Jest's own words
    assert "\n\n**Judged by:** `npm test`.\n\n_No branch was pushed." in comment.body


def test_autofix_on_a_javascript_issue_runs_its_flow_with_the_comment_as_instructions(world, github, capsys):
    event = commented("/autofix keep the export as it is")
    event["issue"].update(title="grade gives 90 a B", body=BLOCK)
    world.event("issue_comment", event)
    code, out, openai = act(capsys, world, [javascript(FIXED)])
    assert code == 0, "\n".join(out)
    assert "autofix: issue #1, /autofix by @Codertocat (admin)" in out
    asked = "Instructions from @Codertocat, who asked autofix:\n\nkeep the export as it is"
    assert [asked in prompt for prompt in openai.prompts()] == [True]
    [pull] = github.pulls(REPO)
    assert pull.head_ref == "autofix/issue-1" and "\n\nFixes #1\n\n" in pull.body
    assert world.file_at("autofix/issue-1", "src/grade.js") == FIXED


def test_autofix_alone_on_a_javascript_pull_request_repairs_its_red_ci(world, github, node_modules, capsys):
    repository(world, node_modules, {"src/grade.js": FIXED})
    pull, _ = open_pull(world, github, {"src/grade.js": BROKEN}, title="Tidy grade")
    world.event("issue_comment", commented("/autofix", number=pull.number, pull=True))
    code, out, openai = act(capsys, world, [FIX])
    assert code == 0, "\n".join(out)
    assert f"autofix: pull request #{pull.number}, /autofix by @Codertocat (admin)" in out
    assert "autofix: baseline: 3 tests, 1 failing in both runs" in out
    assert openai.stages() == ["repair"]
    [fix] = [p for p in github.pulls(REPO) if p.number != pull.number]
    assert (fix.head_ref, fix.base_ref) == (f"autofix/pr-{pull.number}", "feature")
    assert changed(world, fix.head_ref, "feature") == ["src/grade.js"]
    assert world.file_at(fix.head_ref, "src/grade.js") == FIXED
    assert (
        "before the change, 1 failing (`test/grade.test.js::grade > ninety is an A`); after it, 0 of them still "
        "failing, 0 new failures"
    ) in fix.body


# The nightly run: a Vitest repository, one spec per module, each judged by its own test file.
ROUND = "function round(x) {\n  return Math.round(x);\n}\nmodule.exports = { round };\n"
ROUND_TESTS = 'import { test, expect } from "vitest";\nimport { round } from "../src/round";\n\n' + (
    'test("halves go up", () => { expect(round(2.5)).toBe(3); });\n'
)
VITEST_TESTS = 'import { describe, test, expect } from "vitest";\n' + TESTS.replace(
    'const { grade } = require("../src/grade");', 'import { grade } from "../src/grade";'
)


def spec(target: str, tests: str) -> str:
    return f"task: {TASK}\ntarget: {target}\nmax_attempts: 1\ntests:\n  command: npx vitest run {tests}\n"


def test_nightly_regenerates_the_javascript_spec_whose_suite_fails(tmp_path, monkeypatch, github, node_modules, capsys):
    world = World(tmp_path, monkeypatch, github)
    world.input("strength", "off")
    repository(
        world,
        node_modules,
        {
            "package.json": json.dumps({"name": "p", "scripts": {"test": "vitest run"}}),
            ".autofix/a_passing.yml": spec("src/round.js", "test/round.test.js"),
            "src/round.js": ROUND,
            "test/round.test.js": ROUND_TESTS,
            ".autofix/b_broken.yml": spec("src/grade.js", "test/grade.test.js"),
            "src/grade.js": BROKEN,
            "test/grade.test.js": VITEST_TESTS,
            ".github/autofix.yml": "timeout: 60\n",
        },
    )
    world.event("schedule", {"schedule": "0 3 * * *"})
    code, out, openai = act(capsys, world, [javascript(FIXED)])
    assert code == 0, "\n".join(out)
    assert len(openai.requests) == 1
    assert "autofix: .autofix/a_passing.yml: src/round.js already passes its tests; nothing to do" in out
    assert world.branches() == ["autofix/spec-b_broken", "master"]
    assert changed(world, "autofix/spec-b_broken") == ["src/grade.js"]
    assert world.file_at("autofix/spec-b_broken", "src/grade.js") == FIXED
    [pull] = github.pulls(REPO)
    assert (pull.head_ref, pull.base_ref, pull.title) == (
        "autofix/spec-b_broken",
        "master",
        "Regenerate src/grade.js: its tests no longer passed",
    )
    assert pull.body.startswith(
        "<!-- autofix:spec-b_broken -->\n\n✅ autofix regenerated `src/grade.js` from `.autofix/b_broken.yml`: "
        "the 3 tests of `npx vitest run test/grade.test.js` passed on attempt 1 of 1.\n\n**The change:** "
        "`src/grade.js`.\n\n"
    )
    assert "Fixes #" not in pull.body and github.comments(REPO) == []
    assert world.git("status", "--porcelain") == ""  # the workspace is left as checked out
    summary = world.summary.read_text()
    assert (
        "### autofix: `src/round.js`\n\n✅ `src/round.js` already passes the 1 test of "
        "`npx vitest run test/round.test.js`: nothing to do.\n\n"
    ) in summary


# A free-form issue: prose, no yaml block. The suite passes: no test looks at 90. Its tests are
# Jest's `test.each`, which no twin copies (canaries.py), so the proof's runs of the reproduction
# alone plant none. (Twins drawn from another test file are refused there today: that file's
# tests don't run in those runs, and each run is taken for a forged report.)
EACH = """\
const { grade } = require("../src/grade");

test.each([[95, "A"], [80, "B"], [10, "C"]])("grade(%i) is %s", (score, letter) => {
  expect(grade(score)).toBe(letter);
});
"""
ISSUE = '`grade(90)` gives "B", but 90 is an A.'
MISSING = 'const { grade } = require("../src/grades");\n\ntest("ninety", () => { expect(grade(90)).toBe("A"); });\n'
REPRODUCES = MISSING.replace("grades", "grade")


def test_a_free_form_issue_is_reproduced_by_a_jest_test_beside_the_suite_s_then_fixed(
    world, github, node_modules, capsys
):
    repository(world, node_modules, {"test/grade.test.js": EACH})
    world.event("issues", grade_issue(ISSUE))
    script = {
        "localize": [Reply("```\nsrc/grade.js\n```")],
        "reproduce": [Reply(javascript(MISSING)), Reply(javascript(REPRODUCES))],
        "repair": [Reply(FIX)],
    }
    code, out, openai = act(capsys, world, script)
    assert code == 0, "\n".join(out)
    assert openai.stages() == ["localize", "reproduce", "reproduce", "repair"]
    assert "autofix: baseline: 3 tests, 0 failing" in out
    assert "autofix: reproduce: test/autofix-issue-1.test.js::ninety fail on the current code" in out
    prompts = openai.prompts()
    # A Jest file, where autofix puts it, written the way the repository's own tests are.
    assert (
        "one ```javascript block holding one complete Jest test file, which autofix saves as "
        "test/autofix-issue-1.test.js" in prompts[1]
    )
    assert "One of the repository's tests:\n\ntest/grade.test.js:\n```javascript\n    1  const { grade }" in prompts[1]
    # Jest ran it: a file that can't load is the test's own mistake, in Jest's words.
    assert (
        "The test file was refused: your test file failed to load: Error: Cannot find module '../src/grades' from "
        "'test/autofix-issue-1.test.js'"
    ) in prompts[2]
    assert (
        "This test, test/autofix-issue-1.test.js (it can't be edited), reproduces the bug: it fails now and must "
        f"pass.\n\n```javascript\n{REPRODUCES}```\n\nHow it fails now:\n\n```text\n"
        "test/autofix-issue-1.test.js::ninety:\nError: expect(received).toBe(expected)"
    ) in prompts[3]
    assert world.branches() == ["autofix/issue-1", "master"]
    assert changed(world, "autofix/issue-1") == ["src/grade.js", "test/autofix-issue-1.test.js"]
    assert world.file_at("autofix/issue-1", "test/autofix-issue-1.test.js") == REPRODUCES
    assert world.file_at("autofix/issue-1", "src/grade.js") == FIXED
    [pull] = github.pulls(REPO)
    assert (pull.title, pull.draft) == ("Fix grade gives 90 a B", False)
    assert pull.body.startswith(
        "<!-- autofix:issue-1 -->\n\n✅ autofix fixed issue #1: `test/autofix-issue-1.test.js` failed before the "
        "change and passes after it, and every test that passed before still passes (4 tests passed), on attempt 1 "
        "of 3.\n\n**The change:** `src/grade.js`.\n\nFixes #1\n\n<details><summary>The reproduction test, "
        "<code>test/autofix-issue-1.test.js</code>: it failed before the change</summary>\n\n"
        f"```javascript\n{REPRODUCES}```\n\n</details>\n\n"
        # The fix's mutants, judged by Jest running the reproduction alone: `90` → `89` survives.
        "**Proof:** reproduction test: failed before, passes after, and fails 4 of 5 mutants of the fix; suite: 4 "
        "passed, 0 new failures; pre-existing failures: 0.\n\n"
    )
    assert "\n\n**Judged by:** `npm test`.\n\n" in pull.body


PASSES = (
    'const { passes } = require("../src/grade");\n\ntest("fifty passes", () => { expect(passes(50)).toBe(true); });\n'
)
ADD = (
    "src/grade.js\n```javascript\n<<<<<<< SEARCH\nmodule.exports = { grade };\n=======\n"
    "function passes(score) {\n  return score >= 50;\n}\nmodule.exports = { grade, passes };\n>>>>>>> REPLACE\n```\n"
)


def test_autofix_with_a_request_on_a_javascript_pull_request_proposes_that_change_into_its_branch(
    world, github, node_modules, capsys
):
    repository(world, node_modules, {"test/grade.test.js": EACH})
    pull, _ = open_pull(world, github, {"src/grade.js": FIXED}, title="90 is an A")
    world.event("issue_comment", commented("/autofix add passes(score): true from 50 up", pull.number, pull=True))
    script = {
        "localize": [Reply("```\nsrc/grade.js\n```")],
        "reproduce": [Reply(javascript(PASSES))],
        "repair": [Reply(ADD)],
    }
    code, out, openai = act(capsys, world, script)
    assert code == 0, "\n".join(out)
    # It calls a name the code lacks, which the request names: that is the change to make.
    assert f"autofix: reproduce: test/autofix-pr-{pull.number}.test.js::fifty passes fail on the current code" in out
    assert "TypeError: passes is not a function" in openai.prompts()[-1]
    [proposed] = [p for p in github.pulls(REPO) if p.number != pull.number]
    assert (proposed.head_ref, proposed.base_ref) == (f"autofix/pr-{pull.number}-change", "feature")
    assert changed(world, proposed.head_ref, "feature") == ["src/grade.js", f"test/autofix-pr-{pull.number}.test.js"]
    assert world.file_at(proposed.head_ref, f"test/autofix-pr-{pull.number}.test.js") == PASSES
    proof = "reproduction test: failed before, passes after, and fails 3 of 4 mutants of the fix; suite: 4 passed"
    assert f"**Proof:** {proof}, 0 new failures; pre-existing failures: 0." in proposed.body
    [comment] = github.comments(REPO, pull.number)
    assert comment.body.startswith(
        f"<!-- autofix:pr-change-{pull.number} -->\n\n✅ autofix made the change asked for in pull request "
        f"#{pull.number}: `test/autofix-pr-{pull.number}.test.js` failed before the change and passes after it"
    )
    assert f"autofix proposes #{proposed.number} into this branch: review and merge it." in comment.body
