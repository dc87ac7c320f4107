"""The other rounds on autofix's own pull request (review/followups.py), from the recorded payloads
and the fake GitHub: `/autofix <text>` on it is one follow-up commit on its branch and one answer,
never a pull request into the pull request (on anyone else's pull request it stays as it was); a
failed lint job on its branch (a workflow run, or a check run) is one follow-up commit, and after
`max_rounds` a comment saying it stopped; a reply in a review thread that mentions autofix is that
thread's round. An outsider's comment, or a check run of another branch, starts nothing."""

import re

from action_world import REPO, act, payload
from fake_openai import Reply
from suite_env import PYTHON as SUITE_PYTHON
from test_review_loop import BRANCH, CONFIG, autofix_pull, world  # noqa: F401 (world: the review's repository)

DIGITS = "def digits(n):\n    return len(str(n))\n"
DIGITS_TESTS = "from digits import digits\n\n\ndef test_digits():\n    assert digits(120) == 3\n"
ASKED = "also handle negative numbers"
REPRODUCES = "```python\nfrom digits import digits\n\n\ndef test_negative():\n    assert digits(-12) == 2\n```"
HANDLES = (
    "digits.py\n```python\n<<<<<<< SEARCH\n    return len(str(n))\n=======\n    return len(str(abs(n)))\n"
    ">>>>>>> REPLACE\n```\n\nthread 1: done\n"
)
LINT_LOG = (
    "2026-12-06T20:00:01.0000000Z ruff check .\n"
    "2026-12-06T20:00:02.0000000Z calc.py:1:8: F401 [*] `os` imported but unused\n"
    "2026-12-06T20:00:02.0000000Z Found 1 error.\n"
    "2026-12-06T20:00:02.0000000Z ##[error]Process completed with exit code 1.\n"
)
UNUSED = (
    "calc.py\n```python\n<<<<<<< SEARCH\nimport os\n\n\ndef add(a, b):\n=======\ndef add(a, b):\n"
    ">>>>>>> REPLACE\n```\n\nthread 1: done\n"
)


def request_event(github, pull, body, sender="Codertocat", marked=True):
    """The recorded `issue_comment` `created` payload on a pull request, its comment in the fake."""
    comment = github.add_comment(REPO, pull.number, body, user=sender)
    event = payload("issue_comment.created")  # GitHub marks a pull request's comments with pull_request
    event["comment"].update(id=comment.id, body=body)
    event["comment"]["user"].update(login=sender, type="User")
    event["sender"].update(login=sender, type="User")
    event["issue"].update(number=pull.number, title=pull.title, body=pull.body if marked else "A change")
    event["issue"]["pull_request"] = {"url": f"{github.api_url}/repos/{REPO}/pulls/{pull.number}"}
    event["repository"].update(full_name=REPO)
    return comment, event


def with_digits(world):
    world.commit_to_origin({"digits.py": DIGITS, "tests/test_digits.py": DIGITS_TESTS})


def autofix_comments(github, pull, asked_ids=()):
    return [c for c in github.comments(REPO, pull.number) if c.id not in asked_ids]


def test_autofix_with_text_on_its_own_pull_request_pushes_one_proven_commit_and_answers_once(world, github, capsys):
    with_digits(world)
    pull = autofix_pull(world, github)
    asked, event = request_event(github, pull, f"/autofix {ASKED}")
    world.event("issue_comment", event)
    code, out, openai = act(capsys, world, {"reproduce": [Reply(REPRODUCES)], "review": [Reply(HANDLES)]})
    assert code == 0, "\n".join(out)
    assert openai.stages() == ["reproduce", "review"]
    assert ASKED in openai.prompts()[1] and "Thread 1, on the pull request:" in openai.prompts()[1]
    # One commit on autofix's branch, on top of its head; no second pull request.
    assert [p.number for p in github.pulls(REPO)] == [pull.number]
    head = world.show(BRANCH)
    assert world.show(f"{BRANCH}^") == pull.head_sha
    assert world.file_at(BRANCH, "digits.py") == "def digits(n):\n    return len(str(abs(n)))\n"
    test = f"tests/autofix/test_request_{asked.id}.py"
    assert "def test_negative" in world.file_at(BRANCH, test)
    [answer] = autofix_comments(github, pull, {asked.id})
    assert answer.body.startswith(
        f"<!-- autofix:request-{asked.id} -->\n\n✅ autofix answered `/autofix` (comment {asked.id}) by @Codertocat "
        f"with {head[:12]}: changed `digits.py`; the 5 tests of `{SUITE_PYTHON} -m pytest -q tests` passed on "
        "attempt 1 of 2."
    )
    assert (
        f"**Evidence:** the whole suite (`{SUITE_PYTHON} -m pytest -q tests`) in autofix's sandbox: 5 passed, "
        f"0 new failures; `{test}` (`tests.autofix.test_request_{asked.id}::test_negative`) failed before, "
        "passes after." in answer.body
    )


def test_autofix_with_text_on_a_pull_request_autofix_didnt_open_is_proposed_as_before(world, github, capsys):
    with_digits(world)
    pull = autofix_pull(world, github)
    asked, event = request_event(github, pull, f"/autofix {ASKED}", marked=False)  # no marker: not autofix's
    world.event("issue_comment", event)
    world.git("push", "--quiet", "origin", f"{pull.head_sha}:refs/pull/{pull.number}/head", cwd=world.seed)
    script = {"localize": [Reply("```\ndigits.py\n```")], "reproduce": [Reply(REPRODUCES)],
              "repair": [Reply(HANDLES.replace("\nthread 1: done\n", ""))]}  # fmt: skip
    code, out, openai = act(capsys, world, script)
    assert code == 0, "\n".join(out)
    assert world.show(BRANCH) == pull.head_sha  # its branch untouched: a pull request into it instead
    [proposed] = [p for p in github.pulls(REPO) if p.number != pull.number]
    assert (proposed.head_ref, proposed.base_ref) == (f"autofix/pr-{pull.number}-change", BRANCH)
    [answer] = autofix_comments(github, pull, {asked.id})
    assert answer.body.startswith(f"<!-- autofix:pr-change-{pull.number} -->")


def test_an_outsiders_autofix_on_its_own_pull_request_starts_nothing(world, github, capsys):
    pull = autofix_pull(world, github)
    asked, event = request_event(github, pull, f"/autofix {ASKED}", sender="a-reader")
    world.event("issue_comment", event)
    code, out, openai = act(capsys, world, [])
    assert code == 0
    assert "autofix: ignored: @a-reader has read permission on Codertocat/Hello-World; " in "\n".join(out)
    assert openai.prompts() == [] and world.show(BRANCH) == pull.head_sha
    assert autofix_comments(github, pull, {asked.id}) == [] and github.writes() == []


def lint_failed(world, github, pull, head):
    """A failed `workflow_run` of autofix's branch at `head`: its lint job failed, its tests passed."""
    run = github.add_workflow_run(REPO, head_branch=BRANCH, head_sha=head, event="pull_request",
                                  pull_requests=[pull.number])  # fmt: skip
    github.add_job(run, "lint", log=LINT_LOG)
    github.add_job(run, "test", conclusion="success", log="5 passed\n")
    event = payload("workflow_run.completed.with-pull-requests")
    listed = event["workflow_run"]["pull_requests"][0]
    listed.update(number=pull.number, url=f"{github.api_url}/repos/{REPO}/pulls/{pull.number}")
    listed["head"].update(ref=BRANCH, sha=head)
    event["workflow_run"].update(
        id=run.id, head_sha=head, head_branch=BRANCH, event="pull_request", conclusion="failure",
        html_url=f"{github.web_url}/{REPO}/actions/runs/{run.id}", pull_requests=[listed],
    )  # fmt: skip
    world.event("workflow_run", event)
    return run


def test_a_failed_lint_job_on_its_branch_gets_one_commit_then_stops_after_max_rounds(world, github, capsys):
    calc = "import os\n\n\n" + world.file_at("master", "calc.py")
    world.commit_to_origin({"calc.py": calc, ".github/autofix.yml": CONFIG + "max_rounds: 1\n"})
    pull = autofix_pull(world, github)
    run = lint_failed(world, github, pull, pull.head_sha)
    code, out, openai = act(capsys, world, {"review": [Reply(UNUSED)]})
    assert code == 0, "\n".join(out)
    assert openai.stages() == ["review"]  # no reproduction test for a lint job: its log is the evidence
    assert "calc.py:1:8: F401 [*] `os` imported but unused" in openai.prompts()[0]
    assert "2026-12-06T20:00:02" not in openai.prompts()[0]  # the log as the red-CI flow reads it
    head = world.show(BRANCH)
    assert world.show(f"{BRANCH}^") == pull.head_sha and [p.number for p in github.pulls(REPO)] == [pull.number]
    assert world.file_at(BRANCH, "calc.py").startswith("def add(a, b):\n")
    [summary] = github.comments(REPO, pull.number)
    assert summary.body.startswith(
        f"<!-- autofix:ci-{run.id} -->\n\n✅ autofix answered run {run.id} with {head[:12]}: changed `calc.py`; "
        f"the 3 tests of `{SUITE_PYTHON} -m pytest -q tests` passed on attempt 1 of 2."
    )
    said = r"\*\*Round 1 of 1\*\* of red CI on this pull request \(`max_rounds`\); spent so far: ([\d,]+) tokens"
    spent = re.search(said, summary.body)
    assert spent and int(spent[1].replace(",", "")) > 0

    # CI fails again on the new head: the last round was spent, so it stops and says why.
    github.pulls(REPO)[0].head_sha = head
    again = lint_failed(world, github, pull, head)
    code, out, openai = act(capsys, world, [])
    assert code == 0, "\n".join(out)
    assert openai.prompts() == [] and world.show(BRANCH) == head
    first, stop = github.comments(REPO, pull.number)
    assert first.id == summary.id
    assert stop.body.startswith(
        f"<!-- autofix:ci-stop-{pull.number} -->\n\n⏹️ autofix stopped: CI failed again "
        f"([run {again.id}]({github.web_url}/{REPO}/actions/runs/{again.id})) after 1 round of red CI fixes on "
        "this pull request, and `max_rounds` in `.github/autofix.yml` is 1"
    )


def check_failed(world, github, pull, head, branch=BRANCH):
    """The recorded failed `check_run` payload, made a lint check of autofix's branch at `head`."""
    event = payload("check_run.completed.failure")
    check = event["check_run"]
    text = "".join(line.split(" ", 1)[1] + "\n" for line in LINT_LOG.splitlines()[:3])  # a check's output: no stamps
    check.update(head_sha=head, html_url=f"{github.web_url}/{REPO}/runs/{check['id']}", name="ruff")
    check["output"].update(title="ruff", summary="1 error", text=text)
    check["check_suite"].update(head_branch=branch, head_sha=head)
    listed = check["pull_requests"][0]
    listed.update(number=pull.number, url=f"{github.api_url}/repos/{REPO}/pulls/{pull.number}")
    listed["head"].update(ref=branch, sha=head)
    listed["base"]["repo"]["url"] = f"{github.api_url}/repos/{REPO}"
    event["repository"].update(full_name=REPO)
    world.event("check_run", event)
    return check


def test_a_failed_check_run_on_its_branch_gets_one_follow_up_commit(world, github, capsys):
    calc = "import os\n\n\n" + world.file_at("master", "calc.py")
    world.commit_to_origin({"calc.py": calc})
    pull = autofix_pull(world, github)
    check = check_failed(world, github, pull, pull.head_sha)
    code, out, openai = act(capsys, world, {"review": [Reply(UNUSED)]})
    assert code == 0, "\n".join(out)
    assert openai.stages() == ["review"]
    asked = openai.prompts()[0]
    assert f"CI run {check['id']} failed at the branch's head" in asked and "Check 'ruff':\nruff\n\n1 error" in asked
    assert "calc.py:1:8: F401 [*] `os` imported but unused" in asked
    head = world.show(BRANCH)
    assert world.show(f"{BRANCH}^") == pull.head_sha and [p.number for p in github.pulls(REPO)] == [pull.number]
    assert world.file_at(BRANCH, "calc.py").startswith("def add(a, b):\n")
    [summary] = github.comments(REPO, pull.number)
    assert summary.body.startswith(
        f"<!-- autofix:ci-{check['id']} -->\n\n✅ autofix answered run {check['id']} with {head[:12]}: changed "
        f"`calc.py`; the 3 tests of `{SUITE_PYTHON} -m pytest -q tests` passed on attempt 1 of 2."
    )
    assert "**Round 1 of 3** of red CI on this pull request (`max_rounds`)" in summary.body


def test_a_failed_check_run_on_another_branch_starts_nothing(world, github, capsys):
    pull = autofix_pull(world, github)
    check_failed(world, github, pull, pull.head_sha, branch="changes")  # the recorded payload's own branch
    code, out, openai = act(capsys, world, [])
    assert code == 0
    assert "autofix: ignored: check run 128620228 is of changes, not autofix's own" in out
    assert openai.prompts() == [] and world.show(BRANCH) == pull.head_sha and github.writes() == []


def thread_reply_event(github, pull, reply):
    event = payload("pull_request_review_comment.created")
    event["comment"].update(id=reply.id, body=reply.body, in_reply_to_id=reply.in_reply_to)
    event["comment"]["user"].update(login=reply.user, type="User")
    event["sender"].update(login=reply.user, type="User")
    p = event["pull_request"]
    p.update(number=pull.number, body=pull.body, title=pull.title)
    p["head"].update(ref=pull.head_ref, sha=pull.head_sha)
    p["head"]["repo"].update(full_name=pull.head_repo, name=pull.head_repo.split("/")[1])
    event["repository"].update(full_name=REPO)
    return event


def test_a_reply_in_a_thread_that_mentions_autofix_is_that_threads_round(world, github, capsys):
    with_digits(world)
    pull = autofix_pull(world, github)
    review = github.add_review(REPO, pull.number, user="Codertocat", state="COMMENTED",
                               comments=[{"path": "digits.py", "line": 2, "body": "Fine for now."}])  # fmt: skip
    [thread] = github.review_threads(REPO, pull.number)
    reply = github.add_review_reply(REPO, thread.comments[0], f"@autofix {ASKED}", user="Codertocat")
    world.event("pull_request_review_comment", thread_reply_event(github, pull, reply))
    code, out, openai = act(capsys, world, {"reproduce": [Reply(REPRODUCES)], "review": [Reply(HANDLES)]})
    assert code == 0, "\n".join(out)
    assert ASKED in openai.prompts()[1] and "Thread 1, on digits.py:2:" in openai.prompts()[1]
    head = world.show(BRANCH)
    assert world.show(f"{BRANCH}^") == pull.head_sha
    [thread] = github.review_threads(REPO, pull.number)
    assert thread.resolved and len(thread.comments) == 3
    answer = github.review_comments_by_id[thread.comments[-1]].body
    assert answer.startswith(f"<!-- autofix:thread-{reply.id} -->\n✅ Addressed in {head}: changed `digits.py`.")
    assert review.id != reply.id


def test_a_reply_that_doesnt_mention_autofix_starts_nothing(world, github, capsys):
    pull = autofix_pull(world, github)
    github.add_review(REPO, pull.number, user="Codertocat", comments=[{"path": "calc.py", "line": 1, "body": "Hm"}])
    [thread] = github.review_threads(REPO, pull.number)
    reply = github.add_review_reply(REPO, thread.comments[0], "Never mind, it's fine.", user="Codertocat")
    world.event("pull_request_review_comment", thread_reply_event(github, pull, reply))
    code, out, openai = act(capsys, world, [])
    assert code == 0
    assert f"autofix: ignored: the reply {reply.id} by @Codertocat doesn't mention autofix" in out
    assert openai.prompts() == [] and world.show(BRANCH) == pull.head_sha and github.writes() == []
