"""A push with a token other than the job's GITHUB_TOKEN starts the repository's workflows, with
their secrets, on autofix's branch: its pull request waits as a draft for a person, and says why."""

import pytest
from action_world import REPO, TOKEN, act, labeled
from conftest import RIGHT

from bot.github.publish import HELD

PERSONAL = "ghp_plantedPersonalToken0123456789"  # the job's GITHUB_TOKEN stays action_world's TOKEN


def opened(world, github, capsys):
    world.event("issues", labeled())
    assert act(capsys, world, [RIGHT])[0] == 0
    (pull,) = github.pulls(REPO)
    return pull


def test_another_token_than_github_token_opens_a_draft_that_says_why(world, github, capsys):
    world.input("github-token", PERSONAL)
    pull = opened(world, github, capsys)
    assert pull.draft is True
    assert HELD in pull.body and TOKEN not in pull.body


def test_github_token_opens_a_ready_pull_request(world, github, capsys):
    pull = opened(world, github, capsys)
    assert pull.draft is False
    assert HELD not in pull.body


@pytest.mark.parametrize("where", ["input", "config"])
def test_draft_false_opts_out_with_another_token(where, world, github, capsys):
    world.input("github-token", PERSONAL)
    if where == "input":
        world.input("draft", "false")
    else:
        world.commit_to_origin({".github/autofix.yml": "draft: false\n"})
    pull = opened(world, github, capsys)
    assert pull.draft is False
    assert HELD not in pull.body


def test_an_explicit_draft_with_github_token_says_nothing_of_tokens(world, github, capsys):
    world.commit_to_origin({".github/autofix.yml": "draft: true\n"})
    pull = opened(world, github, capsys)
    assert pull.draft is True
    assert HELD not in pull.body
