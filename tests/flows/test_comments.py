"""`/autofix` in a comment (the `issue_comment` event, from the recorded payload): a writer on an
issue starts the issue's flow with the comment as instructions; on a pull request, with no text
the red-CI repair, with text that change, proven and proposed into the pull request's branch.
Readers, bots and edited comments write nothing."""

import pytest
from action_world import REPO, act, payload
from fake_openai import Reply
from test_ci_repair import BROKEN_ADD, FIX_ADD, open_pull, repairing, world  # noqa: F401 (world: the red-CI repository)
from test_freeform import ISSUE, fixed_at_once, issue, shop  # noqa: F401 (shop: the 58-module repository)


def commented(body: str, number: int = 1, sender: str = "Codertocat", pull: bool = False, action: str = "created"):
    event = payload("issue_comment.created")
    event["action"] = action
    event["comment"]["body"] = body
    event["sender"].update(login=sender, type="Bot" if sender.endswith("[bot]") else "User")
    event["issue"].update(number=number, title="parse_duration counts hours as minutes", body=ISSUE)
    if pull:  # GitHub marks a pull request's comments so; the fixture's issue is a plain one
        event["issue"]["pull_request"] = {"url": f"https://api.github.com/repos/{REPO}/pulls/{number}"}
    return event


def test_autofix_on_an_issue_runs_its_flow_with_the_comment_as_instructions(shop, github, capsys):
    shop.event("issue_comment", commented("/autofix keep the function signature as it is"))
    script = fixed_at_once()
    code, out, openai = act(capsys, shop, script)
    assert code == 0, "\n".join(out)
    assert "autofix: issue #1, /autofix by @Codertocat (admin)" in out
    asked = "Instructions from @Codertocat, who asked autofix:\n\nkeep the function signature as it is"
    assert all(asked in prompt for prompt in openai.prompts())
    [pull] = github.pulls(REPO)
    assert pull.head_ref == "autofix/issue-1" and "Fixes #1" in pull.body


def test_autofix_alone_on_a_pull_request_repairs_its_red_ci(world, github, capsys):
    pull, _ = open_pull(world, github, {"calc.py": BROKEN_ADD})
    world.event("issue_comment", commented("/autofix", number=pull.number, pull=True))
    code, out, openai = act(capsys, world, [FIX_ADD])
    assert code == 0, "\n".join(out)
    assert f"autofix: pull request #{pull.number}, /autofix by @Codertocat (admin)" in out
    assert openai.stages() == ["repair"]
    assert [p.head_ref for p in github.pulls(REPO) if p.number != pull.number] == [f"autofix/pr-{pull.number}"]


QUIET_TEXT = 'def shout(words):\n    """Say it loud."""\n    return words.upper() + "!"\n'


def test_autofix_with_a_request_on_a_pull_request_proposes_that_change_into_its_branch(world, github, capsys):
    pull, _ = open_pull(world, github, {"text.py": QUIET_TEXT})
    world.event(
        "issue_comment", commented("/autofix add whisper(words): lower case, then '...'", pull.number, pull=True)
    )
    reproduces = (
        "```python\ndef test_whisper():\n    from text import whisper\n    assert whisper('HI') == 'hi...'\n```"
    )
    add = 'text.py\n<<<<<<< SEARCH\n    return words.upper() + "!"\n=======\n    return words.upper() + "!"\n\n\ndef whisper(words):\n    return words.lower() + "..."\n>>>>>>> REPLACE\n'  # noqa: E501
    script = {"localize": [Reply("```\ntext.py\n```")], "reproduce": [Reply(reproduces)], "repair": [Reply(add)]}
    code, out, openai = act(capsys, world, script)
    assert code == 0, "\n".join(out)
    assert f"autofix: reproduce: tests.autofix.test_pr_{pull.number}::test_whisper fail on the current code" in out
    [proposed] = [p for p in github.pulls(REPO) if p.number != pull.number]
    assert (proposed.head_ref, proposed.base_ref) == (f"autofix/pr-{pull.number}-change", "feature")
    proof = "reproduction test: failed before, passes after, and fails 1 of 1 mutant of the fix; suite: 5 passed"
    assert f"**Proof:** {proof}, 0 new failures" in proposed.body
    changed = world.git("diff", "--name-only", "feature", proposed.head_ref, cwd=world.origin).splitlines()
    assert changed == ["tests/autofix/test_pr_2.py", "text.py"]
    [comment] = github.comments(REPO, pull.number)
    assert comment.body.startswith(
        f"<!-- autofix:pr-change-{pull.number} -->\n\n"
        f"✅ autofix made the change asked for in pull request #{pull.number}: "
    )
    assert f"autofix proposes #{proposed.number} into this branch: review and merge it." in comment.body


def test_a_requested_change_that_breaks_a_passing_test_is_not_proposed(world, github, capsys):
    repairing(world)
    pull, _ = open_pull(world, github, {"text.py": QUIET_TEXT})
    world.event(
        "issue_comment", commented("/autofix shout() should end with three exclamation marks", pull.number, pull=True)
    )
    reproduces = "```python\ndef test_three():\n    from text import shout\n    assert shout('hi') == 'HI!!!'\n```"
    change = 'text.py\n<<<<<<< SEARCH\n    return words.upper() + "!"\n=======\n    return words.upper() + "!!!"\n>>>>>>> REPLACE\n'  # noqa: E501
    edit_old_test = 'tests/test_text.py\n<<<<<<< SEARCH\n    assert shout("hi") == "HI!"\n=======\n    assert shout("hi") == "HI!!!"\n>>>>>>> REPLACE\n'  # noqa: E501
    script = {
        "localize": [Reply("```\ntext.py\n```")],
        "reproduce": [Reply(reproduces)],
        "repair": [Reply(change), Reply(edit_old_test), Reply(edit_old_test)],
    }
    code, out, openai = act(capsys, world, script)
    assert code == 1, "\n".join(out)
    after_change, after_test_edit = openai.prompts()[3:5]
    assert "- tests.test_text::test_shout: passed before the change, failed now" in after_change
    assert "block 1 (tests/test_text.py): a protected path" in after_test_edit
    assert [p.number for p in github.pulls(REPO)] == [pull.number]
    [comment] = github.comments(REPO, pull.number)
    assert comment.body.startswith(
        f"<!-- autofix:pr-change-{pull.number} -->\n\n❌ autofix reproduced the bug in pull request #{pull.number} but "
        "could not fix it: no attempt made `tests/autofix/test_pr_2.py` pass with every test that passed before still "
        "passing, on all 3 attempts."
    )


@pytest.mark.parametrize(
    ("body", "sender", "action", "why"),
    [
        ("/autofix", "a-reader", "created", "ignored: @a-reader has read permission on Codertocat/Hello-World"),
        ("/autofix", "dependabot[bot]", "created", "ignored: commented by the bot @dependabot[bot]"),
        ("/autofix", "github-actions[bot]", "created", "ignored: commented by the bot @github-actions[bot]"),
        ("/autofix", "Codertocat", "edited", "ignored: issue_comment event 'edited': only a new comment starts"),
        ("please /autofix this", "Codertocat", "created", "ignored: the comment doesn't start with /autofix"),
        ("/autofixes", "Codertocat", "created", "ignored: the comment doesn't start with /autofix"),
    ],
)
def test_nothing_is_written_for_a_comment_that_may_not_start_autofix(shop, github, capsys, body, sender, action, why):
    shop.event("issue_comment", commented(body, sender=sender, action=action))
    code, out, openai = act(capsys, shop, {})
    assert code == 0 and out[-1].startswith(f"autofix: {why}")
    assert openai.requests == [] and github.writes() == []


# autofix's own account (a personal token's) and its own comments: test_personal_token.py.
