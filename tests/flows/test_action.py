"""`autofix action` on `issues` events, end to end: the real PyGithub against a fake GitHub, the
real openai SDK against a scripted server, real git with a bare `origin`, the real sandbox."""

import base64
import json

import pytest
from action_world import API_KEY, ISSUE_BODY, REPO, TOKEN, act, labeled, payload
from conftest import RIGHT, WRONG
from fake_openai import Failure, Reply

from bot.github import render

RIGHT_CODE = "def unique_items(items):\n    return list(dict.fromkeys(items))\n"
OTHER_RIGHT = (
    "```python\ndef unique_items(items):\n    seen = set()\n"
    "    return [x for x in items if not (x in seen or seen.add(x))]\n```"
)
# GITHUB_SERVER_URL is the fake's http://127.0.0.1:<port>: the noreply domain follows its host (git.bot_email).
BOT = "github-actions[bot] <github-actions[bot]@users.noreply.127.0.0.1>"


def test_labeled_by_a_writer_opens_a_pull_request_with_passing_code(world, github, capsys):
    world.event("issues", labeled())
    code, out, openai = act(capsys, world, [Reply(WRONG, 90, 40), Reply(RIGHT, 250, 60)])
    assert code == 0
    # Masks come first, before anything else is printed: the token, the key, the token as git sends it.
    assert out[:3] == [f"::add-mask::{TOKEN}", f"::add-mask::{API_KEY}", BASIC_MASK]
    assert "autofix: issue #1, labeled 'autofix' by @Codertocat (admin)" in out
    assert [line[:28] for line in out if line.startswith("::group::attempt")] == [
        "::group::attempt 1/3  FAIL  ", "::group::attempt 2/3  PASS  ",
    ]  # fmt: skip
    feedback = out.index("::group::" + next(line[9:] for line in out if line.startswith("::group::attempt 1/3")))
    assert out[feedback + 1].startswith("::stop-commands::") and len(out[feedback + 1]) == len("::stop-commands::") + 32
    assert out[feedback + 3] == "- order: expected [3, 1, 2], got [1, 2, 3]"
    assert "autofix: pushed autofix/issue-1" in out
    assert out[-1] == f"autofix: pull request #2 created: {github.web_url}/{REPO}/pull/2"

    assert world.branches() == ["autofix/issue-1", "master"]
    assert world.file_at("autofix/issue-1", "unique.py") == RIGHT_CODE
    assert world.show("autofix/issue-1", "%an <%ae>|%cn <%ce>") == f"{BOT}|{BOT}"
    assert world.show("autofix/issue-1", "%P") == world.show("master")
    assert world.show("autofix/issue-1", "%B").splitlines() == ["autofix: write unique.py for #1", "", "Fixes #1"]

    [pull] = github.pulls(REPO)
    assert (pull.number, pull.head_ref, pull.base_ref, pull.draft) == (2, "autofix/issue-1", "master", False)
    assert pull.title == "Fix unique_items loses the order"
    body = pull.body
    assert body.startswith(
        "<!-- autofix:issue-1 -->\n\n✅ autofix wrote `unique.py` for #1: the 4 inline checks passed on attempt 2 of 3."
        "\n\n**The change:** `unique.py`.\n\nFixes #1\n\n"
        "| # | outcome | failing tests | seconds | tokens |\n| ---: | --- | --- | ---: | ---: |\n"
        "| 1 | ❌ fail | 2 | "
    )
    assert (
        " | 130 |\n| 2 | ✅ pass | — | " in body
        and " | 310 |\n\n<details><summary>Attempt 1: what failed, as the model was told</summary>\n\n"
        "2 failing tests:\n\n- `order`\n- `strings`\n\n```text\n"
        in body
    )
    assert "- order: expected [3, 1, 2], got [1, 2, 3]\n- strings: expected ['b', 'a'], got ['a', 'b']" in body
    assert "<summary>Attempt 2" not in body
    assert "\n\n**Model:** `m` · **Sandbox:** bwrap (" in body or "**Sandbox:** process (" in body
    assert "**Total:** 440 tokens (340 in, 100 out), " in body
    assert github.comments(REPO) == []
    assert [(r.method, r.path) for r in github.writes()] == [("POST", f"/repos/{REPO}/pulls")]
    assert {r.authorization for r in github.requests} == {f"token {TOKEN}"}

    assert world.outputs() == {
        "passed": "true", "attempts": "2", "pr-number": "2", "pr-url": f"{github.web_url}/{REPO}/pull/2",
        "pr-operation": "created", "report-path": ".autofix/out/autofix-issue-1.json",
    }  # fmt: skip
    report = json.loads((world.out / "autofix-issue-1.json").read_text())
    assert report["passed"] is True and report["tokens"] == {"input": 340, "output": 100}
    assert world.summary.read_text().startswith(
        "### autofix: `unique.py`\n\n✅ autofix wrote `unique.py` for #1: the 4 inline checks passed on attempt 2 of 3."
        f"\n\n**Made:** [pull request #2]({github.web_url}/{REPO}/pull/2) · "
        f"asked in [#1]({github.web_url}/{REPO}/issues/1) · the report, "
        "`.autofix/out/autofix-issue-1.json`\n\n| # | outcome | failing tests | seconds | tokens |\n"
    )
    printed = "\n".join(out[3:])
    for secret in (TOKEN, API_KEY, BASIC_MASK.removeprefix("::add-mask::")):
        assert secret not in printed and secret not in world.written_text()
    assert [r.headers["authorization"] for r in openai.requests] == [f"Bearer {API_KEY}"] * 2


def test_the_same_event_again_updates_the_one_pull_request(world, github, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_API_URL", github.ghes_api_url)  # GitHub Enterprise Server's API path
    world.event("issues", labeled())
    assert act(capsys, world, [RIGHT])[0] == 0
    assert world.outputs()["pr-operation"] == "created"
    first = world.show("autofix/issue-1")

    world.checkout()  # each run is a fresh job
    code, out, _ = act(capsys, world, [RIGHT])
    assert code == 0
    assert out[-1] == "autofix: autofix/issue-1 already holds this code; pull request #2 left as it is"
    outputs = world.outputs()
    assert outputs | {"report-path": ""} == {
        "passed": "true", "attempts": "1", "pr-number": "2", "pr-url": f"{github.web_url}/{REPO}/pull/2",
        "pr-operation": "none", "report-path": "",
    }  # fmt: skip
    assert world.show("autofix/issue-1") == first

    world.commit_to_origin({"NOTES.md": "master moved on\n"})
    code, out, _ = act(capsys, world, [OTHER_RIGHT])
    assert code == 0 and out[-1] == f"autofix: pull request #2 updated: {github.web_url}/{REPO}/pull/2"
    assert world.outputs()["pr-operation"] == "updated"
    assert "seen = set()" in world.file_at("autofix/issue-1", "unique.py")
    assert world.show("autofix/issue-1", "%P") == world.show("master")  # rebuilt on the new master, forced
    assert len(github.pulls(REPO)) == 1
    assert [(r.method, r.path) for r in github.writes()] == [
        ("POST", f"/repos/{REPO}/pulls"), ("PATCH", f"/repos/{REPO}/pulls/2"),
    ]  # fmt: skip


def test_a_pull_request_opened_meanwhile_is_updated_not_duplicated(world, github, capsys):
    """The 422 "A pull request already exists" of a race between two runs."""
    github.add_pull(REPO, head="autofix/issue-1", base="master", title="opened by a parallel run")
    github.fail_next("GET", r"/pulls$", 200, [])  # our look comes before the other run's create lands
    world.event("issues", labeled())
    assert act(capsys, world, [RIGHT])[0] == 0
    assert world.outputs()["pr-operation"] == "updated"
    [pull] = github.pulls(REPO)
    assert pull.title == "Fix unique_items loses the order"
    assert [(r.method, r.status) for r in github.writes()] == [("POST", 422), ("PATCH", 200)]


@pytest.mark.parametrize("permission", ["read", "triage"])
def test_labeled_by_a_user_without_write_access_writes_nothing(world, github, capsys, permission):
    github.set_permission(REPO, "outsider", permission)
    world.event("issues", labeled(sender="outsider"))
    code, out, openai = act(capsys, world)
    assert code == 0
    assert (
        out[-1] == f"autofix: ignored: @outsider has read permission on {REPO}; autofix needs write, maintain or admin"
    )
    assert github.writes() == [] and openai.requests == []
    assert world.branches() == ["master"]
    assert world.outputs() == NOTHING


def test_the_permission_is_asked_of_the_api_not_read_from_the_payload(world, github, capsys):
    github.set_permission(REPO, "maintainer", "maintain")
    world.event(
        "issues", labeled(sender="maintainer", body=ISSUE_BODY.replace("\n", "\r\n"))
    )  # as the web editor sends it
    assert act(capsys, world, [RIGHT])[0] == 0
    # The labeler's, then the issue author's: the issue's yaml block sets the tests.
    assert [r.path for r in github.requests if "permission" in r.path] == [
        f"/repos/{REPO}/collaborators/maintainer/permission", f"/repos/{REPO}/collaborators/Codertocat/permission",
    ]  # fmt: skip
    assert len(github.pulls(REPO)) == 1


def test_another_label_is_a_no_op(world, github, capsys):
    world.event("issues", payload("issues.labeled"))  # the recorded payload: label "bug"
    code, out, openai = act(capsys, world)
    assert (code, out[-1]) == (0, "autofix: ignored: label 'bug' is not 'autofix'")
    assert github.requests == [] and openai.requests == []
    assert world.outputs() == NOTHING


def test_other_actions_bots_and_events_are_ignored(world, github, capsys):
    world.event("issues", payload("issues.opened"))
    assert (
        act(capsys, world)[1][-1]
        == "autofix: ignored: issues event 'opened': autofix starts when an issue is labeled 'autofix'"
    )
    world.event("issues", labeled(sender="dependabot[bot]", sender_type="Bot"))
    assert (
        act(capsys, world)[1][-1] == "autofix: ignored: labeled by the bot @dependabot[bot]; only people start autofix"
    )
    world.event("issues", labeled(sender="github-actions[bot]"))
    assert (
        act(capsys, world)[1][-1]
        == "autofix: ignored: labeled by the bot @github-actions[bot]; only people start autofix"
    )
    world.event("pull_request", payload("pull_request.opened"))
    code, out, _ = act(capsys, world)
    assert (code, out) == (
        0,
        [f"::add-mask::{TOKEN}", f"::add-mask::{API_KEY}", BASIC_MASK, "autofix: not handled: pull_request"],
    )
    assert github.writes() == []


# A personal token's own user labeling: a person like any other (test_personal_token.py).


def test_all_attempts_failing_leave_one_comment_edited_on_re_runs(world, github, capsys):
    world.event("issues", labeled())
    # three different wrong codes: the same code again would be a call without a test run
    wrongs = [WRONG.replace("(items))", f"(items))  # try {n}") for n in (1, 2, 3)]
    code, out, _ = act(capsys, world, wrongs)
    assert code == 1
    assert out[-1] == "autofix: every attempt failed; comment on #1 created; no branch pushed"
    assert world.branches() == ["master"] and github.pulls(REPO) == []
    assert not (world.workspace / "unique.py").exists()
    [comment] = github.comments(REPO, 1)
    assert comment.user == "github-actions[bot]"
    assert comment.body.startswith(
        "<!-- autofix:issue-1 -->\n\n❌ autofix could not write `unique.py` for #1: the 4 inline checks failed on "
        "all 3 attempts, 2 still failing at the end.\n\n<details><summary>The code attempt 3 wrote for <code>unique.py"
        "</code></summary>\n\n```python\n"
    )
    assert comment.body.count("| ❌ fail | 2 |") == 3 and comment.body.count("<details>") == 2  # the code, 1 feedback
    assert "<details><summary>Attempts 1–3: the same failures</summary>" in comment.body
    assert comment.body.endswith(render.RETRY)
    assert world.outputs() == NOTHING | {"attempts": "3", "report-path": ".autofix/out/autofix-issue-1.json"}

    world.checkout()
    world.event("issues", labeled(body=ISSUE_BODY.replace("target: unique.py", "target: unique.py\nmax_attempts: 1")))
    code, out, _ = act(capsys, world, [WRONG])
    assert code == 1 and out[-1] == "autofix: every attempt failed; comment on #1 updated; no branch pushed"
    [edited] = github.comments(REPO, 1)
    assert edited.id == comment.id and "failed on the one attempt, 2 still failing at the end." in edited.body
    assert world.branches() == ["master"]

    world.checkout()
    assert act(capsys, world, [RIGHT])[0] == 0
    [retired] = github.comments(REPO, 1)
    assert retired.id == comment.id
    assert retired.body == "<!-- autofix:issue-1 -->\n\nautofix succeeded on a later run: see #2."
    assert [(r.method, r.path) for r in github.writes()] == [
        ("POST", f"/repos/{REPO}/issues/1/comments"),
        ("PATCH", f"/repos/{REPO}/issues/comments/{comment.id}"),
        ("POST", f"/repos/{REPO}/pulls"),
        ("PATCH", f"/repos/{REPO}/issues/comments/{comment.id}"),
    ]


def test_the_model_service_down_is_said_in_the_comment(world, github, capsys):
    down = Failure(503, "maintenance", headers={"retry-after-ms": "1"})
    world.event("issues", labeled())
    code, out, openai = act(capsys, world, [WRONG, down, down, down])
    assert code == 3 and len(openai.requests) == 4
    [comment] = github.comments(REPO, 1)
    assert comment.body.startswith(
        "<!-- autofix:issue-1 -->\n\n❌ autofix stopped with an error:\n\n"
        "```text\nthe model API failed after retries (503): maintenance\n```\n\n<details><summary>The code attempt 1 "
    )
    assert "| 1 | ❌ fail |" in comment.body
    assert out[-1] == "::error::the model API failed after retries (503): maintenance"
    assert world.branches() == ["master"] and github.pulls(REPO) == []
    report = json.loads((world.out / "autofix-issue-1.json").read_text())
    assert report["stop_reason"] == "stopped: the model API failed after retries (503): maintenance"


def test_an_issue_without_a_target_gets_a_comment_saying_how_to_give_one(world, github, capsys):
    world.event("issues", labeled(body="Please make it faster."))
    code, out, openai = act(capsys, world)
    assert code == 2 and openai.requests == []
    message = (
        ".github/autofix.yml: tests.command: a free-form issue (no `target` in a yaml block) needs the command that "
        "runs the repository's tests; or add a ```yaml block to the issue with `target: path/of/the/file.py`"
    )
    assert out[-1] == f"::error::{message}"
    [comment] = github.comments(REPO, 1)
    assert f"````text\n{message}\n````" in comment.body


def test_a_github_api_failure_fails_the_job_with_github_s_words(world, github, capsys):
    github.fail_next(
        "POST", r"/pulls$", 403, {"message": "GitHub Actions is not permitted to create or approve pull requests."}
    )
    world.event("issues", labeled())
    code, out, _ = act(capsys, world, [RIGHT])
    assert code == 2
    message = (
        "GitHub API: create pull request failed (403): "
        "GitHub Actions is not permitted to create or approve pull requests."
    )
    assert out[-1] == f"::error::{message}"
    assert f"```text\n{message}\n```" in github.comments(REPO, 1)[0].body


def test_a_draft_input_opens_a_draft(world, github, capsys):
    world.input("draft", "true")
    world.event("issues", labeled())
    assert act(capsys, world, [RIGHT])[0] == 0
    assert github.pulls(REPO)[0].draft is True


BASIC_MASK = "::add-mask::" + base64.b64encode(f"x-access-token:{TOKEN}".encode()).decode()
NOTHING = {"passed": "false", "attempts": "0", "pr-number": "", "pr-url": "", "pr-operation": "none", "report-path": ""}


def test_the_pull_request_says_what_the_model_cost(world, github, capsys):
    world.input("model", "gpt-4.1")  # $2 in, $8 out per million tokens
    world.event("issues", labeled())
    code, _, _ = act(capsys, world, [Reply(WRONG, 1000, 250), Reply(RIGHT, 2000, 250)])
    assert code == 0
    body = github.pull(REPO, 2).body
    assert "**Total:** 3500 tokens (3000 in, 500 out), " in body
    assert ", $0.0100 (list prices of June 2026, or the spec's `price`)" in body
    assert json.loads((world.out / "autofix-issue-1.json").read_text())["cost_usd"] == 0.01


def test_the_strength_input_gates_a_weak_test_and_the_pull_request_shows_the_score(world, github, capsys):
    loop = (
        "```python\ndef unique_items(items):\n    seen = set()\n    result = []\n    for item in items:\n"
        "        if item not in seen:\n            seen.add(item)\n            result.append(item)\n"
        "    return result\n```"
    )
    world.input("strength", "gate")
    # The gate's word reaches the model in a repair: the default, resample, sends the task again.
    world.commit_to_origin({".github/autofix.yml": "strategy: repair+resample\n"})
    weak = "".join(line for line in ISSUE_BODY.splitlines(True) if "assert" not in line or '"empty"' in line)
    world.event("issues", labeled(body=weak))
    code, out, openai = act(capsys, world, [loop, RIGHT])
    assert code == 0
    assert "- unique.py:5 'not in' → 'in', the line becoming `if item in seen:`" in openai.prompts()[1]
    assert world.file_at("autofix/issue-1", "unique.py") == RIGHT_CODE
    body = github.pull(REPO, 2).body
    assert "| 1 | ❌ fail | 2 |" in body  # the two surviving mutants, named in the attempt's fold
    assert "- `(strength) unique.py:5 'if item not in seen: seen.add(item) …' → 'if item not in seen: pass'`\n" in body
    strength = (
        "**Test strength** (mutants of the code autofix wrote): "
        "tests killed 1 of 1 mutant (score 1.00, min_strength 0.8). Only 1 mutant: weak evidence either way.\n\n"
    )
    assert f"```\n\n</details>\n\n{strength}**Model:** " in body
    assert strength in world.summary.read_text()
    assert json.loads((world.out / "autofix-issue-1.json").read_text())["strength"]["min_strength"] == 0.8
