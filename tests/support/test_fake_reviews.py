"""The fake GitHub's reviews, review comments and review threads, through the real PyGithub (REST)
and its GraphQL requester: bodies with the recorded fixtures' fields, threads resolved by GraphQL,
replies joining their thread."""

import pytest
from fake_github import FakeGitHub

REPO = "octo-org/widgets"
THREADS = """query($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) { pullRequest(number: $number) {
    reviewThreads(first: 100) { nodes { id isResolved isOutdated path line
      comments(first: 100) { nodes { databaseId body diffHunk author { login } } } } } } } }"""
RESOLVE = (
    "mutation($input: ResolveReviewThreadInput!) { resolveReviewThread(input: $input) { thread { id isResolved } } }"
)


@pytest.fixture
def fake():
    with FakeGitHub(login="github-actions[bot]") as f:
        f.add_repo(REPO, owner_type="Organization")
        yield f
        assert f.errors == [], "the fake crashed while answering:\n" + "\n".join(f.errors)


HUNK = "@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b"


@pytest.fixture
def reviewed(fake):
    pull = fake.add_pull(REPO, head="autofix/issue-1", title="Fix it")
    review = fake.add_review(
        REPO, pull.number, user="mona", state="CHANGES_REQUESTED", body="Two things",
        comments=[
            {"path": "calc.py", "line": 2, "body": "also handle negatives", "diff_hunk": HUNK},
            {"path": "calc.py", "line": 5, "start_line": 4, "body": "```suggestion\n    return 0\n```"},
        ],
    )  # fmt: skip
    return pull, review


def graphql(gh, query, variables):
    return gh.requester.graphql_query(query, variables)[1]


def test_reviews_and_their_comments_read_through_pygithub(fake, reviewed):
    pull, review = reviewed
    pr = fake.client().get_repo(REPO).get_pull(pull.number)
    [got] = list(pr.get_reviews())
    assert (got.id, got.state, got.body, got.user.login) == (review.id, "CHANGES_REQUESTED", "Two things", "mona")
    assert pr.get_review(review.id).commit_id == pull.head_sha
    first, second = pr.get_review_comments()
    assert (first.path, first.line, first.original_line, first.start_line) == ("calc.py", 2, 2, None)
    assert first.diff_hunk.endswith("+    return a + b") and first.pull_request_review_id == review.id
    assert (second.start_line, second.line, second.in_reply_to_id) == (4, 5, None)
    of_review = list(pr.get_single_review_comments(review.id))
    assert [c.id for c in of_review] == [first.id, second.id]


def test_a_reply_through_the_rest_endpoint_joins_the_thread_of_the_comment(fake, reviewed):
    pull, _ = reviewed
    pr = fake.client().get_repo(REPO).get_pull(pull.number)
    first = pr.get_review_comments()[0]
    reply = pr.create_review_comment_reply(first.id, "done in abc123")
    assert (reply.in_reply_to_id, reply.body, reply.path) == (first.id, "done in abc123", "calc.py")
    assert reply.user.login == "github-actions[bot]"
    assert fake.thread_of(first.id).comments == [first.id, reply.id]
    assert [c.body for c in fake.review_comments(REPO, pull.number)][-1] == "done in abc123"
    with pytest.raises(Exception) as missing:
        pr.create_review_comment_reply(999, "nowhere")
    assert getattr(missing.value, "status", None) == 404


def test_review_threads_are_read_and_resolved_by_graphql(fake, reviewed):
    pull, _ = reviewed
    gh = fake.client()
    fake.review_threads(REPO, pull.number)[1].outdated = True
    data = graphql(gh, THREADS, {"owner": "octo-org", "name": "widgets", "number": pull.number})
    one, two = data["data"]["repository"]["pullRequest"]["reviewThreads"]["nodes"]
    assert (one["isResolved"], one["isOutdated"], one["path"], one["line"]) == (False, False, "calc.py", 2)
    assert one["comments"]["nodes"][0]["body"] == "also handle negatives"
    assert one["comments"]["nodes"][0]["author"] == {"login": "mona"}
    assert (two["isOutdated"], two["line"]) == (True, None)  # an outdated thread has no line on the diff any more
    done = graphql(gh, RESOLVE, {"input": {"threadId": one["id"]}})
    assert done["data"]["resolveReviewThread"]["thread"]["isResolved"] is True
    assert done["data"]["resolveReviewThread"]["thread"]["resolvedBy"] == {"login": "github-actions[bot]"}
    assert [t.resolved for t in fake.review_threads(REPO, pull.number)] == [True, False]


def test_an_unknown_thread_is_graphqls_not_found(fake, reviewed):
    with pytest.raises(Exception) as missing:
        graphql(fake.client(), RESOLVE, {"input": {"threadId": "PRRT_nothing"}})
    assert getattr(missing.value, "status", None) == 404


def test_a_token_without_pull_requests_write_may_not_resolve(reviewed):
    with FakeGitHub(permissions={"pull-requests": "read", "contents": "write"}) as fake:
        fake.add_repo(REPO, owner_type="Organization")
        pull = fake.add_pull(REPO, head="autofix/issue-1")
        fake.add_review(REPO, pull.number, user="mona", comments=[{"path": "a.py", "line": 1, "body": "x"}])
        [thread] = fake.review_threads(REPO, pull.number)
        with pytest.raises(Exception) as refused:
            graphql(fake.client(), RESOLVE, {"input": {"threadId": thread.node_id}})
        assert "Resource not accessible by integration" in str(refused.value)
        assert thread.resolved is False
