"""git as autofix runs it, with real git: an environment of its own (no secret but the auth header
it needs), and no program that a repository's config, hooks or a `.git` in a tree names ever runs.

Each attack is first shown to work with plain git in the same repository, so a test can't pass
because its trap was broken."""

import base64
import os
import subprocess
from pathlib import Path

import pytest

from bot.github.git import Git, GitError

SECRETS = {
    "INPUT_GITHUB-TOKEN": "ghs_plantedGitHubToken0123456789",
    "INPUT_OPENAI-API-KEY": "sk-planted-openai-key-0123456789",
    "ACTIONS_RUNTIME_TOKEN": "planted-runtime-token-0123456789",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "planted-id-token-0123456789",
}
BASIC = base64.b64encode(b"x-access-token:ghs_plantedGitHubToken0123456789").decode()
IDENTITY = {
    "GIT_AUTHOR_NAME": "Mona",
    "GIT_AUTHOR_EMAIL": "m@example.com",
    "GIT_COMMITTER_NAME": "Mona",
    "GIT_COMMITTER_EMAIL": "m@example.com",
}
HOOKS = (
    "pre-push",
    "reference-transaction",
    "post-index-change",
    "post-checkout",
    "pre-commit",
    "post-commit",
    "pre-auto-gc",
)


def plain_git(*args, cwd):
    """git as a user runs it: it finds the repository from the folder and reads its config."""
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(cwd),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
        **IDENTITY,
    }
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)


@pytest.fixture
def repo(tmp_path):
    """A checkout of a bare `origin` with one commit."""
    origin, work = tmp_path / "origin.git", tmp_path / "work"
    plain_git("init", "--quiet", "--bare", "--initial-branch=main", str(origin), cwd=tmp_path)
    plain_git("clone", "--quiet", str(origin), str(work), cwd=tmp_path)
    (work / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    plain_git("add", ".", cwd=work)
    plain_git("commit", "--quiet", "-m", "initial", cwd=work)
    plain_git("push", "--quiet", "origin", "main", cwd=work)
    return work


def git_for(work: Path, basic_auth: str | None = BASIC) -> Git:
    return Git(work, "https://github.example", basic_auth, str)


def trap(folder: Path, name: str) -> str:
    """A command that leaves `folder/name` behind when it runs."""
    return f"touch {folder / name}"


def test_git_gets_an_environment_of_its_own(repo, monkeypatch):
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    git = git_for(repo)
    # An alias runs a program with the environment git gives the programs it starts.
    seen = dict(line.split("=", 1) for line in git.run("-c", "alias.environment=!env", "environment").splitlines())
    with_auth = git.run("-c", "alias.environment=!env", "environment", auth=True)
    for value in [*SECRETS.values(), BASIC]:
        assert value not in "\n".join(seen.values())
    assert BASIC not in "\n".join(seen.values()) and f"AUTHORIZATION: basic {BASIC}" in with_auth
    ours = {"PATH", "HOME", "LANG", "LC_ALL", "GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_GLOBAL", "GIT_ATTR_NOSYSTEM",
            "GIT_TERMINAL_PROMPT", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL",
            "GIT_CONFIG_COUNT"}  # fmt: skip
    added = {
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_PREFIX",
        "GIT_CONFIG_PARAMETERS",
        "GIT_EXEC_PATH",
        "PWD",
        "OLDPWD",
        "SHLVL",
        "_",
    }  # by git and sh
    assert {name for name in seen if not name.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"))} <= ours | added
    assert (seen["GIT_CONFIG_GLOBAL"], seen["GIT_CONFIG_NOSYSTEM"]) == (os.devnull, "1")
    assert seen["HOME"] != os.environ.get("HOME") and os.listdir(seen["HOME"]) == []  # no .gitconfig, no credentials
    assert os.stat(Path(seen["HOME"]).parent).st_mode & 0o077 == 0


def test_no_program_the_repository_config_names_runs(repo, tmp_path):
    """An earlier step of the job may have written the checkout's config and hooks; the pull
    request brings the .gitattributes that would start a filter or diff driver."""
    ran = tmp_path / "ran"
    ran.mkdir()
    hooks = tmp_path / "configured-hooks"
    hooks.mkdir()
    for folder in (repo / ".git" / "hooks", hooks):
        for hook in HOOKS:
            (folder / hook).write_text(f"#!/bin/sh\n{trap(ran, 'hook-' + hook)}\n")
            (folder / hook).chmod(0o755)
    config = {
        "core.hooksPath": str(hooks), "core.fsmonitor": trap(ran, "fsmonitor"),
        "filter.evil.clean": trap(ran, "clean"), "filter.evil.smudge": trap(ran, "smudge"),
        "diff.evil.textconv": trap(ran, "textconv"), "diff.evil.command": trap(ran, "diff-command"),
        "diff.external": trap(ran, "external"),
        "commit.gpgSign": "true", "gpg.program": str(hooks / "pre-commit"),
        "credential.helper": f"!{trap(ran, 'credential')}",
        "remote.origin.uploadpack": f"{trap(ran, 'uploadpack')}; git-upload-pack",
        "remote.origin.receivepack": f"{trap(ran, 'receivepack')}; git-receive-pack", "gc.auto": "1",
    }  # fmt: skip
    for key, value in config.items():
        plain_git("config", key, value, cwd=repo)
    (repo / ".gitattributes").write_text("* filter=evil diff=evil\n")
    (repo / "calc.py").write_text("def add(a, b):\n    return a + b\n")

    git = git_for(repo)
    commit, _ = git.commit(["calc.py", ".gitattributes"], "fix\n")
    git.push(commit, "autofix/fix", None)
    assert git.remote_branch("autofix/fix") == (commit, git.run("rev-parse", f"{commit}^{{tree}}"))
    plain_git("update-ref", "refs/pull/1/head", commit, cwd=tmp_path / "origin.git")  # as GitHub keeps a pull request
    assert git.fetch_pull(1, "main") == commit
    assert "+    return a + b" in git.pull_diff(1)
    with git.checkout(commit, tmp_path, "head-") as tree:
        assert (tree.workdir / "calc.py").read_text() == "def add(a, b):\n    return a + b\n"
        tree.commit(["calc.py"], "again\n")
    git.restore(["calc.py"])
    assert sorted(os.listdir(ran)) == []

    # The traps are live: plain git in the same checkout springs them.
    (repo / "calc.py").write_text("def add(a, b):\n    return b + a\n")
    plain_git("diff", cwd=repo)
    plain_git("add", "calc.py", cwd=repo)
    plain_git("commit", "--quiet", "-m", "plain", cwd=repo)
    assert {"fsmonitor", "clean", "diff-command", "hook-pre-commit", "hook-post-index-change"} <= set(os.listdir(ran))


def test_a_git_file_written_into_the_tree_is_never_followed(repo, tmp_path):
    """The attack of a model reply: a git dir of its own under build/cache whose config names an
    fsmonitor command, and the tree's `.git` pointing there; then autofix commits in that tree."""
    git = git_for(repo)
    head = git.run("rev-parse", "HEAD")
    marker = tmp_path / "pwned"
    with git.checkout(head, tmp_path, "head-") as tree:
        cache = tree.workdir / "build" / "cache"
        for relpath, text in {
            "HEAD": "ref: refs/heads/keep\n",
            "config": f'[core]\n\trepositoryformatversion = 0\n\tfsmonitor = "{trap(tmp_path, "pwned")}"\n',
            "objects/info/alternates": f"{repo / '.git' / 'objects'}\n",
            "refs/heads/keep": f"{head}\n",
        }.items():  # fmt: skip
            (cache / relpath).parent.mkdir(parents=True, exist_ok=True)
            (cache / relpath).write_text(text)
        (tree.workdir / ".git").write_text("gitdir: build/cache\n")
        (tree.workdir / "calc.py").write_text("def add(a, b):\n    return a + b\n")

        commit, _ = tree.commit(["calc.py"], "fix\n")
        assert not marker.exists()
        assert git.run("rev-parse", f"{commit}^") == head  # on the pull request's head, in the workspace's repository
        assert git.run("show", f"{commit}:calc.py") == "def add(a, b):\n    return a + b"

        plain_git("add", "calc.py", cwd=tree.workdir)  # what `git add` in that tree used to do
        assert marker.exists()


def test_a_checkout_that_is_not_a_git_folder_is_refused(tmp_path):
    (tmp_path / ".git").write_text("gitdir: /somewhere/else\n")
    with pytest.raises(GitError) as caught:
        git_for(tmp_path)
    assert (
        str(caught.value)
        == f"{tmp_path}: .git is not a folder; autofix works in a checkout of its own (actions/checkout)"
    )


def test_a_failing_git_call_is_one_masked_line(repo):
    git = Git(repo, "https://github.example", BASIC, lambda text: text.replace("no-such-ref", "***"))
    with pytest.raises(GitError) as caught:
        git.run("rev-parse", "--verify", "no-such-ref")
    assert str(caught.value) == "git rev-parse failed (exit 128): fatal: Needed a single revision"


def test_output_that_is_not_utf8_is_read_with_replacements(repo):
    (repo / "legacy.txt").write_bytes(b"caf\xe9\n")
    git = git_for(repo)
    commit, _ = git.commit(["legacy.txt"], "latin-1\n")
    assert git.run("show", f"{commit}:legacy.txt") == "caf\ufffd"


def test_the_checkouts_persisted_token_is_out_of_the_config_while_tests_run(repo):
    header = "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX3BlcnNpc3RlZA=="
    plain_git("config", "--local", "http.https://github.example/.extraheader", header, cwd=repo)
    config = repo / ".git" / "config"
    git = git_for(repo)
    with git.credentials_set_aside() as aside:
        assert aside == ["http.https://github.example/.extraheader"]
        assert "extraheader" not in config.read_text() and "basic" not in config.read_text()
    put_back = plain_git("config", "--local", "--get", "http.https://github.example/.extraheader", cwd=repo)
    assert put_back.stdout == header + "\n"
    with git.credentials_set_aside() as aside:  # put back exactly once, so found again
        assert aside == ["http.https://github.example/.extraheader"]
    with pytest.raises(RuntimeError), git.credentials_set_aside():
        raise RuntimeError("a run that fails")
    assert header in config.read_text()  # back, whatever happened in between
    plain_git("config", "--local", "--unset-all", "http.https://github.example/.extraheader", cwd=repo)
    with git.credentials_set_aside() as aside:
        assert aside == []  # nothing persisted: nothing to do
