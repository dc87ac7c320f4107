"""Red CI repair against an outsider: a pull request (from a fork too) whose files and whose
model-steering text attack the root process that holds the secrets. Real git, the real sandbox,
the fake GitHub and the scripted model, as in test_ci_repair.py."""

import base64
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from action_world import API_KEY, REPO, TOKEN, act
from fake_openai import ScriptedOpenAI
from test_ci_repair import (  # noqa: F401 - world: the red-CI repository, a fixture
    BROKEN_ADD,
    CALC,
    CONFIG,
    FIX_ADD,
    Link,
    block,
    open_pull,
    run_event,
    world,
)

from bot.github.config import Config
from bot.judge.validate import python_paths
from bot.sandbox.tiers import Limits, allowed_environ, open_sandbox

ROOT = Path(__file__).resolve().parents[2]
BASIC = base64.b64encode(f"x-access-token:{TOKEN}".encode()).decode()
SECRETS = (TOKEN, API_KEY, BASIC)
# What a GitHub runner puts in the environment of a docker action, besides the inputs.
RUNNER_SECRETS = {
    "GITHUB_TOKEN": "ghs_runnerGitHubToken0123456789",
    "ACTIONS_RUNTIME_TOKEN": "planted-actions-runtime-token-0123",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "planted-id-token-request-token-0123",
    "OPENAI_API_KEY": "sk-planted-environment-key-0123456789",
}


def act_as_a_process(world, replies):
    """`autofix action` as the runner starts it: a process of its own whose environment holds the
    inputs from the start, so its /proc/self/environ shows them."""
    with ScriptedOpenAI(list(replies)) as openai:
        world.input("base-url", openai.base_url)
        done = subprocess.run(
            [sys.executable, "-m", "bot", "action"], env={**os.environ, "PYTHONPATH": str(ROOT)},
            capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    assert "Traceback" not in done.stderr, done.stderr
    return done.returncode, done.stdout.splitlines(), openai


def leaked(text):
    return [secret for secret in SECRETS if secret in text]


def test_a_reply_that_points_git_at_a_config_of_its_own_is_refused_and_runs_nothing(world, github, capsys, tmp_path):
    """The reply fixes the code, writes a git dir of its own under build/cache whose config names an
    fsmonitor command, and repoints the tree's `.git` there; then autofix commits in that tree, as
    root with the secrets at hand. `edit` lets the reply add files under build/, so that only git's
    own guard stands in the way."""
    world.commit_to_origin({".github/autofix.yml": CONFIG + "edit: ['calc.py', 'build/**']\nstrategy: repair\n"})
    pull, run = open_pull(world, github, {"calc.py": BROKEN_ADD})
    marker = tmp_path / "pwned"
    sha = world.git("rev-parse", "HEAD")
    own_git_dir = "".join(
        block(f"build/cache/{relpath}", "", text)
        for relpath, text in {
            "HEAD": "ref: refs/heads/keep\n",
            "config": f'[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "touch {marker}"\n',
            "objects/info/alternates": f"{world.workspace}/.git/objects\n",
            "refs/heads/keep": f"{sha}\n",
        }.items()
    )  # fmt: skip
    repoint = block(".git", f"gitdir: {world.workspace}/.git/worktrees/autofix-pr-2-head\n", "gitdir: build/cache\n")
    world.event("workflow_run", run_event(github, pull, run))
    code, out, openai = act(capsys, world, [FIX_ADD + own_git_dir + repoint, FIX_ADD + own_git_dir])
    assert code == 0 and "autofix: pushed autofix/pr-2" in out
    refusal = (
        "- block 6 (.git): a path in .git, git's own folder, which autofix never edits; fix the code under test instead"
    )
    assert f"Your edits were refused, so no file was changed:\n{refusal}\n" in openai.prompts()[1]
    assert not marker.exists()  # git committed and pushed the second reply's files; no program of theirs ran
    assert world.file_at("autofix/pr-2", "calc.py") == CALC


def test_symlinks_to_the_secrets_are_shown_as_links(world, github):
    """A fork commits `notes.txt -> /proc/self/environ` and a link to the workspace's .git/config
    (its path is the same in every docker action), where actions/checkout keeps the token: read as
    root, through the links, they would hand the token and the API key to the model and, copied
    back by it, to the comment."""
    world.git("config", f"http.{github.web_url}/.extraheader", f"AUTHORIZATION: basic {BASIC}")  # persist-credentials
    links = {"notes.txt": Link("/proc/self/environ"), "checkout.txt": Link(f"{world.workspace}/.git/config")}
    pull, run = open_pull(world, github, {"calc.py": BROKEN_ADD, **links}, fork=True)
    world.input("publish", "false")  # the forks example's shape: a fork's code runs nowhere else
    world.event("workflow_run", run_event(github, pull, run, fork=True))
    code, out, openai = act_as_a_process(world, [FIX_ADD])
    assert code == 0, out
    [prompt] = openai.prompts()
    for name, target in links.items():
        assert (
            f"### {name} (changed by the pull request)\nA symbolic link, not followed:\n"
            f"```text\n{name} -> {target}\n```" in prompt
        )
    assert "INPUT_GITHUB-TOKEN" not in prompt and "extraheader" not in prompt
    assert leaked(json.dumps([request.json for request in openai.requests])) == []
    assert leaked("\n".join(request.raw_path + json.dumps(request.json) for request in github.requests)) == []
    assert "this pull request comes from a fork" in (world.out / "autofix-pr-2.md").read_text()
    assert leaked(world.written_text()) == []


def test_binary_files_in_a_pull_request_are_named_and_the_repair_goes_on(world, github, capsys):
    pull, run = open_pull(
        world,
        github,
        {"calc.py": BROKEN_ADD, "logo.png": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "legacy.txt": b"caf\xe9\n"},
    )
    world.event("workflow_run", run_event(github, pull, run))
    code, out, openai = act(capsys, world, [FIX_ADD])
    assert code == 0
    [prompt] = openai.prompts()
    assert "### logo.png (changed by the pull request)\n(a binary file: not shown)" in prompt
    assert "### legacy.txt (changed by the pull request)\n(a binary file: not shown)" in prompt
    assert (
        "Binary files /dev/null and b/logo.png differ" in prompt and "+caf\ufffd" in prompt
    )  # git's diff, its bytes replaced


def test_a_git_failure_ends_with_one_line_and_the_failure_comment(world, github, capsys):
    hook = world.origin / "hooks" / "pre-receive"
    hook.write_text(
        "#!/bin/sh\n"
        "if grep -q refs/heads/autofix/; then echo 'protected: autofix/* may not be pushed' >&2; exit 1; fi\n"
    )
    hook.chmod(0o755)
    pull, run = open_pull(world, github, {"calc.py": BROKEN_ADD})
    world.event("workflow_run", run_event(github, pull, run))
    code, out, _ = act(capsys, world, [FIX_ADD])
    assert code == 2
    assert (
        out[-1].startswith("::error::git push failed (exit 1): ")
        and "protected: autofix/* may not be pushed" in out[-1]
    )
    [comment] = github.comments(REPO, 2)
    assert comment.body.startswith(
        "<!-- autofix:pr-2 -->\n\n❌ autofix stopped with an error while repairing this pull request's tests:\n\n"
        "```text\ngit push failed"
    )
    assert "| 1 | ✅ pass |" in comment.body
    assert world.outputs()["comment-path"] == ".autofix/out/autofix-pr-2.md"


def test_the_action_holds_no_secret_in_its_environment(world, github, capsys, monkeypatch):
    for name, value in RUNNER_SECRETS.items():
        monkeypatch.setenv(name, value)
    secret_names = [*RUNNER_SECRETS, "INPUT_GITHUB-TOKEN", "INPUT_OPENAI-API-KEY"]
    pull, run = open_pull(world, github, {"calc.py": BROKEN_ADD})
    world.event("workflow_run", run_event(github, pull, run))
    config = Config.from_environ(os.environ)  # where the inputs are kept, and never shown
    assert (config.token, config.api_key) == (TOKEN, API_KEY) and leaked(repr(config)) == []
    held = []

    def fix(request):  # asked while the repair runs
        held.extend(name for name in secret_names if name in os.environ)
        return FIX_ADD

    code, _, _ = act(capsys, world, [fix])
    assert code == 0
    assert held == [] and [name for name in secret_names if name in os.environ] == []
    assert os.environ["INPUT_MODEL"] == "m" and os.environ["GITHUB_REPOSITORY"] == REPO  # the rest stays


@pytest.mark.parametrize(
    "tier",
    [
        pytest.param("process", marks=pytest.mark.skipif(os.geteuid() != 0, reason="a dedicated uid needs root")),
        "bwrap",
    ],
)
def test_a_sandboxed_run_cannot_read_the_environment_of_autofix(tier, tmp_path):
    """/proc/<pid>/environ shows the environment a process started with, whatever it removed since:
    autofix's still holds the secrets. A run in the sandbox can't read it: on the process tier it
    runs as another uid (the kernel allows only the same uid or root), on bwrap it doesn't even see
    the process (a PID namespace of its own)."""
    work = tmp_path / "work"
    work.mkdir()
    tmp_path.chmod(0o700)
    sandbox = open_sandbox(tier, python_paths())
    # A root process whose initial environment holds a secret, as autofix's does.
    with subprocess.Popen(["sleep", "60"], env={"INPUT_GITHUB-TOKEN": TOKEN}) as autofix:
        try:
            # root can: the secret is there once the child has exec'd (until then /proc shows an empty environ)
            environ = Path(f"/proc/{autofix.pid}/environ")
            deadline = time.monotonic() + 10
            while TOKEN not in environ.read_text() and time.monotonic() < deadline:
                time.sleep(0.01)
            assert TOKEN in environ.read_text()
            snoop = (
                f"try:\n    print(open('/proc/{autofix.pid}/environ').read())\n"
                "except OSError as exc:\n    print(type(exc).__name__)"
            )
            outcome = sandbox.run([sys.executable, "-c", snoop], work, allowed_environ(), Limits(wall_seconds=20))
        finally:
            autofix.kill()
    assert TOKEN not in outcome.output
    assert outcome.output.strip() == ("PermissionError" if tier == "process" else "FileNotFoundError")
