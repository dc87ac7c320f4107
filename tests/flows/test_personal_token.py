"""A personal access token as `github-token`: autofix acts as that person, a maintainer (here the
repository's owner, Codertocat, the sender of the recorded payloads). Their label and their
`/autofix` start autofix like anyone's; only a comment autofix wrote itself (by that account,
carrying its marker) is ignored. Real payloads, the real PyGithub against the fake GitHub (whose
`GET /user` answers the token's login, as GitHub does for a personal token), the real flow."""

from action_world import ISSUE_BODY, REPO, act, labeled, payload
from conftest import RIGHT

MAINTAINER = "Codertocat"


def commented(body: str) -> dict:
    """The recorded `issue_comment` `created` payload, on the quick start's issue."""
    event = payload("issue_comment.created")
    event["comment"]["body"] = body
    event["issue"].update(number=1, title="unique_items loses the order", body=ISSUE_BODY)
    assert event["sender"]["login"] == MAINTAINER and event["sender"]["type"] == "User"
    return event


def test_a_label_added_by_the_token_s_own_user_starts_autofix(world, github, capsys):
    github.login = MAINTAINER  # the token is the maintainer's own
    world.event("issues", labeled(sender=MAINTAINER))
    code, out, openai = act(capsys, world, [RIGHT])
    assert code == 0, "\n".join(out)
    assert f"autofix: issue #1, labeled 'autofix' by @{MAINTAINER} (admin)" in out
    assert [p.head_ref for p in github.pulls(REPO)] == ["autofix/issue-1"]


def test_an_autofix_comment_by_the_token_s_own_user_starts_autofix(world, github, capsys):
    github.login = MAINTAINER
    world.event("issue_comment", commented("/autofix keep the order"))
    code, out, openai = act(capsys, world, [RIGHT])
    assert code == 0, "\n".join(out)
    assert f"autofix: issue #1, /autofix by @{MAINTAINER} (admin)" in out
    assert "keep the order" in openai.prompts()[0]
    assert [p.head_ref for p in github.pulls(REPO)] == ["autofix/issue-1"]


def test_a_comment_autofix_wrote_itself_starts_nothing(world, github, capsys):
    github.login = MAINTAINER
    world.event("issue_comment", commented("/autofix tried 3 times\n\n<!-- autofix:issue-1 -->"))
    code, out, openai = act(capsys, world, [RIGHT])
    assert (code, out[-1]) == (0, f"autofix: ignored: autofix's own comment (its marker, by its account @{MAINTAINER})")
    assert openai.requests == [] and github.writes() == []


def test_a_marked_comment_by_someone_else_is_still_a_command(world, github, capsys):
    """The marker alone proves nothing: anyone can type it. Only autofix's account's comment is its own."""
    world.event("issue_comment", commented("/autofix\n\n<!-- autofix:issue-1 -->"))  # GITHUB_TOKEN: the bot acts
    code, out, openai = act(capsys, world, [RIGHT])
    assert code == 0, "\n".join(out)
    assert [p.head_ref for p in github.pulls(REPO)] == ["autofix/issue-1"]
