"""Progress on GitHub while a task runs: 👀 on the issue or the `/autofix` comment that started it,
and one status comment, edited at each stage and attempt, that the result replaces (or a link to
the pull request). Through `autofix action` in a workflow run (GITHUB_RUN_ID set), with the real
PyGithub against the fake GitHub, which records every request."""

import re

import pytest
from action_world import REPO, act, labeled
from conftest import RIGHT, WRONG
from fake_openai import Reply
from test_ci_repair import BROKEN_ADD, CALC, CONFIG, FIX_ADD, TEST_CALC, TEST_TEXT, TEXT, open_pull
from test_comments import commented
from test_freeform import fixed_at_once, shop  # noqa: F401 (shop: the 58-module repository)

MARK = "<!-- autofix:issue-1 -->"
RUN = 4242


def act_in_run(capsys, world, replies=(), attempt=1):
    """`act` in attempt `attempt` of workflow run RUN, as the runner says it (a World has no run)."""
    world.monkeypatch.setenv("GITHUB_RUN_ID", str(RUN))
    world.monkeypatch.setenv("GITHUB_RUN_ATTEMPT", str(attempt))
    return act(capsys, world, replies)


@pytest.fixture
def repair_world(world):
    world.commit_to_origin({"calc.py": CALC, "text.py": TEXT, "tests/test_calc.py": TEST_CALC,
                            "tests/test_text.py": TEST_TEXT, ".github/autofix.yml": CONFIG})  # fmt: skip
    return world


def asked(github, body, number=1, pull=False):
    """The `issue_comment` event of `body`, a comment the fake holds (its reactions need it)."""
    event = commented(body, number, pull=pull)
    event["comment"]["id"] = github.add_comment(REPO, number, body, user="Codertocat").id
    return event


def link(github, attempt=1):
    url = f"{github.web_url}/{REPO}/actions/runs/{RUN}"
    return url + (f"/attempts/{attempt}" if attempt > 1 else "")


def status(github, doing, mark=MARK, attempt=1):
    return f"{mark}\n\n⏳ autofix is working on it: {doing}… ([the run]({link(github, attempt)}))"


def comment_writes(github, number=1):
    """(method, body) of every write of a comment on #number, in order: its creation and its edits."""
    on_number = rf"/repos/{REPO}/issues/{number}/comments$"
    return [
        (r.method, r.json["body"])
        for r in github.writes()
        if re.search(on_number, r.path) or (r.method == "PATCH" and "/issues/comments/" in r.path)
    ]


def test_a_labeled_issue_gets_eyes_and_one_status_comment_that_ends_linking_the_pull_request(world, github, capsys):
    world.event("issues", labeled())
    code, out, _ = act_in_run(capsys, world, [Reply(WRONG, 90, 40), Reply(RIGHT, 250, 60)])
    assert code == 0, "\n".join(out)
    assert [(x.content, x.user) for x in github.reactions(REPO, 1)] == [("eyes", "github-actions[bot]")]
    final = f"{MARK}\n\n✅ autofix opened #2: the pull request says how the tests judged it."
    assert comment_writes(github) == [
        ("POST", status(github, "starting")),
        ("PATCH", status(github, "attempt 1 of 3")),
        ("PATCH", status(github, "attempt 2 of 3")),
        ("PATCH", final),
    ]
    [comment] = github.comments(REPO)
    assert (comment.issue_number, comment.body) == (1, final)


def test_a_second_run_on_the_same_issue_edits_the_same_comment(world, github, capsys):
    world.event("issues", labeled())
    code, _, _ = act_in_run(capsys, world, [WRONG, WRONG, WRONG])
    assert code == 1
    [failed] = github.comments(REPO)
    assert failed.body.startswith(f"{MARK}\n\n❌ autofix could not write `unique.py` for #1: the 4 inline checks")
    assert [body for _, body in comment_writes(github)][:4] == [
        status(github, doing) for doing in ("starting", "attempt 1 of 3", "attempt 2 of 3", "attempt 3 of 3")
    ]

    github.clear_requests()
    world.checkout()
    code, _, _ = act_in_run(capsys, world, [RIGHT], attempt=2)  # "Re-run jobs": the same run, its second attempt
    assert code == 0
    [comment] = github.comments(REPO)
    assert comment.id == failed.id
    assert comment_writes(github) == [
        ("PATCH", status(github, "starting", attempt=2)),
        ("PATCH", status(github, "attempt 1 of 3", attempt=2)),
        ("PATCH", f"{MARK}\n\n✅ autofix opened #2: the pull request says how the tests judged it."),
    ]
    assert [r.status for r in github.writes() if r.path.endswith("/reactions")] == [200]  # there already
    assert len(github.reactions(REPO, 1)) == 1


@pytest.mark.parametrize(
    "method, path, answer, times, told",
    [
        ("POST", r"/issues/1/reactions$", 500, 4, "autofix: no reaction on #1: GitHub API: react to #1 failed (500)"),
        ("POST", r"/issues/1/reactions$", 403, 1, "autofix: no reaction on #1: GitHub API: react to #1 failed (403)"),
        ("PATCH", r"/issues/comments/\d+$", 403, 1, "autofix: status on #1 not updated, and no more will be tried"),
        ("POST", r"/issues/1/comments$", 500, 4, "autofix: status on #1 not updated, and no more will be tried"),
    ],
)
def test_a_reaction_or_status_github_refuses_is_one_line_and_the_task_goes_on(
    world, github, capsys, method, path, answer, times, told
):
    github.fail_next(method, path, answer, times=times)  # FAST tries a 5xx four times in all
    world.event("issues", labeled())
    code, out, _ = act_in_run(capsys, world, [WRONG, RIGHT])
    assert code == 0, "\n".join(out)
    assert len([line for line in out if line.startswith(told)]) == 1
    assert [p.head_ref for p in github.pulls(REPO)] == ["autofix/issue-1"]
    statuses = [body for _, body in comment_writes(github) if "working on it" in body]
    if "reaction" in told:  # the status goes on
        assert statuses == [status(github, d) for d in ("starting", "attempt 1 of 3", "attempt 2 of 3")]
    elif method == "PATCH":  # the first edit failed: none tried after it, and the result still comes
        assert statuses == [status(github, d) for d in ("starting", "attempt 1 of 3")]
        [comment] = github.comments(REPO)
        assert comment.body == f"{MARK}\n\n✅ autofix opened #2: the pull request says how the tests judged it."
    else:  # no status comment was ever made: none is tried, and none is left
        assert statuses == [status(github, "starting")] * 4 and github.comments(REPO) == []


def test_autofix_on_an_issue_reacts_to_the_comment_and_shows_each_free_form_stage(shop, github, capsys):
    event = asked(github, "/autofix keep the function signature as it is")
    shop.event("issue_comment", event)
    script = fixed_at_once()
    code, out, _ = act_in_run(capsys, shop, script)
    assert code == 0, "\n".join(out)
    assert [x.content for x in github.reactions(REPO, 1, event["comment"]["id"])] == ["eyes"]
    assert github.reactions(REPO, 1) == []  # on the comment that asked, not on the issue
    [pull] = github.pulls(REPO)
    assert comment_writes(github) == [
        ("POST", status(github, "starting")),
        ("PATCH", status(github, "measuring the baseline")),
        ("PATCH", status(github, "localizing")),
        ("PATCH", status(github, "reproducing")),
        ("PATCH", status(github, "attempt 1 of 2")),
        ("PATCH", f"{MARK}\n\n✅ autofix opened #{pull.number}: the pull request says how the tests judged it."),
    ]


def test_autofix_on_a_pull_request_shows_the_red_ci_repair_in_its_one_comment(repair_world, github, capsys):
    pull, _ = open_pull(repair_world, github, {"calc.py": BROKEN_ADD})
    repair_world.event("issue_comment", asked(github, "/autofix", pull.number, pull=True))
    code, out, _ = act_in_run(capsys, repair_world, [FIX_ADD])
    assert code == 0, "\n".join(out)
    mark = f"<!-- autofix:pr-{pull.number} -->"
    writes = comment_writes(github, pull.number)
    assert writes[:3] == [
        ("POST", status(github, "starting", mark)),
        ("PATCH", status(github, "measuring the baseline", mark)),
        ("PATCH", status(github, "attempt 1 of 3", mark)),
    ]
    [(method, final)] = writes[3:]
    [fix] = [p for p in github.pulls(REPO) if p.number != pull.number]
    assert method == "PATCH" and final.startswith(f"{mark}\n\n✅ autofix fixed the failing tests of #{pull.number}: ")
    assert f"**Next:** review #{fix.number}, which goes into this branch" in final
    assert [c.body for c in github.comments(REPO, pull.number)] == ["/autofix", final]
    [reaction] = [r for r in github.writes() if r.path.endswith("/reactions")]
    assert reaction.path.startswith(f"/repos/{REPO}/issues/comments/") and reaction.status == 201


def test_publish_false_shows_no_progress(repair_world, github, capsys):
    pull, _ = open_pull(repair_world, github, {"calc.py": BROKEN_ADD})
    repair_world.input("publish", "false")
    repair_world.event("issue_comment", asked(github, "/autofix", pull.number, pull=True))
    github.clear_requests()
    code, out, _ = act_in_run(capsys, repair_world, [FIX_ADD])
    assert code == 0, "\n".join(out)
    assert github.writes() == []


def test_an_error_after_the_status_showed_is_told_in_it(world, github, capsys):
    """A requested change on a pull request posts no comment of its own for an error: the status,
    already shown, says autofix stopped."""
    pull = github.add_pull(REPO, head="feature", base="master", title="Speed up add", user="Codertocat")
    world.git("push", "--quiet", "origin", f"master:refs/pull/{pull.number}/head", cwd=world.seed)
    github.pull(REPO, pull.number).head_sha = world.git("rev-parse", "master", cwd=world.origin)
    world.event("issue_comment", asked(github, "/autofix add whisper()", pull.number, pull=True))
    code, out, _ = act_in_run(capsys, world)
    assert code == 2, "\n".join(out)
    mark = f"<!-- autofix:pr-change-{pull.number} -->"
    [_, comment] = github.comments(REPO, pull.number)
    stopped = f"{mark}\n\nautofix stopped with an error:\n\n````text\n.github/autofix.yml: tests.command: "
    assert comment.body.startswith(stopped)
    assert [body for _, body in comment_writes(github, pull.number)] == [status(github, "starting", mark), comment.body]
