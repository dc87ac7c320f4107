"""A GitHub runner's side of a container action, on this host: the folders it mounts (workspace,
event, file commands, temp, home), the workspace a checkout of a bare `origin` owned by the
runner's user, and `autofix action` started in the image as the runner starts it
(`--workdir /github/workspace`, the mounts, every input as `INPUT_*` through the environment)."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from action_world import API_KEY, GIT_IDENTITY, REPO, TOKEN

from bot.sandbox.setup_user import SETUP_POOL

RUNNER_UID = 1001  # the runner's user on GitHub's hosted runners
# --shift-uids: the container's uids from the lowest of autofix's pools (the setup's) up are these
# host uids plus SHIFT; the rest, root and the runner's among them, are the host's own.
POOLS = min(SETUP_POOL)
SHIFT = 1_000_000
MOUNTS = ("workspace", "workflow", "file_commands", "runner_temp", "home")
ACTION_TIMEOUT = 600  # seconds for one `autofix action`: a hang fails the scenario, never the job's clock


@dataclass(frozen=True)
class Engine:
    argv: list[str]  # docker, or podman with the options this host needs
    image: str
    seccomp: str | None  # a profile file; None: the engine's default
    rootfs: str | None = None  # shifted: the image's files, mounted; see shifted()
    config: tuple[list[str], list[str]] = ([], [])  # shifted: the image's entry point and environment

    def shifted(self) -> Engine:
        """The same image in a user namespace that gives autofix's pools host uids of their own.
        Where autofix's own tests run on the host beside the container (a shared machine), a
        host run ends with kill(-1) as a pool uid, which kills the container's processes of that
        uid too (the kernel's uids are one, and the container can't see the host's processes to
        pass over a busy one). podman maps image layers for a user namespace badly (4.3), so the
        image is mounted and run as a root file system with an overlay (`--rootfs DIR:O`)."""
        rootfs = self.output("image", "mount", self.image)
        found = json.loads(self.output("image", "inspect", self.image, "--format", "{{json .Config}}"))
        return Engine(self.argv, self.image, self.seccomp, rootfs, (found["Entrypoint"], found.get("Env") or []))

    def output(self, *args: str) -> str:
        return subprocess.run([*self.argv, *args], check=True, capture_output=True, text=True).stdout.strip()

    def start(self) -> list[str]:
        """The end of `run`'s command line: the image, or the shifted root file system, then
        `action` (the entry point's argument, as action.yml's `args`)."""
        if self.rootfs is None:
            return [self.image, "action"]
        entry, env = self.config
        maps = [f"0:0:{POOLS}", f"{POOLS}:{POOLS + SHIFT}:{65536 - POOLS}"]
        options = [f"--{kind}map={m}" for m in maps for kind in ("uid", "gid")]
        options += [option for pair in env for option in ("-e", pair)]
        return [*options, "--rootfs", f"{self.rootfs}:O", *entry, "action"]

    @property
    def podman(self) -> bool:
        return "podman" in Path(self.argv[0]).name

    def limits(self) -> list[str]:
        """podman asks for more open files and processes than the caller has, which a root without
        CAP_SYS_RESOURCE (a sandboxed builder) may not set; the caller's own limits always work."""
        if not self.podman:
            return []
        files = min(resource.getrlimit(resource.RLIMIT_NOFILE))
        return ["--ulimit", f"nofile={files}:{files}", "--ulimit", "nproc=4096:4096"]


class World:
    """One scenario's runner: `tmp` holds the mounts, `origin.git` (GitHub's copy of the
    repository, root's, as the container's root sees it) and `seed` (a maintainer's clone)."""

    def __init__(self, tmp: Path, files: dict[str, bytes]):
        self.tmp = tmp
        self.owner = RUNNER_UID if os.getuid() == 0 else os.getuid()
        self.mounts = {name: tmp / name for name in MOUNTS}
        for path in self.mounts.values():
            path.mkdir(parents=True)
        self.origin, self.seed = tmp / "origin.git", tmp / "seed"
        git("init", "--quiet", "--bare", "--initial-branch=master", str(self.origin))
        git("clone", "--quiet", str(self.origin), str(self.seed))
        self.commit(files, "initial")

    @property
    def workspace(self) -> Path:
        return self.mounts["workspace"]

    def commit(self, files: dict[str, bytes], message: str, branch: str = "master") -> str:
        """A maintainer's commit of `files` on `branch` of origin (made from master when new)."""
        if self.has_master():  # else the clone's unborn master takes the first commit
            git("-C", str(self.seed), "checkout", "--quiet", "-B", branch, "origin/master")
        for relpath, data in files.items():
            (self.seed / relpath).parent.mkdir(parents=True, exist_ok=True)
            (self.seed / relpath).write_bytes(data)
        git("-C", str(self.seed), "add", "--all")
        git("-C", str(self.seed), "commit", "--quiet", "-m", message)
        git("-C", str(self.seed), "push", "--quiet", "origin", branch)
        return self.rev(branch)

    def has_master(self) -> bool:
        return bool(self.show("for-each-ref", "refs/heads/master"))

    def rev(self, ref: str) -> str:
        return self.show("rev-parse", ref)

    def push_ref(self, sha: str, ref: str) -> None:
        """`ref` on origin at `sha`, as GitHub keeps `refs/pull/<n>/head`."""
        git("-C", str(self.seed), "push", "--quiet", "origin", f"{sha}:{ref}")

    def show(self, *args: str) -> str:
        """A git command's output in origin, stripped."""
        return self.show_raw(*args).strip()

    def show_raw(self, *args: str) -> str:
        """A git command's output in origin as it is; empty when it fails."""
        env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
        done = subprocess.run(["git", "-C", str(self.origin), *args], env=env, capture_output=True, text=True)
        return done.stdout if done.returncode == 0 else ""

    def checkout(self, config: dict[str, str] | None = None) -> None:
        """What actions/checkout gives the job: master, in the workspace, with `config` in its
        .git/config, owned by the runner's user (origin stays root's: git in the container would
        refuse it as another user's)."""
        git("clone", "--quiet", "--branch", "master", str(self.origin), str(self.workspace))
        for key, value in (config or {}).items():
            git("-C", str(self.workspace), "config", key, value)
        for path in self.mounts.values():
            chown_tree(path, self.owner)

    def act(self, engine: Engine, event_name: str, event: dict, api_url: str, web_url: str, base_url: str) -> Done:
        """`autofix action` in the image for `event`, against the fake GitHub and model server."""
        (self.mounts["workflow"] / "event.json").write_text(json.dumps(event))
        chown_tree(self.mounts["workflow"], self.owner)
        inputs = {"github-token": TOKEN, "openai-api-key": API_KEY, "model": "m", "base-url": base_url,
                  "config": ".github/autofix.yml", "draft": "false", "sandbox": "auto", "plan": "false"}  # fmt: skip
        env = {f"INPUT_{name.upper()}": value for name, value in inputs.items()} | {
            "GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": REPO, "GITHUB_EVENT_NAME": event_name,
            "GITHUB_EVENT_PATH": "/github/workflow/event.json", "GITHUB_WORKSPACE": "/github/workspace",
            "GITHUB_OUTPUT": "/github/file_commands/set_output", "GITHUB_STEP_SUMMARY": "/github/file_commands/summary",
            "GITHUB_API_URL": api_url, "GITHUB_SERVER_URL": web_url,
            "RUNNER_TEMP": "/github/runner_temp", "HOME": "/github/home",
        }  # fmt: skip
        command = [*engine.argv, "run", "--rm", "--network", "host", "--workdir", "/github/workspace", *engine.limits()]
        command += ["--security-opt", f"seccomp={engine.seccomp}"] if engine.seccomp else []
        for name, path in self.mounts.items():
            command += ["-v", f"{path}:/github/{name}"]
        command += ["-v", f"{self.origin}:{self.origin}"]  # origin's URL in the checkout is this host path
        for name in env:
            command += ["-e", name]  # values through the environment, as the runner passes them
        started = time.monotonic()
        try:
            done = subprocess.run([*command, *engine.start()], env=os.environ | env, capture_output=True,
                                  text=True, timeout=ACTION_TIMEOUT)  # fmt: skip
            code, log = done.returncode, done.stdout + done.stderr
        except subprocess.TimeoutExpired as exc:
            code, log = -1, f"{_text(exc.stdout)}{_text(exc.stderr)}\n(killed after {ACTION_TIMEOUT} s)"
        (self.tmp / "action.log").write_text(log)
        return Done(code, log, time.monotonic() - started)

    def foreign(self) -> list[str]:
        """Workspace entries not owned by the runner's user."""
        return [str(p.relative_to(self.tmp)) for p in tree(self.workspace) if p.lstat().st_uid != self.owner]


@dataclass(frozen=True)
class Done:
    code: int
    log: str
    seconds: float


def _text(data: bytes | str | None) -> str:
    return data.decode(errors="replace") if isinstance(data, bytes) else data or ""


def git(*args: str) -> None:
    env = {**os.environ, **GIT_IDENTITY, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", *args], check=True, env=env)


def tree(root: Path) -> list[Path]:
    return [root, *root.rglob("*")]


def chown_tree(root: Path, uid: int) -> None:
    if os.getuid() == 0:
        for path in tree(root):
            os.lchown(path, uid, uid)
