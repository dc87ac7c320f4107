"""Anyone can open an issue; only the repository's writers set the tests that judge its code.
End to end through `autofix action`, like test_action.py."""

from action_world import REPO, act, labeled
from conftest import WRONG
from suite_env import PYTHON as SUITE_PYTHON

TEST_UNIQUE = (
    "from unique import unique_items\n\n\ndef test_order():\n    assert unique_items([3, 1, 3, 2]) == [3, 1, 2]\n"
)
COMMAND = f"{SUITE_PYTHON} -m pytest -q tests/test_unique.py"
CONFIG = f"tests:\n  command: {COMMAND}\nmax_attempts: 2\n"
GATE = '```yaml\ntarget: unique.py\ntests:\n  command: "true"\nmax_attempts: 50\n```\n'


def by(author: str, body: str) -> dict:
    """An issue opened by `author`, labeled by the repository's owner (admin)."""
    event = labeled(body=body)
    event["issue"]["user"]["login"] = author
    return event


def repository(world) -> None:
    world.commit_to_origin({".github/autofix.yml": CONFIG, "tests/test_unique.py": TEST_UNIQUE})


def test_a_read_only_author_sets_neither_the_tests_nor_more_attempts(world, github, capsys):
    repository(world)
    github.set_permission(REPO, "outsider", "read")
    world.event("issues", by("outsider", f"The order is lost.\n\n{GATE}"))
    code, out, openai = act(capsys, world, [WRONG, WRONG])
    assert code == 1
    assert (
        f"autofix: issue #1: the yaml block's tests were ignored: its author @outsider has read permission on {REPO}; "
        "the tests of .github/autofix.yml judge the code"
    ) in out
    assert f"/repos/{REPO}/collaborators/outsider/permission" in [r.path for r in github.requests]
    assert len(openai.requests) == 2  # the repository's max_attempts, not the 50
    [comment] = github.comments(REPO, 1)
    assert f"❌ autofix could not write `unique.py` for #1: `{COMMAND}` failed on all 2 attempts" in comment.body
    assert f"\n\n**Judged by:** `{COMMAND}`.\n\n_No branch was pushed." in comment.body
    assert world.branches() == ["master"] and github.pulls(REPO) == []


def test_a_writers_tests_count_and_the_pull_request_names_them(world, github, capsys):
    repository(world)
    world.event("issues", by("Codertocat", GATE))  # the labeler, who may write: asked once
    code, out, openai = act(capsys, world, [WRONG])
    assert code == 0 and len(openai.requests) == 1
    assert [r.path for r in github.requests if r.path.endswith("/permission")] == [
        f"/repos/{REPO}/collaborators/Codertocat/permission"
    ]
    [pull] = github.pulls(REPO)
    assert " passed on attempt 1 of 2." in pull.body  # still at most the repository's attempts
    # a reviewer sees what "passed" meant, then where to look
    assert " s\n\n**Judged by:** `true`.\n\n### For the reviewer\n\n" in pull.body


def test_a_block_hidden_in_an_html_comment_does_not_count(world, github, capsys):
    repository(world)
    body = f"The order is lost.\n<!--\n{GATE}-->\n```yaml\ntarget: unique.py\nmax_attempts: 1\n```\n"
    world.event("issues", by("Codertocat", body))  # a writer: the hidden tests would count if the block did
    code, out, openai = act(capsys, world, [WRONG])
    assert code == 1 and len(openai.requests) == 1
    assert f"**Judged by:** `{COMMAND}`." in github.comments(REPO, 1)[0].body
