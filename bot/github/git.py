"""Git in the workspace: one commit with the fix on top of a base commit, pushed to `origin` with
the token as an HTTP auth header passed through the environment — never in a URL or on a command
line.

The commit is built in a throw-away index (`GIT_INDEX_FILE`), so the workspace's branch, index
and other files are never touched and several fixes can be published from one checkout. A pull
request's code is checked out into a plain folder, with no `.git` in it, and committed from there.

git trusts nothing it would find by itself, because the trees it works on hold what a pull request
or a model wrote, and an earlier step of the job may have written the checkout's config:
- its environment is built from scratch (an empty private HOME, no system or global config), and
  the token is in it only for the calls that talk to origin; nothing else of autofix's reaches it;
- the git dir and the work tree are named explicitly, so a `.git` file or folder in a tree is
  never followed;
- no program a setting names runs, whatever the repository's config says: hooks, fsmonitor,
  filter, diff and merge drivers, signing, credential helpers and transports other than http(s)
  and local paths are forced off; external diffs and the upload/receive-pack commands are
  overridden by flags.
"""

from __future__ import annotations

import codecs
import os
import stat
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

from bot.errors import UserError

BOT_NAME = "github-actions[bot]"
GIT_TIMEOUT = 300
# For a local or ssh origin git runs these commands; the config's `remote.origin.uploadpack` (which
# a later value can't override: the first one wins) would name any other. Flags do override it.
UPLOAD_PACK, RECEIVE_PACK = "--upload-pack=git-upload-pack", "--receive-pack=git-receive-pack"
FORCED = {
    "core.fsmonitor": "false",
    "core.untrackedCache": "false",
    "core.quotePath": "true",  # names come C-quoted, so one that isn't UTF-8 survives being read as text
    "core.askPass": "",
    "credential.helper": "",  # the empty value clears the list the config files gave
    "commit.gpgSign": "false",
    "protocol.allow": "never",  # ext:: and ssh would run commands the config names
    "protocol.https.allow": "always",
    "protocol.http.allow": "always",
    "protocol.file.allow": "always",
    "submodule.recurse": "false",
    "fetch.recurseSubmodules": "false",
    "push.recurseSubmodules": "no",
    "gc.auto": "0",
    "maintenance.auto": "false",
}
# The drivers an attribute (a `.gitattributes` a pull request wrote) would make git run.
DRIVERS = r"^(filter|diff|merge)\..+\.(clean|smudge|process|textconv|command|driver)$"


class GitError(UserError):
    """A git command failed; the message carries its (redacted) stderr."""


def checkout_git_dir(workdir: Path) -> Path:
    """The `.git` folder of a checkout; a `.git` file (a pointer to elsewhere) is not followed."""
    git_dir = workdir / ".git"
    try:
        is_folder = stat.S_ISDIR(os.lstat(git_dir).st_mode)
    except OSError:
        is_folder = False
    if not is_folder:
        raise GitError(f"{workdir}: .git is not a folder; autofix works in a checkout of its own (actions/checkout)")
    return git_dir


def bot_email(server_url: str) -> str:
    """github-actions[bot]'s noreply address on the server: on github.com its account's id and
    login; elsewhere (GitHub Enterprise Server) the server's own noreply domain, without the id,
    which is github.com's account's and not the server's."""
    host = (urlsplit(server_url).hostname or "github.com").lower()
    if host == "github.com":
        return f"41898282+{BOT_NAME}@users.noreply.github.com"
    return f"{BOT_NAME}@users.noreply.{host}"


class Git:
    """git on one work tree: the workspace, or a folder holding a pull request's code (`base`
    is then its head commit, and `git_dir` the workspace's)."""

    def __init__(self, workdir: Path, server_url: str, basic_auth: str | None, redact: Callable[[str], str],
                 git_dir: Path | None = None, base: str = "HEAD", ca_bundle: Path | None = None):  # fmt: skip
        self.workdir, self.server_url, self.basic_auth, self.redact = workdir, server_url, basic_auth, redact
        self.ca_bundle = ca_bundle  # the certificates origin's HTTPS is verified against; None: the system's
        self.git_dir = git_dir or checkout_git_dir(workdir)
        self.base = base
        self._private = tempfile.TemporaryDirectory(prefix="autofix-git-")  # removed with this object
        home, hooks = Path(self._private.name, "home"), Path(self._private.name, "hooks")
        home.mkdir()
        hooks.mkdir()
        self.env = {
            "PATH": os.environ.get("PATH", os.defpath), "HOME": str(home), "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_ATTR_NOSYSTEM": "1",
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_AUTHOR_NAME": BOT_NAME, "GIT_AUTHOR_EMAIL": bot_email(server_url),
            "GIT_COMMITTER_NAME": BOT_NAME, "GIT_COMMITTER_EMAIL": bot_email(server_url),
        }  # fmt: skip
        if ca_bundle is not None:
            self.env["GIT_SSL_CAINFO"] = str(ca_bundle)
        self.settings = [("core.hooksPath", str(hooks)), *FORCED.items()]
        self.settings += [(key, "") for key in self.configured_drivers()]  # an empty command runs nothing
        self.auth: list[tuple[str, str]] = []
        if basic_auth:
            # The empty value first resets any extraheader actions/checkout persisted for the
            # same URL: two Authorization headers make GitHub answer 400.
            key = f"http.{server_url}/.extraheader"
            self.auth = [(key, ""), (key, f"AUTHORIZATION: basic {basic_auth}")]

    @contextmanager
    def credentials_set_aside(self) -> Iterator[list[str]]:
        """The checkout's persisted credentials (actions/checkout keeps `http.<url>.extraheader`
        with the token in .git/config) out of the file while the block runs, then put back: a
        test run that can read the workspace finds no token there. Yields the keys set aside."""
        try:
            listed = self.run("config", "--local", "--null", "--get-regexp", r"^http\..*\.extraheader$", strip=False)
        except GitError:  # exit 1: nothing persisted
            listed = ""
        saved = [tuple(entry.split("\n", 1)) for entry in listed.split("\0") if "\n" in entry]
        for key in dict.fromkeys(key for key, _ in saved):
            self.run("config", "--local", "--unset-all", key)
        try:
            yield [key for key, _ in saved]
        finally:
            for key, value in saved:
                self.run("config", "--local", "--add", key, value)

    def configured_drivers(self) -> list[str]:
        try:
            listed = self.run("config", "--null", "--get-regexp", DRIVERS, strip=False)
        except GitError:  # exit 1: none is configured
            return []
        return [entry.split("\n", 1)[0] for entry in listed.split("\0") if entry]

    def run(
        self,
        *args: str,
        auth: bool = False,
        env: dict[str, str] | None = None,
        stdin: str | None = None,
        strip: bool = True,
    ) -> str:
        argv = ["git", f"--git-dir={self.git_dir}", f"--work-tree={self.workdir}", *args]
        try:
            done = subprocess.run(
                argv, cwd=self.workdir, env=self.environ(auth, env), input=stdin, capture_output=True,
                encoding="utf-8", errors="replace", timeout=GIT_TIMEOUT,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            raise GitError(f"git {args[0]}: no answer within {GIT_TIMEOUT} s") from None
        except OSError as exc:
            raise GitError(f"git {args[0]}: cannot run git: {exc.strerror}") from None
        if done.returncode != 0:
            detail = " ".join((done.stderr or done.stdout).split())[:400]
            raise GitError(self.redact(f"git {args[0]} failed (exit {done.returncode}): {detail}"))
        return done.stdout.strip() if strip else done.stdout

    def environ(self, auth: bool = False, env: dict[str, str] | None = None) -> dict[str, str]:
        # Settings go through GIT_CONFIG_* rather than -c: a key is never parsed out of a value.
        settings = self.settings + (self.auth if auth else [])
        config = {"GIT_CONFIG_COUNT": str(len(settings))}
        for i, (key, value) in enumerate(settings):
            config[f"GIT_CONFIG_KEY_{i}"], config[f"GIT_CONFIG_VALUE_{i}"] = key, value
        return {**self.env, **config, **(env or {})}

    def blob(self, sha: str) -> bytes:
        """A blob's bytes exactly (`run` reads text): what signed.py uploads."""
        argv = ["git", f"--git-dir={self.git_dir}", "cat-file", "blob", sha]
        try:
            done = subprocess.run(argv, cwd=self.workdir, env=self.environ(), capture_output=True, timeout=GIT_TIMEOUT)
        except (subprocess.TimeoutExpired, OSError) as exc:
            raise GitError(f"git cat-file: {exc}") from None
        if done.returncode != 0:
            detail = " ".join(done.stderr.decode("utf-8", "replace").split())[:400]
            raise GitError(self.redact(f"git cat-file failed (exit {done.returncode}): {detail}"))
        return done.stdout

    @contextmanager
    def scratch_index(self) -> Iterator[dict[str, str]]:
        with tempfile.TemporaryDirectory(prefix="autofix-index-") as scratch:
            yield {"GIT_INDEX_FILE": str(Path(scratch) / "index")}

    def current_branch(self) -> str | None:
        try:
            return self.run("symbolic-ref", "--quiet", "--short", "HEAD")
        except GitError:  # a detached HEAD
            return None

    def remote_branch(self, branch: str) -> tuple[str, str] | None:
        """(commit, tree) of the branch on origin, or None when it does not exist there."""
        listed = self.run("ls-remote", UPLOAD_PACK, "origin", f"refs/heads/{branch}", auth=True)
        if not listed:
            return None
        sha = listed.split()[0]
        shallow = self.run("rev-parse", "--is-shallow-repository") == "true"
        self.run(
            "fetch",
            "--no-tags",
            UPLOAD_PACK,
            *(["--depth=1"] if shallow else []),
            "origin",
            f"refs/heads/{branch}",
            auth=True,
        )
        return sha, self.run("rev-parse", "FETCH_HEAD^{tree}")

    def commit(self, paths: list[str], message: str) -> tuple[str, str]:
        """A commit of `base` plus the working copies of `paths`: (commit, tree)."""
        with self.scratch_index() as index:
            self.run("read-tree", self.base, env=index)
            self.run("add", "--", *paths, env=index)
            tree = self.run("write-tree", env=index)
        commit = self.run("commit-tree", tree, "-p", self.base, "-F", "-", stdin=message)
        return commit, tree

    def push(self, commit: str, branch: str, expected: str | None) -> None:
        """Force the branch to `commit` only if origin still has what we saw (`expected`, None: absent)."""
        lease = f"--force-with-lease=refs/heads/{branch}:{expected or ''}"
        self.run("push", "--porcelain", RECEIVE_PACK, lease, "origin", f"{commit}:refs/heads/{branch}", auth=True)

    def untracked(self) -> list[str]:
        """Every file of the work tree git doesn't track, ignored ones too, as the names the
        file system has (a nested repository: its folder, with a trailing '/')."""
        listed = self.run("ls-files", "--others", strip=False)
        return [unquoted(line) for line in listed.split("\n") if line]

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
        self.run(
            "fetch",
            "--no-tags",
            UPLOAD_PACK,
            "origin",
            f"+refs/pull/{number}/head:{ref}/head",
            f"+refs/heads/{base}:{ref}/base",
            auth=True,
        )
        return self.run("rev-parse", f"{ref}/head^{{commit}}")

    def pull_diff(self, number: int) -> str | None:
        """The pull request's change against the point it branched from; None when a shallow
        clone lacks that point (check out with `fetch-depth: 0`)."""
        ref = f"refs/autofix/pull-{number}"
        try:
            return self.run(
                "diff", "--no-color", "--no-ext-diff", "--no-textconv", f"{ref}/base...{ref}/head", strip=False
            )
        except GitError:
            return None

    def pull_base(self, number: int) -> str | None:
        """The commit the pull request branched from (the merge base of its base branch and its
        head, fetched by fetch_pull); None when a shallow clone lacks it."""
        ref = f"refs/autofix/pull-{number}"
        try:
            return self.run("merge-base", f"{ref}/base", f"{ref}/head")
        except GitError:
            return None

    @contextmanager
    def checkout(self, commit: str, parent: Path, prefix: str) -> Iterator[Git]:
        """`commit`'s files in a new folder under `parent`, removed afterwards, and the Git that
        commits on top of `commit` from there. The workspace's own checkout (the trusted default
        branch) is never touched, and the folder holds no `.git` that could point git elsewhere."""
        with tempfile.TemporaryDirectory(prefix=prefix, dir=parent) as folder:
            tree = Git(
                Path(folder), self.server_url, self.basic_auth, self.redact, self.git_dir, commit, self.ca_bundle
            )
            with tree.scratch_index() as index:
                tree.run("read-tree", commit, env=index)
                tree.run("checkout-index", "--all", env=index)
            yield tree


def unquoted(name: str) -> str:
    """A path as git prints it (C-quoted when it holds a quote, a control or a non-ASCII byte) as
    the file system names it (os.fsdecode: bytes that aren't UTF-8 become surrogates)."""
    if not name.startswith('"'):
        return name
    return os.fsdecode(codecs.escape_decode(name[1:-1].encode("ascii"))[0])
