"""`.github/autofix.yml`, the action's inputs and the runner conventions of `autofix action`."""

import io
import os
import subprocess

import pytest
from action_world import REPO, act, labeled
from conftest import RIGHT, WRONG

from bot.cli import main
from bot.github.workflow import Workflow, write_outputs


def test_a_bad_config_file_fails_the_job_naming_the_line(world, github, capsys):
    world.commit_to_origin({".github/autofix.yml": "label: autofix\ntests:\n  comand: make test\n"})
    world.event("issues", labeled())
    code, out, openai = act(capsys, world)
    assert code == 2
    message = ".github/autofix.yml:3: tests.comand: unknown key"
    assert out[-1] == f"::error file=.github/autofix.yml,line=3::{message}"
    assert github.requests == [] and openai.requests == [] and github.comments(REPO) == []


@pytest.mark.parametrize(
    "text, message",
    [
        ("max_attempts: [1\n", ".github/autofix.yml:1:15: invalid YAML: this '[' is never closed"),
        ("max_attempts: many\n", ".github/autofix.yml:1: max_attempts: Input should be a valid integer"),
        ("api: soap\n", ".github/autofix.yml:1: api: Input should be 'responses' or 'chat'"),
        ("- a list\n", ".github/autofix.yml:1: the file must be a YAML mapping of keys to values"),
    ],
)
def test_config_errors_are_one_line_with_file_and_line(world, capsys, text, message):
    world.commit_to_origin({".github/autofix.yml": text})
    world.event("issues", labeled())
    code, out, _ = act(capsys, world)
    line = message.split(":")[1]
    assert (code, out[-1]) == (2, f"::error file=.github/autofix.yml,line={line}::{message}")


def test_the_config_file_sets_label_tests_and_attempts_and_inputs_win(world, github, capsys):
    world.commit_to_origin({
        ".github/autofix.yml": "label: fix-me\nmax_attempts: 1\ntests:\n  protect: [data]\nedit: ['src/*.py']\n",
        "src/__init__.py": "",
    })  # fmt: skip
    body = (
        "```yaml\ntarget: src/unique.py\ntests:\n  code: |\n"
        "    assert unique_items([3, 1, 3]) == [3, 1], 'order'\n```\n"
    )
    world.event("issues", labeled(label="autofix", body=body))
    assert act(capsys, world)[1][-1] == "autofix: ignored: label 'autofix' is not 'fix-me'"
    world.event("issues", labeled(label="fix-me", body=body))
    code, out, openai = act(capsys, world, [WRONG])
    assert code == 1 and len(openai.requests) == 1  # max_attempts 1, from the file
    world.input("max-attempts", "2")  # the input wins over the file
    code, out, openai = act(capsys, world, [WRONG, RIGHT])
    assert code == 0 and len(openai.requests) == 2
    assert world.file_at("autofix/issue-1", "src/unique.py").startswith("def unique_items")


def test_edit_globs_keep_the_model_away_from_other_paths(world, github, capsys):
    world.commit_to_origin({".github/autofix.yml": "edit: ['src/**']\n"})
    world.event("issues", labeled())
    code, out, openai = act(capsys, world)
    message = "issue #1, yaml block: target: unique.py is not among the paths `edit` allows in .github/autofix.yml"
    assert (code, out[-1]) == (2, f"::error::{message}")
    assert openai.requests == [] and message in github.comments(REPO, 1)[0].body


def test_a_yaml_block_error_names_its_line(world, github, capsys):
    world.event("issues", labeled(body="Fix it.\n\n```yaml\ntarget: unique.py\nmax_attempt: 2\n```\n"))
    code, out, _ = act(capsys, world)
    assert (code, out[-1]) == (2, "::error::issue #1, yaml block:2: max_attempt: unknown key")


def test_setup_runs_first_without_secrets(world, github, capsys):
    world.commit_to_origin({".github/autofix.yml": 'setup: env > setup.env; echo "::warning::installed"\n'})
    world.event("issues", labeled())
    code, out, _ = act(capsys, world, [RIGHT])
    assert code == 0
    group = out.index("::group::setup")
    shown = out.index("::warning::installed")  # shown, not obeyed: commands are stopped around it
    assert group < shown < out.index("::endgroup::", group)
    assert out[shown - 1].startswith("::stop-commands::")
    assert out[shown + 1] == f"::{out[shown - 1].removeprefix('::stop-commands::')}::"
    env = (world.workspace / "setup.env").read_text()
    assert "INPUT_" not in env and "GITHUB_" not in env and "TOKEN" not in env
    assert "setup.env" not in world.git("ls-tree", "-r", "--name-only", "autofix/issue-1", cwd=world.origin)


def test_a_failing_setup_stops_the_run_with_a_comment(world, github, capsys):
    world.commit_to_origin({".github/autofix.yml": "setup: exit 7\n"})
    world.event("issues", labeled())
    code, out, openai = act(capsys, world)
    assert (code, out[-1]) == (2, "::error::.github/autofix.yml: setup: exited with code 7")
    assert openai.requests == [] and "setup: exited with code 7" in github.comments(REPO, 1)[0].body


@pytest.mark.parametrize(
    "name, value, message",
    [
        ("github-token", "", "input github-token is required (e.g. `github-token: ${{ secrets.GITHUB_TOKEN }}`)"),
        ("max-attempts", "0", "input max-attempts: must be a whole number from 1 to 50, got '0'"),
        ("draft", "yes", "input draft: must be true or false, got 'yes'"),
        ("sandbox", "docker", "input sandbox: must be one of auto, bwrap, landlock, process, none, got 'docker'"),
        ("api", "soap", "input api: must be responses or chat, got 'soap'"),
    ],
)
def test_bad_inputs_are_one_line_errors(world, github, capsys, name, value, message):
    world.input(name, value)
    world.event("issues", labeled())
    code, out, _ = act(capsys, world)
    assert (code, out[-1]) == (2, f"::error::{message}")
    assert github.requests == []


def test_no_model_names_the_input(world, github, capsys):
    world.input("model", "")
    world.event("issues", labeled())
    code, out, _ = act(capsys, world)
    assert (code, out[-1]) == (
        2,
        "::error::no model configured: set the `model` input, or `model:` in .github/autofix.yml or the spec",
    )


def test_outside_a_runner_says_so(monkeypatch, capsys):
    monkeypatch.delenv("GITHUB_WORKSPACE", raising=False)
    monkeypatch.setenv("GITHUB_EVENT_NAME", "issues")
    assert main(["action"]) == 2
    assert (
        capsys.readouterr().out.splitlines()[-1]
        == "::error::GITHUB_EVENT_PATH is not set: `autofix action` runs as a step of a GitHub Actions job"
    )


@pytest.mark.skipif(os.geteuid() != 0, reason="chown needs root")
def test_a_workspace_of_another_user_needs_no_git_config(world, github, capsys, tmp_path):
    """The runner's user owns the checkout, the container's root runs autofix: git, given its git
    dir explicitly, works there without `safe.directory`, and autofix writes no git config."""
    subprocess.run(["chown", "-R", "1001:1001", str(world.workspace)], check=True)
    world.event("issues", labeled())
    assert act(capsys, world, [RIGHT])[0] == 0
    assert github.pull(REPO, 2).head_ref == "autofix/issue-1"
    assert not (tmp_path / "gitconfig").exists()
    # Nothing autofix wrote there (git objects, refs, the target) is root's: the runner's user can
    # fetch, gc and delete its checkout afterwards.
    owners = {
        os.lstat(os.path.join(folder, name)).st_uid
        for folder, folders, files in os.walk(world.workspace)
        for name in folders + files
    }
    assert owners == {1001} and os.stat(world.workspace).st_uid == 1001
    # The report is where the next step, as the runner's user, finds and reads it.
    report = world.outputs()["report-path"]
    assert report == ".autofix/out/autofix-issue-1.json"
    read = subprocess.run(["cat", report], cwd=world.workspace, user=1001, capture_output=True, text=True)
    assert read.returncode == 0 and '"passed": true' in read.stdout


def test_outputs_survive_any_value_and_commands_are_escaped(tmp_path):
    path = tmp_path / "out"
    value = "line one\nghadelimiter_x\n::set-output name=passed::true"
    write_outputs(path, {"a": value, "b": ""}, str)
    text = path.read_text()
    name, delimiter = text.split("\n", 1)[0].split("<<")
    assert name == "a" and delimiter.startswith("ghadelimiter_") and len(delimiter) == len("ghadelimiter_") + 32
    assert text.startswith(f"a<<{delimiter}\n{value}\n{delimiter}\nb<<")
    out = io.StringIO()
    Workflow(out).annotate("error", "50% done\nnext: a,b", file="x:y.yml", line=3)
    assert out.getvalue() == "::error file=x%3Ay.yml,line=3::50%25 done%0Anext: a,b\n"


def test_on_the_process_tier_the_checkouts_token_is_out_of_the_workspace_while_tests_run(world, github, capsys):
    key, header = "http.https://github.com/.extraheader", "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX3BlcnNpc3Q="
    world.git("config", "--local", key, header)
    world.input("sandbox", "process")
    world.event("issues", labeled())
    code, out, _ = act(capsys, world, [RIGHT])
    assert code == 0
    assert (
        "autofix: sandbox: the process tier can't hide the workspace from the tests, so the checkout's "
        f"credentials ({key}) are out of .git/config while they run" in out
    )
    assert world.git("config", "--local", "--get", key) == header  # and back once the step ended
