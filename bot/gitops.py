"""Git in the workspace: one commit with the fix on top of HEAD, pushed to `origin` with the token
as an HTTP auth header passed through the environment — never in a URL or on a command line.

The commit is built in a throw-away index (`GIT_INDEX_FILE`), so the workspace's branch, index
and other files are never touched and several fixes can be published from one checkout.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from bot.errors import UserError

BOT_NAME = "github-actions[bot]"
BOT_EMAIL = "41898282+github-actions[bot]@users.noreply.github.com"
GIT_TIMEOUT = 300


class GitError(UserError):
    """A git command failed; the message carries its (redacted) stderr."""


class Git:
    def __init__(self, workdir: Path, server_url: str, basic_auth: str | None, redact: Callable[[str], str]):
        self.workdir = workdir
        self.redact = redact
        self.env = dict(os.environ)
        self.env.update(
            GIT_TERMINAL_PROMPT="0",
            GIT_AUTHOR_NAME=BOT_NAME, GIT_AUTHOR_EMAIL=BOT_EMAIL,
            GIT_COMMITTER_NAME=BOT_NAME, GIT_COMMITTER_EMAIL=BOT_EMAIL,
        )  # fmt: skip
        self.auth_env: dict[str, str] = {}
        if basic_auth:
            # The empty value first resets any extraheader actions/checkout persisted for the
            # same URL: two Authorization headers make GitHub answer 400.
            key = f"http.{server_url}/.extraheader"
            self.auth_env = {
                "GIT_CONFIG_COUNT": "2",
                "GIT_CONFIG_KEY_0": key, "GIT_CONFIG_VALUE_0": "",
                "GIT_CONFIG_KEY_1": key, "GIT_CONFIG_VALUE_1": f"AUTHORIZATION: basic {basic_auth}",
            }  # fmt: skip

    def run(self, *args: str, auth: bool = False, env: dict[str, str] | None = None, stdin: str | None = None, strip: bool = True) -> str:
        full_env = {**self.env, **(self.auth_env if auth else {}), **(env or {})}
        try:
            done = subprocess.run(
                ["git", *args], cwd=self.workdir, env=full_env, input=stdin, capture_output=True, text=True, timeout=GIT_TIMEOUT
            )
        except subprocess.TimeoutExpired:
            raise GitError(f"git {args[0]}: no answer within {GIT_TIMEOUT} s") from None
        if done.returncode != 0:
            detail = " ".join((done.stderr or done.stdout).split())[:400]
            raise GitError(self.redact(f"git {args[0]} failed (exit {done.returncode}): {detail}"))
        return done.stdout.strip() if strip else done.stdout

    def trust_workspace(self) -> None:
        """The workspace belongs to the runner's user, not the container's root: tell git it is safe."""
        try:
            known = self.run("config", "--global", "--get-all", "safe.directory").splitlines()
        except GitError:  # exit 1: the key is not set yet
            known = []
        if str(self.workdir) not in known and "*" not in known:
            self.run("config", "--global", "--add", "safe.directory", str(self.workdir))

    def current_branch(self) -> str | None:
        try:
            return self.run("symbolic-ref", "--quiet", "--short", "HEAD")
        except GitError:  # a detached HEAD
            return None

    def remote_branch(self, branch: str) -> tuple[str, str] | None:
        """(commit, tree) of the branch on origin, or None when it does not exist there."""
        listed = self.run("ls-remote", "origin", f"refs/heads/{branch}", auth=True)
        if not listed:
            return None
        sha = listed.split()[0]
        shallow = self.run("rev-parse", "--is-shallow-repository") == "true"
        self.run("fetch", "--no-tags", *(["--depth=1"] if shallow else []), "origin", f"refs/heads/{branch}", auth=True)
        return sha, self.run("rev-parse", "FETCH_HEAD^{tree}")

    def commit(self, paths: list[str], message: str) -> tuple[str, str]:
        """A commit of HEAD plus the working copies of `paths`: (commit, tree)."""
        with tempfile.TemporaryDirectory(prefix="autofix-index-") as scratch:
            index = {"GIT_INDEX_FILE": str(Path(scratch) / "index")}
            self.run("read-tree", "HEAD", env=index)
            self.run("add", "--", *paths, env=index)
            tree = self.run("write-tree", env=index)
        commit = self.run("commit-tree", tree, "-p", "HEAD", "-F", "-", stdin=message)
        return commit, tree

    def push(self, commit: str, branch: str, expected: str | None) -> None:
        """Force the branch to `commit` only if origin still has what we saw (`expected`, None: absent)."""
        lease = f"--force-with-lease=refs/heads/{branch}:{expected or ''}"
        self.run("push", "--porcelain", lease, "origin", f"{commit}:refs/heads/{branch}", auth=True)

    def restore(self, paths: list[str]) -> None:
        """Put `paths` back as HEAD has them (removing those HEAD lacks)."""
        for path in paths:
            if self.run("ls-tree", "--name-only", "HEAD", "--", path):
                self.run("checkout", "HEAD", "--", path)
            else:
                (self.workdir / path).unlink(missing_ok=True)

    def fetch_pull(self, number: int, base: str) -> str:
        """The pull request's head commit as origin has it (`refs/pull/<n>/head` exists for forks
        too), and its base branch beside it for the diff."""
        ref = f"refs/autofix/pull-{number}"
        self.run("fetch", "--no-tags", "origin", f"+refs/pull/{number}/head:{ref}/head", f"+refs/heads/{base}:{ref}/base", auth=True)
        return self.run("rev-parse", f"{ref}/head^{{commit}}")

    def pull_diff(self, number: int) -> str | None:
        """The pull request's change against the point it branched from; None when a shallow
        clone lacks that point (check out with `fetch-depth: 0`)."""
        ref = f"refs/autofix/pull-{number}"
        try:
            return self.run("diff", "--no-color", "--no-ext-diff", f"{ref}/base...{ref}/head", strip=False)
        except GitError:
            return None

    @contextmanager
    def worktree(self, commit: str, path: Path) -> Iterator[Path]:
        """`commit` checked out in a folder of its own, removed afterwards: the workspace's own
        checkout (the trusted default branch) is never touched."""
        self.run("worktree", "add", "--quiet", "--detach", str(path), commit)
        try:
            yield path
        finally:
            self.run("worktree", "remove", "--force", str(path))
