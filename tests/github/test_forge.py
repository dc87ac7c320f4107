"""bot/github/forge.py against the fake GitHub, over HTTP with the real PyGithub: the endpoints it uses,
its retries and their bounds, no write made twice, bodies GitHub takes, job logs streamed."""

from __future__ import annotations

import time
import tracemalloc
from dataclasses import replace
from pathlib import Path

import pytest
from action_world import FAST
from fake_github import FakeGitHub, workflow_permissions

from bot.github.forge import BODY_LIMIT, Forge, ForgeError, capped

REPO = "octo-org/widgets"
MARK = "<!-- autofix:pr-2 -->"
WORKFLOWS = Path(__file__).resolve().parents[2] / "examples" / "workflows"


@pytest.fixture
def fake():
    with FakeGitHub() as f:
        f.add_repo(REPO, private=True)
        f.add_issue(REPO, "the bug")
        f.add_pull(REPO, head="feature")  # #2
        yield f
        assert f.errors == []


@pytest.fixture
def said():
    return []


@pytest.fixture
def forge(fake, said):
    forge = Forge(fake.api_url, "t", REPO, FAST, log=said.append)
    forge.waits = []
    forge.sleep = forge.waits.append  # the waits are recorded, not slept
    return forge


def paths(fake):
    return [(r.method, r.path) for r in fake.requests]


# ------------------------------------------------------------------------------- comments


def test_comments_use_only_the_comment_endpoints_the_red_ci_example_grants(fake, forge):
    """`pull-requests: write` and no `issues`: GET /issues/2 would be refused; the comments endpoints are not."""
    fake.permissions = workflow_permissions(WORKFLOWS / "autofix-red-ci.yml", "repair")
    assert "issues" not in fake.permissions
    assert forge.upsert_comment(2, MARK, f"{MARK}\n\nfirst") == "created"
    assert forge.upsert_comment(2, MARK, f"{MARK}\n\nsecond") == "updated"
    found = forge.find_comment(2, MARK)
    [comment] = fake.comments(REPO, 2)
    assert (found.id, found.body, found.url) == (
        comment.id,
        f"{MARK}\n\nsecond",
        f"{fake.web_url}/{REPO}/pull/2#issuecomment-{comment.id}",
    )
    forge.edit_comment(found.id, f"{MARK}\n\nthird")
    assert fake.comment(comment.id).body == f"{MARK}\n\nthird"
    assert set(paths(fake)) == {
        ("GET", "/user"),  # refused (403): a GITHUB_TOKEN acts as no user
        ("GET", f"/repos/{REPO}/issues/2/comments"),
        ("POST", f"/repos/{REPO}/issues/2/comments"),
        ("PATCH", f"/repos/{REPO}/issues/comments/{comment.id}"),
    }
    assert [r.status for r in fake.requests if r.path == "/user"] == [403]
    assert all(r.status in (200, 201) for r in fake.requests if r.path != "/user")


def test_a_comment_with_the_marker_by_a_person_is_not_ours(fake, forge):
    fake.add_comment(REPO, 2, f"quoting autofix: {MARK}", user="alice")
    assert forge.find_comment(2, MARK) is None
    assert forge.upsert_comment(2, MARK, f"{MARK}\n\nours") == "created"
    assert [c.user for c in fake.comments(REPO, 2)] == ["alice", "github-actions[bot]"]


def test_bodies_over_github_s_limit_are_cut_visibly_and_close_their_code_block():
    body = "<!-- autofix:pr-2 -->\n\n```diff\n" + "+ a line\n" * 20_000 + "```\n"
    cut = capped(body)
    assert len(cut) <= BODY_LIMIT and cut.startswith("<!-- autofix:pr-2 -->\n\n```diff\n+ a line\n")
    head, mark = cut.rsplit("\n\n", 1)
    assert (
        head.endswith("\n```") and mark.startswith("**[... ") and "characters cut: GitHub takes at most 65,536" in mark
    )
    assert capped("short") == "short"
    four = "````text\n" + "```\n" * 30_000
    assert capped(four).rsplit("\n\n", 1)[0].endswith("\n````")  # a longer fence is closed by as long a one


def test_a_comment_over_the_limit_is_posted_cut(fake, forge):
    forge.upsert_comment(2, MARK, MARK + "x" * 100_000)
    [comment] = fake.comments(REPO, 2)
    assert len(comment.body) <= BODY_LIMIT and comment.body.startswith(MARK) and "characters cut" in comment.body


# ------------------------------------------------------------------------------- retries


def test_5xx_and_resets_on_reads_are_retried_with_growing_waits(fake, forge, said):
    fake.fail_next("GET", r"/pulls/2$", 502)
    fake.reset_next("GET", r"/pulls/2$")
    assert forge.pull(2).number == 2
    assert forge.waits == [0.01, 0.02]
    assert said == [
        "autofix: GitHub: get pull request #2: GitHub answered 502; trying again in 0.01 s",
        "autofix: GitHub: get pull request #2: the connection failed (ConnectionError); trying again in 0.02 s",
    ]
    assert [r.status for r in fake.requests] == [502, 0, 200]


def test_429_waits_as_long_as_retry_after_says(fake, forge):
    fake.fail_next("GET", r"/pulls$", 429, headers={"Retry-After": "0"})
    fake.fail_next("GET", r"/issues/2/comments$", 429, {"message": "too many"}, headers={"Retry-After": "1"})
    assert forge.open_pull("feature", "main").number == 2
    slow = Forge(fake.api_url, "t", REPO, replace(FAST, budget=5.0))
    slow.waits = []
    slow.sleep = slow.waits.append
    assert slow.find_comment(2, MARK) is None
    assert (forge.waits, slow.waits) == ([0.0], [1.0])


def test_429_without_retry_after_waits_a_minute_as_a_secondary_rate_limit(fake, forge):
    """GitHub: a secondary rate limit comes as a 403 or a 429; without Retry-After, wait at least a minute."""
    fake.fail_next("GET", r"/pulls$", 429, {"message": "You have exceeded a secondary rate limit."})
    with pytest.raises(
        ForgeError, match=r"\(429\): You have exceeded a secondary rate limit. \(GitHub asks to wait 60 s"
    ):
        forge.open_pull("feature", "main")
    assert forge.waits == []  # more than the budget: not waited at all
    patient = Forge(fake.api_url, "t", REPO, replace(FAST, budget=200.0, first_wait=40.0))
    patient.waits = []
    patient.sleep = patient.waits.append
    fake.fail_next("GET", r"/pulls$", 429, times=2)
    assert patient.open_pull("feature", "main").number == 2
    assert patient.waits == [60.0, 80.0]  # a minute at least, then the doubling backoff once it is longer


def test_a_rate_limit_that_resets_later_than_the_budget_fails_at_once_in_one_line(fake, forge):
    reset = str(int(time.time()) + 3600)
    headers = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": reset}
    fake.fail_next(
        "GET", r"/pulls/2$", 403, {"message": "API rate limit exceeded for installation ID 1."}, headers=headers
    )
    with pytest.raises(ForgeError) as exc:
        forge.pull(2)
    assert forge.waits == []
    message = str(exc.value)
    assert "\n" not in message
    assert message.startswith(
        "GitHub API: get pull request #2 failed (403): "
        "API rate limit exceeded for installation ID 1. (GitHub asks to wait "
    )
    assert message.endswith(" s; autofix waits at most 1 s)")


def test_a_secondary_rate_limit_without_headers_waits_a_minute_when_the_budget_allows(fake, forge):
    fake.fail_next("GET", r"/pulls/2$", 403, {"message": "You have exceeded a secondary rate limit."})
    with pytest.raises(
        ForgeError, match=r"\(403\): You have exceeded a secondary rate limit. \(GitHub asks to wait 60 s"
    ):
        forge.pull(2)
    patient = Forge(fake.api_url, "t", REPO, replace(FAST, budget=60.0))
    patient.waits = []
    patient.sleep = patient.waits.append
    fake.fail_next("GET", r"/pulls/2$", 403, {"message": "You have exceeded a secondary rate limit."})
    assert patient.pull(2).number == 2 and patient.waits == [60.0]


def test_a_permission_403_is_not_retried(fake, forge):
    fake.permissions = {}
    with pytest.raises(ForgeError) as exc:
        forge.pull(2)
    assert str(exc.value) == "GitHub API: get pull request #2 failed (403): Resource not accessible by integration"
    assert forge.waits == [] and len(fake.requests) == 1


def test_network_failures_after_retries_are_one_line(fake, forge):
    fake.reset_next("*", r"/pulls/2$", times=10)
    with pytest.raises(ForgeError) as exc:
        forge.pull(2)
    message = str(exc.value)
    assert (
        message.startswith("GitHub API: get pull request #2 failed after 4 tries: ConnectionError: ")
        and "\n" not in message
    )
    assert len(fake.requests) == 4 and forge.waits == [0.01, 0.02, 0.04]


def test_a_truncated_answer_is_retried(fake, forge):
    fake.truncate_next("GET", r"/pulls/2$")
    assert forge.pull(2).title == "A pull request"
    assert [r.status for r in fake.requests] == [200, 200]


def test_waits_stop_at_the_budget(fake, forge):
    fake.fail_next("GET", r"/pulls/2$", 503, times=10)
    tight = Forge(fake.api_url, "t", REPO, replace(FAST, retries=10, first_wait=0.3, budget=1.0))
    tight.waits = []
    tight.sleep = tight.waits.append
    with pytest.raises(
        ForgeError, match=r"^GitHub API: get pull request #2 failed \(503\) after 3 tries: Service Unavailable$"
    ):
        tight.pull(2)
    assert tight.waits == [0.3, 0.6]  # 1.2 s more would pass the 1 s budget


# ------------------------------------------------------------------------------- writes, never twice


@pytest.mark.parametrize("fault", ["reset", "truncate", "502"])
def test_a_comment_whose_answer_was_lost_is_looked_for_not_posted_again(fake, forge, fault):
    {"reset": lambda: fake.reset_next("POST", r"/comments$"),
     "truncate": lambda: fake.truncate_next("POST", r"/comments$"),  # GitHub made it; the answer broke off
     "502": lambda: fake.fail_next("POST", r"/comments$", 502)}[fault]()  # fmt: skip
    assert forge.upsert_comment(2, MARK, f"{MARK}\n\nbody") == "created"
    [comment] = fake.comments(REPO, 2)
    assert comment.body == f"{MARK}\n\nbody"
    writes = [(r.method, r.status) for r in fake.writes()]
    assert writes == (
        [("POST", 201), ("PATCH", 200)]
        if fault == "truncate"
        else [("POST", 0 if fault == "reset" else 502), ("POST", 201)]
    )
    lists = [i for i, r in enumerate(fake.requests) if r.method == "GET" and r.path.endswith("/comments")]
    assert (
        len(lists) == 2 and lists[1] < [i for i, r in enumerate(fake.requests) if r.is_write][1]
    )  # looked before the second write


def test_a_pull_request_whose_answer_was_lost_is_not_opened_twice(fake, forge):
    fake.truncate_next("POST", r"/pulls$")
    result = forge.upsert_pull("autofix/pr-2", "main", "Fix", "body", draft=False)
    [_, opened] = fake.pulls(REPO)
    assert (result.number, opened.head_ref, opened.body) == (opened.number, "autofix/pr-2", "body")
    assert [r.method for r in fake.writes()] == ["POST", "PATCH"]


def test_pygithub_itself_never_retries(fake, forge):
    fake.fail_next("POST", r"/comments$", 500, times=10)
    with pytest.raises(
        ForgeError, match=r"^GitHub API: comment on #2 failed \(500\) after 4 tries: Internal Server Error$"
    ):
        forge.upsert_comment(2, MARK, "body")
    posts = [r for r in fake.requests if r.method == "POST"]
    gets = [r for r in fake.requests if r.method == "GET" and r.path.endswith("/comments")]
    assert len(posts) == len(gets) == 4  # each POST after a look: one per try, none behind Forge's back


def test_a_repository_without_drafts_gets_a_regular_pull_request_and_the_log_says_so(fake, forge, said):
    fake.repo(REPO).drafts = False
    result = forge.upsert_pull("autofix/pr-2", "main", "Fix", "body", draft=True)
    assert result.operation == "created" and fake.pull(REPO, result.number).draft is False
    assert said == ["autofix: this repository has no draft pull requests (GitHub: 422); opening a regular one"]
    assert [(r.method, r.status, r.json.get("draft")) for r in fake.writes()] == [
        ("POST", 422, True),
        ("POST", 201, False),
    ]


def test_the_pull_request_of_a_fork_s_run_is_found_with_one_head_query(fake, forge):
    fake.add_repo("someone/widgets", fork=True)
    for n in range(5):
        fake.add_pull(REPO, head=f"other-{n}")
    fork = fake.add_pull(REPO, head="someone:patch-1")
    fake.clear_requests()
    assert forge.pull_of_commit(fork.head_sha, "someone:patch-1") == fork.number
    assert forge.pull_of_commit("0" * 40, "someone:patch-1") is None
    assert [(r.path, r.query.get("head")) for r in fake.requests] == [(f"/repos/{REPO}/pulls", "someone:patch-1")] * 2


# ------------------------------------------------------------------------------- job logs


def failed_run(fake, log):
    run = fake.add_workflow_run(REPO, head_branch="feature", event="pull_request", pull_requests=[2])
    fake.add_job(run, "test", log=log)
    fake.add_job(run, "lint", conclusion="success", log="all good\n")
    return run


def test_a_64_mib_log_is_streamed_into_its_tail(fake, forge):
    line = b"2024-05-01T10:00:00Z some output of the build\n"
    lines = 64 * 2**20 // len(line)

    def log():
        chunk = line * 1000
        for _ in range(lines // 1000):
            yield chunk
        yield b"E   assert -1 == 5\n##[error]Process completed with exit code 1.\n"

    run = failed_run(fake, log)
    tracemalloc.start()
    try:
        logs, missing = forge.failed_job_logs(run.id, tail=200_000, read_cap=128 * 2**20)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    [(name, text)] = logs
    assert (name, missing) == ("test", None)
    assert text.endswith("##[error]Process completed with exit code 1.\n") and len(text) == 200_000
    assert peak < 4 * 2**20, f"{peak / 2**20:.1f} MiB held for a 64 MiB log"


def test_reading_a_log_stops_at_the_byte_cap_and_the_time_cap(fake, forge):
    run = failed_run(fake, lambda: (b"x" * 65536 for _ in range(64)))  # 4 MiB
    logs, missing = forge.failed_job_logs(run.id, tail=1000, read_cap=2**20)
    assert len(logs[0][1]) == 1000
    assert (
        missing == f"job logs of run {run.id} incomplete: the log of job 'test': "
        "read the first 1,048,576 bytes only; the end is missing"
    )

    def slow():
        yield b"first\n"
        time.sleep(0.4)
        yield b"late\n"
        time.sleep(0.4)
        yield b"never read\n"

    run = failed_run(fake, slow)
    started = time.monotonic()
    logs, missing = forge.failed_job_logs(run.id, seconds=0.2)
    assert time.monotonic() - started < 0.8  # the deadline is checked between reads of the socket
    assert logs == [("test", "first\nlate\n")] and "before the time ran out; the end is missing" in missing


def test_a_truncated_or_reset_log_keeps_what_arrived(fake, forge):
    run = failed_run(fake, "E   assert -1 == 5\n" * 100)
    fake.truncate_next("GET", r"^/_fake/logs/")
    logs, missing = forge.failed_job_logs(run.id)
    assert logs == [("test", "E   assert -1 == 5\n" * 50)]
    assert (
        missing == f"job logs of run {run.id} incomplete: the log of job 'test': the download broke off after 950 bytes"
    )
    fake.reset_next("GET", r"^/_fake/logs/")
    logs, missing = forge.failed_job_logs(run.id)
    assert logs == [] and "the download broke off after 0 bytes (" in missing


def test_logs_without_actions_read_are_left_out(fake, forge):
    run = failed_run(fake, "E   boom\n")
    fake.permissions = {"pull-requests": "write"}
    logs, missing = forge.failed_job_logs(run.id)
    assert logs == []
    assert (
        missing == f"job logs of run {run.id} unavailable: "
        f"GitHub API: list jobs of run {run.id} failed (403): Resource not accessible by integration"
    )
