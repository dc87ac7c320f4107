"""`autofix action` against GitHub as it really is: a private repository, a GITHUB_TOKEN holding
only the example workflows' `permissions:`, and answers that fail (5xx, 429, dropped connections,
cut bodies). Every flow completes with the examples' permissions; a failure ends in one line and
one comment, never a traceback or a second comment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from action_world import ISSUE_BODY, REPO, World, act, labeled
from conftest import RIGHT, WRONG
from fake_github import workflow_permissions
from test_action_specs import BROKEN_CODE, spec_text
from test_ci_repair import BROKEN_ADD, CALC, CONFIG, FIX_ADD, TEST_CALC, TEST_TEXT, TEXT, open_pull, run_event
from test_comments import commented

WORKFLOWS = Path(__file__).resolve().parents[2] / "examples" / "workflows"
MARK = "<!-- autofix:issue-1 -->"


def private(world: World, workflow: str, job: str) -> None:
    """The repository made private, the token given the permissions `job` of the example has."""
    world.github.repo(REPO).private = True
    world.github.permissions = workflow_permissions(WORKFLOWS / workflow, job)


def refused(github) -> list:
    return [r for r in github.requests if r.status == 403 and r.path != "/user"]


@pytest.fixture
def repair_world(world):
    world.commit_to_origin({"calc.py": CALC, "text.py": TEXT, "tests/test_calc.py": TEST_CALC,
                            "tests/test_text.py": TEST_TEXT, ".github/autofix.yml": CONFIG})  # fmt: skip
    return world


# ------------------------------------------------------------------------------- the examples' permissions


def test_the_examples_grant_each_job_its_permissions_and_no_more():
    assert workflow_permissions(WORKFLOWS / "autofix-issues.yml", "autofix") == {
        "contents": "write",
        "pull-requests": "write",
        "issues": "write",
        "actions": "read",
    }
    assert workflow_permissions(WORKFLOWS / "autofix-nightly.yml", "plan") == {"contents": "read"}
    assert workflow_permissions(WORKFLOWS / "autofix-nightly.yml", "regenerate") == {
        "contents": "write",
        "pull-requests": "write",
    }
    assert workflow_permissions(WORKFLOWS / "autofix-red-ci.yml", "repair") == {
        "contents": "write",
        "pull-requests": "write",
        "actions": "read",
    }
    forks = WORKFLOWS / "autofix-red-ci-forks.yml"
    assert workflow_permissions(forks, "author") == {"pull-requests": "read"}
    assert workflow_permissions(forks, "repair") == {"contents": "read", "pull-requests": "read", "actions": "read"}
    assert workflow_permissions(forks, "post") == {"pull-requests": "write"}


def test_issue_to_pull_request_on_a_private_repository(world, github, capsys):
    private(world, "autofix-issues.yml", "autofix")
    world.event("issues", labeled())
    assert act(capsys, world, [RIGHT])[0] == 0
    assert [p.head_ref for p in github.pulls(REPO)] == ["autofix/issue-1"] and refused(github) == []


def test_issue_whose_attempts_fail_comments_on_a_private_repository(world, github, capsys):
    private(world, "autofix-issues.yml", "autofix")
    world.event("issues", labeled())
    assert act(capsys, world, [WRONG] * 3)[0] == 1
    assert len(github.comments(REPO, 1)) == 1 and refused(github) == []


def test_autofix_comment_on_a_pull_request_on_a_private_repository(repair_world, github, capsys):
    world = repair_world
    private(world, "autofix-issues.yml", "autofix")
    pull, _ = open_pull(world, github, {"calc.py": BROKEN_ADD})
    world.event("issue_comment", commented("/autofix", pull.number, pull=True))
    code, out, _ = act(capsys, world, [FIX_ADD])
    assert code == 0, "\n".join(out[-5:])
    assert [p.head_ref for p in github.pulls(REPO) if p.number != pull.number] == [f"autofix/pr-{pull.number}"]
    assert refused(github) == []


def test_nightly_specs_on_a_private_repository(world, github, capsys):
    world.commit_to_origin({".autofix/b_broken.yml": spec_text("lib/b.py"), "lib/b.py": BROKEN_CODE})
    private(world, "autofix-nightly.yml", "regenerate")
    world.event("schedule", {"schedule": "17 3 * * *"})
    assert act(capsys, world, [RIGHT])[0] == 0
    assert [p.head_ref for p in github.pulls(REPO)] == ["autofix/spec-b_broken"] and refused(github) == []


def test_red_ci_fix_pull_request_and_comment_on_a_private_repository(repair_world, github, capsys):
    """The comment that failed with 403 after the fix pull request was opened (GET /issues/<n>)."""
    pull, run = open_pull(repair_world, github, {"calc.py": BROKEN_ADD})
    private(repair_world, "autofix-red-ci.yml", "repair")
    repair_world.event("workflow_run", run_event(github, pull, run))
    code, out, openai = act(capsys, repair_world, [FIX_ADD])
    assert code == 0, out
    assert [p.head_ref for p in github.pulls(REPO)] == ["feature", "autofix/pr-2"]
    assert len(github.comments(REPO, pull.number)) == 1 and refused(github) == []
    assert "Job 'test'" in json.dumps(openai.requests[0].json)  # `actions: read`: the failed job's log is evidence


def test_fork_repair_with_a_read_only_token_on_a_private_repository(repair_world, github, capsys):
    pull, run = open_pull(repair_world, github, {"calc.py": BROKEN_ADD}, fork=True)
    private(repair_world, "autofix-red-ci-forks.yml", "repair")
    repair_world.input("publish", "false")
    repair_world.event("workflow_run", run_event(github, pull, run, fork=True))
    code, out, _ = act(capsys, repair_world, [FIX_ADD])
    assert code == 0, out
    assert (repair_world.out / "autofix-pr-2.md").read_text().startswith("<!-- autofix:pr-2 -->")
    assert github.writes() == [] and refused(github) == []


def test_without_the_permission_the_job_fails_in_one_line_with_github_s_words(world, github, capsys):
    world.github.repo(REPO).private = True
    world.github.permissions = {"contents": "write", "issues": "write"}  # no pull-requests
    world.event("issues", labeled())
    code, out, _ = act(capsys, world, [RIGHT])
    assert code == 2
    assert out[-1] == "::error::GitHub API: list pull requests failed (403): Resource not accessible by integration"
    [comment] = github.comments(REPO, 1)  # `issues: write` still lets autofix say so on the issue
    assert "Resource not accessible by integration" in comment.body


# ------------------------------------------------------------------------------- faults


def fails_cleanly(code: int, out: list[str], capsys, line: str) -> None:
    assert code == 2
    assert out[-1] == f"::error::{line}"
    assert "Traceback" not in "\n".join(out) + capsys.readouterr().err


def test_5xx_on_every_try_of_opening_the_pull_request_ends_in_one_line_and_one_comment(world, github, capsys):
    github.fail_next("POST", r"/pulls$", 502, times=10)
    world.event("issues", labeled())
    code, out, _ = act(capsys, world, [RIGHT])
    fails_cleanly(code, out, capsys, "GitHub API: create pull request failed (502) after 4 tries: Bad Gateway")
    assert [line for line in out if "trying again" in line] == [
        f"autofix: GitHub: create pull request: GitHub answered 502; trying again in {wait} s"
        for wait in ("0.01", "0.02", "0.04")
    ]
    assert github.pulls(REPO) == [] and len(github.comments(REPO, 1)) == 1
    assert [r.method for r in github.requests if r.path.endswith("/pulls")] == ["GET", "POST"] + [
        "GET",
        "POST",
    ] * 3  # a look before each retry


def test_dropped_connections_after_retries_end_in_one_line_and_one_comment(world, github, capsys):
    github.reset_next("GET", r"/pulls$", times=10)
    world.event("issues", labeled())
    code, out, _ = act(capsys, world, [RIGHT])
    assert out[-1].startswith("::error::GitHub API: list pull requests failed after 4 tries: ConnectionError: ")
    fails_cleanly(code, out, capsys, out[-1][len("::error::") :])
    assert len(github.comments(REPO, 1)) == 1


def test_rate_limits_and_lost_answers_on_the_failure_comment_leave_exactly_one_comment(world, github, capsys):
    secondary = {"message": "You have exceeded a secondary rate limit."}
    github.fail_next("GET", r"/issues/1/comments$", 403, secondary, headers={"Retry-After": "0"})
    github.fail_next("GET", r"/issues/1/comments$", 429, headers={"Retry-After": "0"})
    github.truncate_next("POST", r"/issues/1/comments$")  # made, but the answer broke off
    world.event("issues", labeled())
    code, out, _ = act(capsys, world, [WRONG] * 3)
    assert code == 1 and out[-1] == "autofix: every attempt failed; comment on #1 created; no branch pushed"
    [comment] = github.comments(REPO, 1)
    assert comment.body.startswith(MARK)
    assert [r.method for r in github.writes()] == ["POST", "PATCH"]  # looked again, found it: no second POST


def test_a_failure_comment_that_cannot_be_posted_still_leaves_the_error_line(world, github, capsys):
    github.fail_next("POST", r"/pulls$", 500, times=10)
    github.fail_next("*", r"/issues/1/comments$", 503, times=20)
    world.event("issues", labeled())
    code, out, _ = act(capsys, world, [RIGHT])
    assert code == 2 and github.comments(REPO) == []
    assert out[-2:] == [
        "::error::GitHub API: comment on #1 failed (503) after 4 tries: Service Unavailable",
        "::error::GitHub API: create pull request failed (500) after 4 tries: Internal Server Error",
    ]
    assert "Traceback" not in capsys.readouterr().err


def test_red_ci_with_a_reset_on_opening_the_fix_and_a_cut_log_still_fixes_and_comments_once(
    repair_world, github, capsys
):
    pull, run = open_pull(repair_world, github, {"calc.py": BROKEN_ADD})
    github.reset_next("POST", r"/pulls$")
    github.truncate_next("GET", r"^/_fake/logs/")
    repair_world.event("workflow_run", run_event(github, pull, run))
    code, out, _ = act(capsys, repair_world, [FIX_ADD])
    assert code == 0, out
    assert any(
        line.startswith(
            f"autofix: job logs of run {run.id} incomplete: the log of job 'test': the download broke off after "
        )
        for line in out
    )
    assert [p.head_ref for p in github.pulls(REPO)] == ["feature", "autofix/pr-2"]
    assert len(github.comments(REPO, pull.number)) == 1


def test_a_draft_refused_by_the_repository_is_opened_as_a_regular_pull_request(world, github, capsys):
    github.repo(REPO).drafts = False
    world.input("draft", "true")
    world.event("issues", labeled())
    code, out, _ = act(capsys, world, [RIGHT])
    assert code == 0
    assert "autofix: this repository has no draft pull requests (GitHub: 422); opening a regular one" in out
    assert github.pulls(REPO)[0].draft is False


# ------------------------------------------------------------------------------- budget


def test_the_max_tokens_input_caps_a_run(world, github, capsys):
    world.input("max-tokens", "50")
    world.event("issues", labeled(body=ISSUE_BODY))
    code, out, openai = act(capsys, world, [WRONG] * 3)
    assert code == 1 and len(openai.requests) == 1
    assert "(token budget spent (" in github.comments(REPO, 1)[0].body


def test_the_max_tokens_input_caps_a_red_ci_repair(repair_world, github, capsys):
    pull, run = open_pull(repair_world, github, {"calc.py": BROKEN_ADD})
    repair_world.input("max-tokens", "50")
    repair_world.event("workflow_run", run_event(github, pull, run))
    wrong = "calc.py\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a * b\n>>>>>>> REPLACE\n"
    code, _, openai = act(capsys, repair_world, [wrong] * 3)
    assert code == 1 and len(openai.requests) == 1
    assert "token budget spent (" in github.comments(REPO, pull.number)[0].body


def test_a_bad_max_tokens_input_is_one_line(world, capsys):
    world.input("max-tokens", "lots")
    world.event("issues", labeled())
    code, out, _ = act(capsys, world)
    assert (code, out[-1]) == (2, "::error::input max-tokens: must be a whole number of tokens, at least 1, got 'lots'")


# ------------------------------------------------------------------------------- the forks example's own steps

GH = '''#!/usr/bin/env python3
"""`gh api` as the example's steps use it, against the fake GitHub: --method, --paginate, -f, -F k=@file, --jq, --silent."""
import json, os, subprocess, sys, urllib.parse, urllib.request

args, method, fields, jq, paginate, silent = sys.argv[2:], None, {}, None, False, False
path = None
while args:
    arg = args.pop(0)
    if arg == "--method": method = args.pop(0)
    elif arg == "--paginate": paginate = True
    elif arg == "--silent": silent = True
    elif arg == "--jq": jq = args.pop(0)
    elif arg in ("-f", "-F"):
        key, value = args.pop(0).split("=", 1)
        fields[key] = open(value[1:]).read() if arg == "-F" and value.startswith("@") else value
    else: path = arg
method = method or ("POST" if fields else "GET")
url = os.environ["FAKE_GITHUB_API"] + "/" + path
data = None
if method == "GET" and fields: url += "?" + urllib.parse.urlencode(fields)
elif fields: data = json.dumps(fields).encode()
while url:
    request = urllib.request.Request(url, data=data, method=method, headers={"Authorization": "token " + os.environ["GH_TOKEN"]})
    with urllib.request.urlopen(request) as response:
        body, link = response.read().decode(), response.headers.get("Link") or ""
    if not silent:
        print(subprocess.run(["jq", "-r", jq], input=body, text=True, capture_output=True, check=True).stdout if jq else body, end="")
    url = next((part.split(";")[0].strip("<> ") for part in link.split(",") if 'rel="next"' in part), None) if paginate else None
'''  # noqa: E501 - the fake `gh` script is written out verbatim


def step_script(job: str, index: int) -> tuple[str, dict]:
    import yaml

    step = yaml.safe_load((WORKFLOWS / "autofix-red-ci-forks.yml").read_text())["jobs"][job]["steps"][index]
    return step["run"], step.get("env") or {}


def run_step(tmp_path, github, job: str, index: int, env: dict) -> str:
    import os
    import subprocess

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "gh").write_text(GH)
    (bin_dir / "gh").chmod(0o755)
    script, _ = step_script(job, index)
    output = tmp_path / "output"
    output.write_text("")
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=tmp_path, capture_output=True, text=True,
        env={"PATH": f"{bin_dir}:{os.environ['PATH']}", "GITHUB_REPOSITORY": REPO, "GITHUB_OUTPUT": str(output),
             "GH_TOKEN": "ghs_x", "FAKE_GITHUB_API": github.api_url, **env},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return output.read_text()


@pytest.mark.skipif(__import__("shutil").which("jq") is None, reason="the steps use jq, as GitHub's runners have it")
def test_the_forks_post_step_edits_only_the_comment_that_carries_autofix_s_marker(tmp_path, github):
    github.add_repo(REPO, default_branch="master")
    github.add_issue(REPO, "an issue")
    pull = github.add_pull(REPO, head="contributor:feature", base="master")
    github.add_comment(REPO, pull.number, "<!-- autofix:pr-2 --> quoted by a person", user="alice")
    github.add_comment(REPO, pull.number, "another workflow's comment", user="github-actions[bot]")
    (tmp_path / "autofix-pr-2.md").write_text("<!-- autofix:pr-2 -->\n\nfirst run\n")
    run_step(tmp_path, github, "post", 1, {})
    (tmp_path / "autofix-pr-2.md").write_text("<!-- autofix:pr-2 -->\n\nsecond run\n")
    run_step(tmp_path, github, "post", 1, {})
    assert [(c.user, c.body) for c in github.comments(REPO, pull.number)] == [
        ("alice", "<!-- autofix:pr-2 --> quoted by a person"),
        ("github-actions[bot]", "another workflow's comment"),
        ("github-actions[bot]", "<!-- autofix:pr-2 -->\n\nsecond run\n"),
    ]
    assert [r.method for r in github.writes()] == ["POST", "PATCH"]


@pytest.mark.skipif(__import__("shutil").which("jq") is None, reason="the steps use jq, as GitHub's runners have it")
@pytest.mark.parametrize(
    "permission, attempt, trusted", [(None, "1", "false"), (None, "2", "true"), ("write", "1", "true")]
)
def test_the_forks_example_repairs_a_first_time_contributor_s_pull_request_only_on_a_re_run(
    tmp_path, github, permission, attempt, trusted
):
    github.add_repo(REPO, default_branch="master")
    github.add_repo("contributor/Hello-World", fork=True)
    if permission:
        github.set_permission(REPO, "contributor", permission)
    pull = github.add_pull(REPO, head="contributor:feature", base="master", user="contributor")
    github.permissions = workflow_permissions(WORKFLOWS / "autofix-red-ci-forks.yml", "author")
    github.repo(REPO).private = True
    env = {"HEAD": "contributor:feature", "SHA": pull.head_sha, "ATTEMPT": attempt}
    assert step_script("author", 0)[1].keys() == {"GH_TOKEN", *env}
    assert run_step(tmp_path, github, "author", 0, env) == f"trusted={trusted}\n"
