"""Where autofix checks out a pull request's code, as runners really give it: an older runner
(GitHub Enterprise Server's, a self-hosted one) hands a container action the host's RUNNER_TEMP
without mounting it, and a folder can refuse new folders even to root. The first is no problem;
the second stops the task with one comment where it was asked for and one error line, never a
traceback. The real flows, as in test_ci_repair.py."""

import re
import tempfile
from pathlib import Path

from action_world import REPO, act, labeled
from test_ci_repair import BROKEN_ADD, FIX_ADD, open_pull, run_event, world  # noqa: F401 (world: the red-CI repository)

# procfs makes no folder for anyone, root included: mkdir there fails with ENOENT.
REFUSES_FOLDERS = "/proc"


def test_a_runner_temp_the_container_lacks_falls_back_to_the_system_s_temporary_folder(world, github, capsys, tmp_path):
    missing = tmp_path / "home" / "runner" / "work" / "_temp"  # the host's path, not mounted
    world.monkeypatch.setenv("RUNNER_TEMP", str(missing))
    pull, run = open_pull(world, github, {"calc.py": BROKEN_ADD})
    world.event("workflow_run", run_event(github, pull, run))
    before = set(Path(tempfile.gettempdir()).glob(f"autofix-pr-{pull.number}-*"))
    code, out, openai = act(capsys, world, [FIX_ADD])
    assert code == 0, "\n".join(out)
    assert "autofix: pushed autofix/pr-2" in out and out[-1] == "autofix: comment on #2 created"
    assert not missing.exists()
    assert set(Path(tempfile.gettempdir()).glob(f"autofix-pr-{pull.number}-*")) == before  # removed after


def test_a_checkout_the_file_system_refuses_is_one_comment_on_the_pull_request(world, github, capsys):
    world.monkeypatch.setenv("RUNNER_TEMP", REFUSES_FOLDERS)
    pull, run = open_pull(world, github, {"calc.py": BROKEN_ADD})
    world.event("workflow_run", run_event(github, pull, run))
    code, out, openai = act(capsys, world, [FIX_ADD])
    assert code == 2
    assert re.fullmatch(r"::error::/proc/autofix-pr-2-\w{8}: No such file or directory", out[-1]), out[-1]
    [comment] = github.comments(REPO)
    assert comment.issue_number == pull.number
    headline, error = comment.body.split("\n\n")[1:3]
    assert headline == "❌ autofix stopped with an error while repairing this pull request's tests:"
    assert re.fullmatch(r"```text\n/proc/autofix-pr-2-\w{8}: No such file or directory\n```", error), error
    assert openai.requests == [] and world.branches() == ["feature", "master"]


def test_a_free_form_issue_whose_checkout_is_refused_gets_one_comment(world, github, capsys):
    world.monkeypatch.setenv("RUNNER_TEMP", REFUSES_FOLDERS)
    world.event("issues", labeled(body="`total([1, 2])` returns the wrong sum."))  # no yaml block: free-form
    code, out, openai = act(capsys, world, {})
    assert code == 2
    assert re.fullmatch(r"::error::/proc/autofix-issue-1-\w{8}: No such file or directory", out[-1]), out[-1]
    [comment] = github.comments(REPO)
    assert comment.issue_number == 1
    told = r"autofix stopped with an error:\n\n```text\n/proc/autofix-issue-1-\w{8}: No such file or directory\n```"
    assert re.search(told, comment.body), comment.body
    assert openai.requests == [] and world.branches() == ["master"]
