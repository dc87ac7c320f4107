"""A fork's pull request never runs in a job whose token can write: `/autofix` on one (in the
issues workflow) and a red-CI repair of one outside the forks example's read-only shape
(`publish: true`) get one comment pointing at that shape, and nothing of the fork is fetched,
checked out or shown to a model."""

import subprocess

import pytest
from action_world import REPO, act
from test_ci_repair import BROKEN_ADD, FIX_ADD, open_pull, run_event, world  # noqa: F401 (world: the red-CI repository)
from test_comments import commented

from bot.github.red_ci.repair import FORKS_EXAMPLE


def assert_nothing_of_the_fork_ran(world, pull, openai):
    assert openai.prompts() == []
    # The fork's head lives only in origin's refs/pull/<n>/head: the job's clone never got it.
    known = subprocess.run(["git", "cat-file", "-e", f"{pull.head_sha}^{{commit}}"], cwd=world.workspace, check=False)
    assert known.returncode != 0
    assert world.git("for-each-ref", "refs/autofix", cwd=world.workspace) == ""


def assert_refused(world, github, pull, out):
    [comment] = github.comments(REPO, pull.number)
    assert comment.body.startswith(f"<!-- autofix:pr-{pull.number} -->\n\nautofix did not run: this pull request ")
    assert f"`{FORKS_EXAMPLE}`" in comment.body and '(docs/action.md, "Red CI repair", *Forks, safely*)' in comment.body
    assert f"::warning::pull request #{pull.number} comes from the fork contributor/Hello-World" in "\n".join(out)
    assert world.branches() == ["master"] and [p.number for p in github.pulls(REPO)] == [pull.number]


@pytest.mark.parametrize("body", ["/autofix", "/autofix add a subtract function"])
def test_autofix_by_a_writer_on_a_fork_s_pull_request_is_refused_and_runs_nothing(body, world, github, capsys):
    pull, _ = open_pull(world, github, {"calc.py": BROKEN_ADD}, fork=True)
    world.event("issue_comment", commented(body, number=pull.number, pull=True))
    code, out, openai = act(capsys, world, [FIX_ADD])
    assert code == 0, "\n".join(out)
    assert f"autofix: pull request #{pull.number}, /autofix by @Codertocat (admin)" in out
    assert_refused(world, github, pull, out)
    assert_nothing_of_the_fork_ran(world, pull, openai)


def test_a_red_ci_repair_of_a_fork_with_publish_true_is_refused_and_runs_nothing(world, github, capsys):
    pull, run = open_pull(world, github, {"calc.py": BROKEN_ADD}, fork=True)
    world.event("workflow_run", run_event(github, pull, run, fork=True))
    code, out, openai = act(capsys, world, [FIX_ADD])
    assert code == 0, "\n".join(out)
    assert_refused(world, github, pull, out)
    assert_nothing_of_the_fork_ran(world, pull, openai)
