"""Tests for tests/fake_github.py, driven by the real PyGithub over HTTP (no mocks)."""

from __future__ import annotations

import base64
import json
import os
import socket
import subprocess
import threading
import urllib.error
import urllib.request

import github
import pytest
import requests
from fake_github import FIXTURES_DIR, FakeGitHub, workflow_permissions
from github import BadCredentialsException, GithubException, UnknownObjectException

REPO = "octo-org/widgets"


@pytest.fixture
def fake():
    with FakeGitHub(login="github-actions[bot]") as f:
        f.add_repo(REPO, owner_type="Organization")
        yield f
        assert f.errors == [], "the fake crashed while answering:\n" + "\n".join(f.errors)


@pytest.fixture
def gh(fake):
    return fake.client()  # no client-side throttling, no retries


def raw(fake, method, path, body=None, *, token="t", base=None):
    """(status, headers, parsed body) for a plain HTTP request."""
    headers = {"Authorization": f"token {token}"} if token else {}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request((base or fake.api_url) + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req) as resp:
            status, hdrs, payload = resp.status, dict(resp.headers), resp.read()
    except urllib.error.HTTPError as e:
        status, hdrs, payload = e.code, dict(e.headers), e.read()
    ctype = hdrs.get("Content-Type", "")
    return status, hdrs, json.loads(payload) if payload and "json" in ctype else payload.decode()


def fixture(rel):
    return json.loads((FIXTURES_DIR / rel).read_text())


# ------------------------------------------------------------------------------- repos / users


def test_get_repo_with_a_default_pygithub_client(fake):
    gh = github.Github(base_url=fake.api_url, auth=github.Auth.Token("t"))
    repo = gh.get_repo(REPO)
    assert repo.full_name == REPO
    assert repo.default_branch == "main"
    assert repo.owner.login == "octo-org"
    assert repo.organization.login == "octo-org"
    assert repo.url == f"{fake.api_url}/repos/{REPO}"
    assert repo.html_url == f"{fake.web_url}/{REPO}"
    [req] = fake.requests
    assert (req.method, req.path, req.authorization) == ("GET", f"/repos/{REPO}", "token t")
    assert fake.errors == []


def test_unknown_repo_is_404(gh):
    with pytest.raises(UnknownObjectException) as exc:
        gh.get_repo("octo-org/nope")
    assert exc.value.status == 404
    assert exc.value.data["message"] == "Not Found"


def test_authenticated_user_login_is_configurable():
    with FakeGitHub(login="autofix-bot") as fake:
        assert fake.client().get_user().login == "autofix-bot"
        status, _, body = raw(fake, "GET", "/user")
        assert status == 200 and body["login"] == "autofix-bot" and body["type"] == "User"
    with FakeGitHub() as fake:
        status, _, body = raw(fake, "GET", "/user")
        assert (body["login"], body["type"]) == ("github-actions[bot]", "Bot")


def test_ghes_base_path_and_pagination_links(fake):
    for n in range(3):
        fake.add_issue(REPO, f"issue {n}")
    gh = fake.client(base_url=fake.ghes_api_url, per_page=2)
    repo = gh.get_repo(REPO)
    assert repo.url == f"{fake.ghes_api_url}/repos/{REPO}"
    assert [i.title for i in repo.get_issues()] == ["issue 2", "issue 1", "issue 0"]
    assert all(r.raw_path.startswith("/api/v3/") for r in fake.requests)
    second_page = fake.requests[-1]
    assert second_page.path == f"/repos/{REPO}/issues"
    assert second_page.query == {"per_page": "2", "page": "2"}
    status, headers, _ = raw(fake, "GET", f"/repos/{REPO}/issues?per_page=2", base=fake.ghes_api_url)
    assert headers["Link"] == (
        f'<{fake.ghes_api_url}/repos/{REPO}/issues?per_page=2&page=2>; rel="next", '
        f'<{fake.ghes_api_url}/repos/{REPO}/issues?per_page=2&page=2>; rel="last"'
    )


# ------------------------------------------------------------------------------- issues


def test_create_issue_then_list_over_two_pages(fake):
    gh = fake.client(per_page=2)
    repo = gh.get_repo(REPO)
    created = [repo.create_issue(f"bug {n}", body=f"body {n}", labels=["bug"]) for n in range(3)]
    assert [i.number for i in created] == [1, 2, 3]
    assert created[0].user.login == "github-actions[bot]"
    assert [lab.name for lab in created[0].labels] == ["bug"]

    fake.clear_requests()
    listed = list(repo.get_issues(state="open"))
    assert [(i.number, i.title, i.body) for i in listed] == [
        (3, "bug 2", "body 2"),
        (2, "bug 1", "body 1"),
        (1, "bug 0", "body 0"),
    ]
    pages = [r.query for r in fake.requests]
    assert pages == [{"state": "open", "per_page": "2"}, {"state": "open", "per_page": "2", "page": "2"}]

    created[1].edit(state="closed")
    assert [i.number for i in repo.get_issues()] == [3, 1]  # default state=open
    closed = list(repo.get_issues(state="closed"))
    assert [(i.number, i.state, i.state_reason) for i in closed] == [(2, "closed", "completed")]
    assert fake.issue(REPO, 2).closed_by == "github-actions[bot]"
    assert repo.get_issues(state="all").totalCount == 3


def test_seeded_issue_and_labels(fake, gh):
    fake.set_permission(REPO, "alice", "write")
    seeded = fake.add_issue(REPO, "Crash on start", "Traceback ...", user="alice", labels=["autofix"])
    issue = gh.get_repo(REPO).get_issue(seeded.number)
    assert (issue.title, issue.body, issue.user.login) == ("Crash on start", "Traceback ...", "alice")
    assert [lab.name for lab in issue.labels] == ["autofix"]
    assert issue.raw_data["author_association"] == "MEMBER"

    issue.add_to_labels("in-progress")
    assert [lab.name for lab in issue.get_labels()] == ["autofix", "in-progress"]
    issue.remove_from_labels("autofix")
    assert fake.issue(REPO, seeded.number).labels == ["in-progress"]
    assert {lab.name for lab in gh.get_repo(REPO).get_labels()} == {"autofix", "in-progress"}

    repo = gh.get_repo(REPO)
    assert repo.create_label("needs-human", "d73a4a", "ask a maintainer").color == "d73a4a"
    with pytest.raises(GithubException) as exc:
        repo.create_label("needs-human", "d73a4a")
    assert exc.value.status == 422
    assert exc.value.data["errors"] == [{"resource": "Label", "code": "already_exists", "field": "name"}]


# ------------------------------------------------------------------------------- comments


def test_create_and_edit_comment(fake, gh):
    fake.add_issue(REPO, "a bug", user="alice")
    fake.add_comment(REPO, 1, "me too", user="bob")
    issue = gh.get_repo(REPO).get_issue(1)
    comment = issue.create_comment("Working on it")
    assert comment.user.login == "github-actions[bot]"
    assert comment.html_url.endswith(f"/{REPO}/issues/1#issuecomment-{comment.id}")

    comment.edit("Opened a PR")
    assert comment.body == "Opened a PR"
    again = issue.get_comment(comment.id)
    assert again.body == "Opened a PR"
    assert again.updated_at > again.created_at

    assert [(c.user.login, c.body) for c in issue.get_comments()] == [
        ("bob", "me too"),
        ("github-actions[bot]", "Opened a PR"),
    ]
    assert [c.body for c in fake.comments(REPO, 1)] == ["me too", "Opened a PR"]
    assert gh.get_repo(REPO).get_issue(1).comments == 2


# ------------------------------------------------------------------------------- pull requests


def test_create_pull_duplicate_is_422_and_head_filter_finds_it(fake, gh):
    repo = gh.get_repo(REPO)
    pr = repo.create_pull(base="main", head="autofix/issue-1", title="Fix #1", body="Closes #1", draft=True)
    assert (pr.number, pr.state, pr.draft) == (1, "open", True)
    assert (pr.head.ref, pr.head.label, pr.base.ref) == ("autofix/issue-1", "octo-org:autofix/issue-1", "main")
    assert pr.user.login == "github-actions[bot]"
    assert pr.mergeable is None  # GitHub computes it later

    with pytest.raises(GithubException) as exc:
        repo.create_pull(base="main", head="octo-org:autofix/issue-1", title="again")
    assert exc.value.status == 422
    assert exc.value.data["message"] == "Validation Failed"
    assert exc.value.data["errors"] == [
        {
            "resource": "PullRequest",
            "code": "custom",
            "message": "A pull request already exists for octo-org:autofix/issue-1.",
        }
    ]
    assert len(fake.pulls(REPO)) == 1

    fake.add_pull(REPO, head="other-branch", title="unrelated")
    found = list(repo.get_pulls(state="open", head="octo-org:autofix/issue-1", base="main"))
    assert [p.number for p in found] == [1]
    assert list(repo.get_pulls(head="octo-org:autofix/issue-1", base="develop")) == []
    # Like GitHub: a head without "owner:" is ignored, so this lists every open PR.
    assert [p.number for p in repo.get_pulls(head="autofix/issue-1")] == [2, 1]


def test_pull_shares_issue_numbers_and_edits(fake, gh):
    fake.add_issue(REPO, "the bug")
    repo = gh.get_repo(REPO)
    pr = repo.create_pull(base="main", head="fix", title="WIP", body="...")
    assert pr.number == 2
    issue_view = repo.get_issue(2)
    assert issue_view.pull_request is not None and issue_view.title == "WIP"
    assert [i.number for i in repo.get_issues()] == [2, 1]  # issues list includes PRs, as on GitHub

    pr.edit(title="Fix the bug", body="Closes #1")
    assert repo.get_pull(2).title == "Fix the bug"
    pr.create_issue_comment("CI is red, retrying")
    assert [c.body for c in pr.get_issue_comments()] == ["CI is red, retrying"]

    pr.edit(state="closed")
    assert repo.get_pull(2).state == "closed"
    assert list(repo.get_pulls(state="closed")) != []
    # closed: a new PR for the same head is accepted again
    assert repo.create_pull(base="main", head="fix", title="retry").number == 3


def test_strict_branches():
    with FakeGitHub(strict_branches=True) as fake:
        fake.add_repo("me/proj")
        repo = fake.client().get_repo("me/proj")
        with pytest.raises(GithubException) as exc:
            repo.create_pull(base="main", head="nope", title="t")
        assert exc.value.data["errors"] == [{"resource": "PullRequest", "field": "head", "code": "invalid"}]
        fake.add_branch("me/proj", "feature")
        assert (
            repo.create_pull(base="main", head="feature", title="t").head.sha
            == fake.repo("me/proj").branches["feature"]
        )


# ------------------------------------------------------------------------------- collaborators


def test_collaborator_permission(fake, gh):
    for login, perm in [("ada", "admin"), ("wes", "write"), ("rae", "read"), ("nia", "none")]:
        fake.set_permission(REPO, login, perm)
    repo = gh.get_repo(REPO)
    assert [repo.get_collaborator_permission(x) for x in ("ada", "wes", "rae", "nia")] == [
        "admin",
        "write",
        "read",
        "none",
    ]
    # the legacy "permission" maps maintain->write and triage->read; role_name keeps the role
    fake.set_permission(REPO, "max", "maintain")
    assert (repo.get_collaborator_permission("max"), repo.get_collaborator_role_name("max")) == ("write", "maintain")
    assert repo.get_collaborator_permission("stranger") == "read"  # public repo
    fake.set_permission(REPO, "ghost", None)
    with pytest.raises(UnknownObjectException):
        repo.get_collaborator_permission("ghost")
    assert repo.has_in_collaborators("wes") and not repo.has_in_collaborators("stranger")

    fake.add_repo("octo-org/secret", private=True)
    assert gh.get_repo("octo-org/secret").get_collaborator_permission("stranger") == "none"
    perm_body = raw(fake, "GET", f"/repos/{REPO}/collaborators/github-actions%5Bbot%5D/permission")[2]
    assert perm_body["user"]["login"] == "github-actions[bot]"


# ------------------------------------------------------------------------------- errors / auth


def test_injected_500_surfaces(fake, gh):
    fake.fail_next("GET", rf"^/repos/{REPO}$", 500)
    with pytest.raises(GithubException) as exc:
        gh.get_repo(REPO)
    assert exc.value.status == 500
    assert gh.get_repo(REPO).full_name == REPO  # only the next one failed
    assert [r.status for r in fake.requests] == [500, 200]


def test_injected_failure_on_write_leaves_state_alone(fake, gh):
    repo = gh.get_repo(REPO)
    fake.fail_next("POST", r"/issues$", 502, {"message": "Server Error"})
    with pytest.raises(GithubException) as exc:
        repo.create_issue("x")
    assert (exc.value.status, exc.value.data) == (502, {"message": "Server Error"})
    assert fake.issues(REPO) == []


def test_default_pygithub_retries_a_single_5xx(fake):
    """Real PyGithub defaults retry 5xx (GET and POST): one injected 500 is invisible."""
    gh = github.Github(base_url=fake.api_url, auth=github.Auth.Token("t"))
    fake.fail_next("GET", rf"^/repos/{REPO}$", 500)
    assert gh.get_repo(REPO).full_name == REPO
    assert [r.status for r in fake.requests] == [500, 200]


def test_unauthenticated_requests_get_401(fake):
    anonymous = github.Github(base_url=fake.api_url, retry=None)
    with pytest.raises(GithubException) as exc:  # PyGithub keeps BadCredentialsException for "Bad credentials"
        anonymous.get_repo(REPO)
    assert exc.value.status == 401
    assert exc.value.data == {
        "message": "Requires authentication",
        "documentation_url": "https://docs.github.com/rest",
        "status": "401",
    }
    assert fake.requests[0].authorization is None


def test_token_mapping_rejects_unknown_tokens():
    with FakeGitHub(tokens={"good": "alice"}) as fake:
        fake.add_repo("alice/proj")
        assert fake.client(token="good").get_user().login == "alice"
        with pytest.raises(BadCredentialsException) as exc:
            _ = fake.client(token="bad").get_user().login  # the lazy user is fetched on first access
        assert exc.value.data["message"] == "Bad credentials"


def test_unknown_route_is_github_404(fake):
    status, headers, body = raw(fake, "GET", "/definitely/not/a/route")
    assert status == 404
    assert body == {"message": "Not Found", "documentation_url": "https://docs.github.com/rest", "status": "404"}
    assert headers["Content-Type"] == "application/json; charset=utf-8"


def test_writes_shows_exactly_the_writes(fake, gh):
    fake.add_issue(REPO, "bug")
    repo = gh.get_repo(REPO)
    issue = repo.get_issue(1)
    list(repo.get_pulls(head="octo-org:autofix/1"))
    comment = issue.create_comment("on it")
    comment.edit("done")
    repo.create_pull(base="main", head="autofix/1", title="Fix #1")
    issue.edit(state="closed")

    assert [(w.method, w.path, w.json) for w in fake.writes()] == [
        ("POST", f"/repos/{REPO}/issues/1/comments", {"body": "on it"}),
        ("PATCH", f"/repos/{REPO}/issues/comments/{comment.id}", {"body": "done"}),
        ("POST", f"/repos/{REPO}/pulls", {"base": "main", "head": "autofix/1", "title": "Fix #1"}),
        ("PATCH", f"/repos/{REPO}/issues/1", {"state": "closed"}),
    ]
    fake.clear_requests()
    _ = repo.get_issue(1).title  # a read: no write recorded
    assert fake.writes() == []


# ------------------------------------------------------------------------------- response shapes


def test_field_sets_match_the_recorded_api(fake):
    fake.set_permission(REPO, "alice", "admin")
    fake.add_issue(REPO, "bug", user="alice", labels=["bug"])
    fake.add_comment(REPO, 1, "hello", user="alice")
    fake.add_pull(REPO, head="fix", user="alice")

    def keys(path):
        status, _, body = raw(fake, "GET", path)
        assert status == 200, (path, body)
        text = json.dumps(body)
        for leftover in ("api.github.com", "https://github.com/", "octokit-fixture", "<GITHUB_", "octo-org/octo-repo"):
            assert leftover not in text, (path, leftover)
        return body

    repo = keys(f"/repos/{REPO}")
    assert set(repo) == set(fixture("api/repos.get.json"))
    issue = keys(f"/repos/{REPO}/issues/1")
    assert set(issue) == set(fixture("api/issues.create.json"))
    assert set(issue["labels"][0]) == set(fixture("api/issues.add-labels.json")[0])
    listed = keys(f"/repos/{REPO}/issues?state=all")
    assert set(listed[-1]) == set(fixture("api/issues.list-for-repo.page-1.json")[0])
    assert "pull_request" in listed[0] and "draft" in listed[0]
    comment = keys(f"/repos/{REPO}/issues/comments/{fake.comments(REPO)[0].id}")
    assert set(comment) >= set(fixture("api/issues.create-comment.json"))
    pull = keys(f"/repos/{REPO}/pulls/2")
    assert set(pull) == set(fixture("api/pulls.create.json"))
    assert set(pull["head"]["repo"]) == set(fixture("api/pulls.create.json")["head"]["repo"])
    pulls = keys(f"/repos/{REPO}/pulls")
    assert set(pulls[0]) < set(pull) and "mergeable" not in pulls[0]
    perm = keys(f"/repos/{REPO}/collaborators/alice/permission")
    assert set(perm) == set(fixture("api/repos.get-collaborator-permission-level.admin.json"))
    assert perm["user"]["permissions"] == {"admin": True, "maintain": True, "push": True, "triage": True, "pull": True}


# ------------------------------------------------------------------------------- actions


def test_workflow_run_jobs_and_logs(fake, gh):
    pr = fake.add_pull(REPO, head="autofix/1")
    run = fake.add_workflow_run(REPO, head_branch="autofix/1", event="pull_request", pull_requests=[pr.number])
    fake.add_job(run, "lint", conclusion="success", log="all good\n")
    fake.add_job(run, "test", steps=[("Set up job", "success"), ("pytest", "failure")], log="E   assert 1 == 2\n")

    wr = gh.get_repo(REPO).get_workflow_run(run.id)
    assert (wr.conclusion, wr.head_branch, wr.head_sha, wr.event) == (
        "failure",
        "autofix/1",
        fake.repo(REPO).branches["autofix/1"],
        "pull_request",
    )
    assert [p.number for p in wr.pull_requests] == [pr.number]
    jobs = list(wr.jobs())
    assert [(j.name, j.conclusion) for j in jobs] == [("lint", "success"), ("test", "failure")]
    assert [(s.name, s.conclusion) for s in jobs[1].steps] == [("Set up job", "success"), ("pytest", "failure")]

    location = jobs[1].logs_url()  # PyGithub reads the 302 Location
    assert location.startswith(fake.root_url + "/_fake/logs/jobs/")
    with urllib.request.urlopen(location) as resp:  # like the real signed URL: no auth needed
        assert resp.read().decode() == "E   assert 1 == 2\n"

    fake.log_redirect = False
    status, headers, text = raw(fake, "GET", f"/repos/{REPO}/actions/jobs/{jobs[0].id}/logs")
    assert (status, text) == (200, "all good\n") and headers["Content-Type"].startswith("text/plain")

    assert [r.id for r in gh.get_repo(REPO).get_workflow_runs(branch="autofix/1")] == [run.id]


# ------------------------------------------------------------------------------- server lifecycle


def test_concurrent_writes_get_distinct_numbers(fake):
    repo = fake.client().get_repo(REPO)
    threads = [threading.Thread(target=repo.create_issue, args=(f"t{n}",)) for n in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(i.number for i in fake.issues(REPO)) == list(range(1, 13))


def test_close_is_clean():
    before = set(threading.enumerate())
    with FakeGitHub() as fake:
        fake.add_repo("me/proj")
        fake.client().get_repo("me/proj")
        port = fake.port
    assert set(threading.enumerate()) <= before  # server and handler threads are gone
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=1)


# ------------------------------------------------------------------------------- a GITHUB_TOKEN's permissions


def test_permissions_refuse_what_the_token_was_not_given_with_github_s_body():
    with FakeGitHub(permissions={"pull-requests": "write", "actions": "read"}) as fake:
        fake.add_repo(REPO, private=True)
        fake.add_issue(REPO, "a bug")
        fake.add_pull(REPO, head="fix")  # #2
        status, _, body = raw(fake, "GET", f"/repos/{REPO}/issues/2")
        assert (status, body) == (403, {
            "message": "Resource not accessible by integration",
            "documentation_url": "https://docs.github.com/rest/issues/issues#get-an-issue",
            "status": "403",
        })  # fmt: skip
        # A pull request's comments go with `pull-requests`; an issue's with `issues`.
        assert raw(fake, "POST", f"/repos/{REPO}/issues/2/comments", {"body": "hi"})[0] == 201
        assert raw(fake, "POST", f"/repos/{REPO}/issues/1/comments", {"body": "hi"})[0] == 403
        comment = fake.comments(REPO, 2)[0]
        assert raw(fake, "PATCH", f"/repos/{REPO}/issues/comments/{comment.id}", {"body": "edited"})[0] == 200
        assert raw(fake, "GET", f"/repos/{REPO}/pulls")[0] == 200
        assert raw(fake, "GET", f"/repos/{REPO}")[0] == 200  # metadata comes with every token
        assert raw(fake, "GET", f"/repos/{REPO}/collaborators/octocat/permission")[0] == 200
        assert raw(fake, "GET", "/user")[0] == 403  # an installation token is no user
        fake.permissions = {"pull-requests": "read"}
        assert raw(fake, "POST", f"/repos/{REPO}/pulls", {"head": "x", "base": "main", "title": "t"})[0] == 403
        fake.permissions = "read-all"
        assert [
            raw(fake, "GET", f"/repos/{REPO}/issues/1")[0],
            raw(fake, "PATCH", f"/repos/{REPO}/issues/1", {"title": "t"})[0],
        ] == [200, 403]


def test_reads_of_a_public_repository_need_no_permission():
    with FakeGitHub(permissions={}) as fake:
        fake.add_repo(REPO)
        fake.add_issue(REPO, "a bug")
        assert raw(fake, "GET", f"/repos/{REPO}/issues/1")[0] == 200
        assert raw(fake, "POST", f"/repos/{REPO}/issues/1/comments", {"body": "hi"})[0] == 403


def test_workflow_permissions_reads_a_job_s_or_the_workflow_s(tmp_path):
    path = tmp_path / "w.yml"
    path.write_text(
        "on: push\npermissions:\n  issues: write\n"
        "jobs:\n  a:\n    runs-on: x\n    permissions: {}\n  b:\n    runs-on: x\n"
    )
    assert workflow_permissions(path, "a") == {} and workflow_permissions(path, "b") == {"issues": "write"}
    path.write_text("on: push\njobs:\n  a:\n    runs-on: x\n")
    with pytest.raises(ValueError, match="no `permissions:`"):
        workflow_permissions(path, "a")


# ------------------------------------------------------------------------------- faults


def test_reset_next_drops_the_connection_without_an_answer(fake, gh):
    fake.reset_next("GET", rf"^/repos/{REPO}$")
    with pytest.raises(requests.exceptions.ConnectionError):
        gh.get_repo(REPO)
    assert gh.get_repo(REPO).full_name == REPO
    assert [r.status for r in fake.requests] == [0, 200]


def test_truncate_next_makes_the_change_but_cuts_the_answer(fake, gh):
    repo = gh.get_repo(REPO)
    fake.truncate_next("POST", r"/issues$")
    with pytest.raises(requests.exceptions.ChunkedEncodingError):
        repo.create_issue("made anyway")
    assert [i.title for i in fake.issues(REPO)] == ["made anyway"]


def test_429_with_and_without_retry_after(fake, gh):
    fake.fail_next("GET", rf"^/repos/{REPO}$", 429, headers={"Retry-After": "7"})
    fake.fail_next("GET", rf"^/repos/{REPO}$", 429)
    for retry_after in ("7", None):
        with pytest.raises(GithubException) as exc:
            gh.get_repo(REPO)
        assert (exc.value.status, exc.value.headers.get("retry-after")) == (429, retry_after)


def test_a_repository_without_drafts_refuses_a_draft(fake, gh):
    fake.repo(REPO).drafts = False
    with pytest.raises(GithubException) as exc:
        gh.get_repo(REPO).create_pull(base="main", head="fix", title="t", draft=True)
    assert exc.value.data["errors"] == [
        {
            "resource": "PullRequest",
            "code": "custom",
            "message": "Draft pull requests are not supported in this repository.",
        }
    ]
    assert gh.get_repo(REPO).create_pull(base="main", head="fix", title="t").draft is False


def test_a_log_given_as_chunks_is_streamed(fake, gh):
    run = fake.add_workflow_run(REPO)
    fake.add_job(run, "test", log=lambda: (f"line {n}\n".encode() for n in range(3)))
    [job] = gh.get_repo(REPO).get_workflow_run(run.id).jobs()
    with urllib.request.urlopen(job.logs_url()) as resp:
        assert resp.headers["Content-Length"] is None and resp.read() == b"line 0\nline 1\nline 2\n"


# ------------------------------------------------------------------------------- reactions


def test_a_reaction_is_made_once_per_person_and_content(fake, gh):
    fake.add_issue(REPO, "a bug")
    comment = fake.add_comment(REPO, 1, "/autofix")
    status, _, made = raw(fake, "POST", f"/repos/{REPO}/issues/1/reactions", {"content": "eyes"})
    assert status == 201 and set(made) == {"id", "node_id", "user", "content", "created_at"}
    assert (made["content"], made["user"]["login"]) == ("eyes", "github-actions[bot]")
    status, _, again = raw(fake, "POST", f"/repos/{REPO}/issues/1/reactions", {"content": "eyes"})
    assert (status, again["id"]) == (200, made["id"])  # GitHub: 200 means it was there already
    assert raw(fake, "POST", f"/repos/{REPO}/issues/1/reactions", {"content": "party"})[0] == 422
    assert gh.get_repo(REPO).get_issue(1).get_comment(comment.id).create_reaction("heart").content == "heart"
    assert [(x.content, x.comment_id) for x in fake.reactions(REPO, 1)] == [("eyes", None)]
    assert [(x.content, x.comment_id) for x in fake.reactions(REPO, 1, comment.id)] == [("heart", comment.id)]
    counts = raw(fake, "GET", f"/repos/{REPO}/issues/1")[2]["reactions"]
    assert (counts["eyes"], counts["heart"], counts["total_count"]) == (1, 0, 1)


def test_a_reaction_needs_the_permission_of_what_it_is_on():
    with FakeGitHub(permissions={"issues": "write"}) as fake:
        fake.add_repo(REPO, private=True)
        fake.add_issue(REPO, "a bug")
        fake.add_pull(REPO, head="fix")  # #2
        comments = [fake.add_comment(REPO, n, "/autofix") for n in (1, 2)]

        def answers() -> list[int]:
            on_items = [
                raw(fake, "POST", f"/repos/{REPO}/issues/{n}/reactions", {"content": "eyes"})[0] for n in (1, 2)
            ]
            on_comments = [
                raw(fake, "POST", f"/repos/{REPO}/issues/comments/{c.id}/reactions", {"content": "eyes"})[0]
                for c in comments
            ]
            return on_items + on_comments

        assert answers() == [201, 403, 201, 403]  # an issue's with `issues`, a pull request's with `pull-requests`
        fake.permissions = {"pull-requests": "write"}
        assert answers() == [403, 201, 403, 201]


# ------------------------------------------------------------------------------- the git database


def git(cwd, *args):
    env = {"PATH": os.environ["PATH"], "HOME": str(cwd), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    env |= {
        f"GIT_{who}_{what}": value
        for who in ("AUTHOR", "COMMITTER")
        for what, value in (("NAME", "Mona"), ("EMAIL", "m@x"))
    }
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture
def pushed(fake, tmp_path):
    """A work tree whose one commit was pushed: the fake's git database reads it from a bare copy."""
    work = tmp_path / "work"
    (work / "dir").mkdir(parents=True)
    (work / "a.txt").write_text("a\n")
    (work / "dir" / "b.txt").write_text("b\n")
    (work / "run.sh").write_text("#!/bin/sh\n")
    (work / "run.sh").chmod(0o755)
    (work / "link").symlink_to("a.txt")
    git(work, "init", "-q", "-b", "main")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "base")
    git(tmp_path, "clone", "-q", "--bare", str(work), str(tmp_path / "bare.git"))
    fake.repo(REPO).git.pushed = tmp_path / "bare.git"
    return work


def test_the_git_database_builds_the_tree_git_builds_and_signs_a_bot_s_commit(fake, pushed):
    api, base, base_tree = (
        f"/repos/{REPO}/git",
        git(pushed, "rev-parse", "HEAD"),
        git(pushed, "rev-parse", "HEAD^{tree}"),
    )
    binary = b"\x00bin\xff"
    status, _, blob = raw(
        fake, "POST", f"{api}/blobs", {"content": base64.b64encode(binary).decode(), "encoding": "base64"}
    )
    assert status == 201 and set(blob) == {"url", "sha"}
    status, _, tree = raw(fake, "POST", f"{api}/trees", {"base_tree": base_tree, "tree": [
        {"path": "dir/b.txt", "mode": "100644", "type": "blob", "content": "b, changed\n"},
        {"path": "new/deep/c.bin", "mode": "100755", "type": "blob", "sha": blob["sha"]},
        {"path": "a.txt", "mode": "100644", "type": "blob", "sha": None},
    ]})  # fmt: skip
    (pushed / "dir" / "b.txt").write_text("b, changed\n")
    (pushed / "new" / "deep").mkdir(parents=True)
    (pushed / "new" / "deep" / "c.bin").write_bytes(binary)
    (pushed / "new" / "deep" / "c.bin").chmod(0o755)
    (pushed / "a.txt").unlink()
    git(pushed, "add", "-A")
    assert (status, tree["sha"]) == (201, git(pushed, "write-tree"))  # the same change, made by git
    assert [(e["path"], e["mode"], e["type"]) for e in tree["tree"]] == [
        ("dir", "040000", "tree"), ("link", "120000", "blob"), ("new", "040000", "tree"), ("run.sh", "100755", "blob"),
    ]  # fmt: skip
    listed = raw(fake, "GET", f"{api}/trees/{tree['sha']}?recursive=1")[2]["tree"]
    assert [e["path"] for e in listed] == ["dir", "dir/b.txt", "link", "new", "new/deep", "new/deep/c.bin", "run.sh"]
    assert base64.b64decode(raw(fake, "GET", f"{api}/blobs/{blob['sha']}")[2]["content"]) == binary
    assert raw(fake, "POST", f"{api}/trees", {"base_tree": base_tree, "tree": [
        {"path": "gone.txt", "mode": "100644", "type": "blob", "sha": None},
    ]})[0] == 422  # fmt: skip

    status, _, commit = raw(
        fake, "POST", f"{api}/commits", {"message": "fix\n", "tree": tree["sha"], "parents": [base]}
    )
    assert status == 201
    assert (commit["verification"]["verified"], commit["verification"]["reason"]) == (True, "valid")
    assert (commit["author"]["name"], commit["tree"]["sha"]) == ("github-actions[bot]", tree["sha"])
    assert [p["sha"] for p in commit["parents"]] == [base]
    assert raw(fake, "GET", f"{api}/commits/{commit['sha']}")[2] == commit

    assert raw(fake, "GET", f"{api}/ref/heads/autofix/fix")[0] == 404
    status, _, ref = raw(fake, "POST", f"{api}/refs", {"ref": "refs/heads/autofix/fix", "sha": commit["sha"]})
    assert (status, ref["ref"], ref["object"]["sha"]) == (201, "refs/heads/autofix/fix", commit["sha"])
    assert raw(fake, "GET", f"{api}/ref/heads/autofix/fix")[2] == ref
    again = raw(fake, "POST", f"{api}/refs", {"ref": "refs/heads/autofix/fix", "sha": commit["sha"]})
    assert (again[0], again[2]["message"]) == (422, "Reference already exists")
    back = raw(fake, "PATCH", f"{api}/refs/heads/autofix/fix", {"sha": base})
    assert (back[0], back[2]["message"]) == (422, "Update is not a fast forward")
    assert raw(fake, "PATCH", f"{api}/refs/heads/autofix/fix", {"sha": base, "force": True})[0] == 200
    assert fake.repo(REPO).branches["autofix/fix"] == base


def test_a_commit_naming_its_author_or_made_by_a_person_is_not_signed(fake, pushed):
    api, tree = f"/repos/{REPO}/git", git(pushed, "rev-parse", "HEAD^{tree}")
    authored = {"message": "m", "tree": tree, "author": {"name": "Mona", "email": "m@x"}}
    verification = raw(fake, "POST", f"{api}/commits", authored)[2]["verification"]
    assert (verification["verified"], verification["reason"]) == (False, "unsigned")
    fake.login = "mona"  # a personal access token
    verification = raw(fake, "POST", f"{api}/commits", {"message": "m", "tree": tree})[2]["verification"]
    assert (verification["verified"], verification["reason"]) == (False, "unsigned")
    assert raw(fake, "POST", f"{api}/commits", {"message": "m", "tree": "0" * 40})[0] == 422


def test_the_git_database_needs_contents():
    with FakeGitHub(permissions={"contents": "read"}) as fake:
        fake.add_repo(REPO)
        assert raw(fake, "POST", f"/repos/{REPO}/git/blobs", {"content": "x"})[0] == 403
        fake.permissions = {"contents": "write"}
        assert raw(fake, "POST", f"/repos/{REPO}/git/blobs", {"content": "x"})[0] == 201
