"""The container smoke test: build the Action's image and run `autofix action` in it for a labeled
issue the way GitHub's runner starts a container action (`--workdir /github/workspace`, the
runner's mounts, every input as `INPUT_*`, the workspace owned by the runner's user, the engine's
default seccomp profile), against the project's fake GitHub and scripted model server started
here. It checks what a user would: the pull request was opened, the tests ran on the `landlock`
tier and the log says why `bwrap` was not used, nothing in the workspace is left owned by root,
and `report-path` names a file the next step can read.

    python tests/container/smoke.py                 # builds with docker, else podman
    python tests/container/smoke.py --image IMAGE   # an image built already (the release workflow)
    python tests/container/smoke.py --base IMAGE    # build FROM a local stand-in for the pinned base
    python tests/container/smoke.py --seccomp default.json   # podman, with Docker's own profile

AUTOFIX_CONTAINER_ENGINE overrides the engine command (e.g. "podman --runtime runc"). Without
docker or podman it prints one line saying so and exits 0. The servers listen on the host's
loopback, so the container shares the host's network (`--network host`).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "support")]

from action_world import API_KEY, GIT_IDENTITY, REPO, TOKEN, labeled, read_outputs  # noqa: E402
from fake_github import FakeGitHub  # noqa: E402
from fake_openai import Reply, ScriptedOpenAI  # noqa: E402

RUNNER_UID = 1001  # the runner's user on GitHub's hosted runners
# What a hostile candidate tries first, knowing where the runner keeps the checkout: its answers
# come back in the failed checks' feedback, printed in the log.
HOSTILE = """```python
import socket

def unique_items(items):
    found = []
    try:
        found.append("read:ok:" + open("/github/workspace/.git/config").read()[-60:])
    except OSError as error:
        found.append("read:" + type(error).__name__)
    try:
        socket.create_connection(("127.0.0.1", PORT), timeout=2)
        found.append("connect:ok")
    except OSError as error:
        found.append("connect:" + type(error).__name__)
    return found
```"""
RIGHT = "```python\ndef unique_items(items):\n    return list(dict.fromkeys(items))\n```"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--image", help="an image built already; default: build the Dockerfile")
    parser.add_argument("--base", help="build FROM this image instead of the Dockerfile's pinned base")
    parser.add_argument("--seccomp", help="a seccomp profile for the container (default: the engine's)")
    parser.add_argument("--keep", action="store_true", help="keep the workspace and reports, and say where")
    args = parser.parse_args()
    engine = _engine()
    if engine is None:
        print("skipped: neither docker nor podman is installed")
        return 0
    image = args.image or _build(engine, args.base)
    tmp = Path(tempfile.mkdtemp(prefix="autofix-smoke-"))
    try:
        failures = _run(engine, image, tmp, args.seccomp)
    finally:
        if args.keep:
            print(f"kept: {tmp}")
        else:
            shutil.rmtree(tmp)
    for failure in failures:
        print(f"FAILED: {failure}")
    print("container smoke test: " + ("failed" if failures else "passed"))
    return 1 if failures else 0


def _engine() -> list[str] | None:
    if os.environ.get("AUTOFIX_CONTAINER_ENGINE"):
        return shlex.split(os.environ["AUTOFIX_CONTAINER_ENGINE"])
    found = shutil.which("docker") or shutil.which("podman")
    return [found] if found else None


def _build(engine: list[str], base: str | None) -> str:
    dockerfile = ROOT / "Dockerfile"
    with tempfile.TemporaryDirectory() as tmp:
        if base:  # only the FROM line changes: every other step is built as GitHub builds it
            lines = dockerfile.read_text().splitlines(keepends=True)
            first = next(i for i, line in enumerate(lines) if line.startswith("FROM "))
            lines[first] = f"FROM {base} AS base\n"
            dockerfile = Path(tmp) / "Dockerfile"
            dockerfile.write_text("".join(lines))
        started = time.monotonic()
        subprocess.run([*engine, "build", *_limits(engine), "--tag", "autofix:smoke", "--file", str(dockerfile),
                        str(ROOT)], check=True)  # fmt: skip
    size = subprocess.run([*engine, "image", "inspect", "autofix:smoke", "--format", "{{.Size}}"],
                          check=True, capture_output=True, text=True).stdout.strip()  # fmt: skip
    print(f"built autofix:smoke in {time.monotonic() - started:.0f} s: {int(size) / 1e6:.0f} MB")
    return "autofix:smoke"


def _limits(engine: list[str]) -> list[str]:
    """podman asks for more open files and processes than the caller has, which a root without
    CAP_SYS_RESOURCE (a sandboxed builder) may not set; the caller's own limits always work."""
    if "podman" not in Path(engine[0]).name:
        return []
    files = min(resource.getrlimit(resource.RLIMIT_NOFILE))
    return ["--ulimit", f"nofile={files}:{files}", "--ulimit", "nproc=4096:4096"]


def _run(engine: list[str], image: str, tmp: Path, seccomp: str | None) -> list[str]:
    owner = RUNNER_UID if os.getuid() == 0 else os.getuid()
    mounts = {name: tmp / name for name in ("workspace", "workflow", "file_commands", "runner_temp", "home")}
    for path in mounts.values():
        path.mkdir()
    origin = tmp / "origin.git"
    _git("init", "--quiet", "--bare", "--initial-branch=master", str(origin))
    _git("clone", "--quiet", str(origin), str(mounts["workspace"]))
    (mounts["workspace"] / "README.md").write_text("# Hello-World\n")
    _git("-C", str(mounts["workspace"]), "add", ".")
    _git("-C", str(mounts["workspace"]), "commit", "--quiet", "-m", "initial")
    _git("-C", str(mounts["workspace"]), "push", "--quiet", "origin", "master")
    # actions/checkout's default (persist-credentials: true): the token in the checkout's config.
    _git("-C", str(mounts["workspace"]), "config", "http.https://github.com/.extraheader", "AUTHORIZATION: basic ...")
    (mounts["workflow"] / "event.json").write_text(json.dumps(labeled()))
    # origin stands for github.com: it stays owned by the container's root (run this as root),
    # or git in the container would refuse it as a repository of another user.
    for path in mounts.values():
        _chown_tree(path, owner)

    with FakeGitHub() as github:
        hostile = HOSTILE.replace("PORT", str(github.port))
        with ScriptedOpenAI([Reply(hostile, 300, 90), Reply(RIGHT, 250, 60)]) as openai:
            done = _act(engine, image, mounts, origin, seccomp, github, openai.base_url)
        pulls = github.pulls(REPO)
    return _judge(done, pulls, mounts, owner, tmp)


def _act(
    engine: list[str],
    image: str,
    mounts: dict[str, Path],
    origin: Path,
    seccomp: str | None,
    github: FakeGitHub,
    base_url: str,
) -> subprocess.CompletedProcess[str]:
    """`autofix action` in the image, started as GitHub's runner starts a container action."""
    github.add_repo(REPO, default_branch="master")
    github.add_issue(REPO, "unique_items loses the order", labeled()["issue"]["body"], user="Codertocat")
    inputs = {"github-token": TOKEN, "openai-api-key": API_KEY, "model": "m", "base-url": base_url,
              "config": ".github/autofix.yml", "draft": "false", "sandbox": "auto", "plan": "false"}  # fmt: skip
    env = {f"INPUT_{name.upper()}": value for name, value in inputs.items()} | {
        "GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": REPO, "GITHUB_EVENT_NAME": "issues",
        "GITHUB_EVENT_PATH": "/github/workflow/event.json", "GITHUB_WORKSPACE": "/github/workspace",
        "GITHUB_OUTPUT": "/github/file_commands/set_output", "GITHUB_STEP_SUMMARY": "/github/file_commands/summary",
        "GITHUB_API_URL": github.api_url, "GITHUB_SERVER_URL": github.web_url,
        "RUNNER_TEMP": "/github/runner_temp", "HOME": "/github/home",
    }  # fmt: skip
    command = [*engine, "run", "--rm", "--network", "host", "--workdir", "/github/workspace", *_limits(engine)]
    command += ["--security-opt", f"seccomp={seccomp}"] if seccomp else []
    for name, path in mounts.items():
        command += ["-v", f"{path}:/github/{name}"]
    command += ["-v", f"{origin}:{origin}"]  # origin's URL in the checkout is this host path
    for name in env:
        command += ["-e", name]  # values through the environment, as the runner passes them
    started = time.monotonic()
    done = subprocess.run([*command, image, "action"], env=os.environ | env, capture_output=True, text=True)
    print(done.stdout + done.stderr)
    print(f"autofix action ran for {time.monotonic() - started:.1f} s (container start included)")
    return done


def _judge(
    done: subprocess.CompletedProcess[str], pulls: list, mounts: dict[str, Path], owner: int, tmp: Path
) -> list[str]:
    """What failed, as one line each."""
    log = done.stdout + done.stderr
    outputs = read_outputs(mounts["file_commands"] / "set_output")
    heads = [pull.head_ref for pull in pulls]
    checks = {
        f"autofix action exited {done.returncode}": done.returncode == 0,
        f"one pull request from autofix/issue-1, got {heads}": heads == ["autofix/issue-1"],
        "the log names the landlock tier": "autofix: sandbox: landlock (" in log,
        "the log says why bwrap was not used": "autofix: sandbox: not stronger because bwrap: " in log,
        "the candidate could not read the checkout's .git/config": "read:PermissionError" in log
        and "read:ok" not in log,
        "the candidate could not reach GitHub's port": "connect:" in log and "connect:ok" not in log,
    }
    report = outputs.get("report-path", "")
    checks[f"report-path {report!r} is relative to the workspace"] = bool(report) and not report.startswith("/")
    if report:
        found = mounts["workspace"] / report
        mode = found.stat().st_mode if found.exists() else 0
        checks[f"{report} is readable by the runner's user"] = found.exists() and (
            found.stat().st_uid == owner and bool(mode & stat.S_IRUSR) or bool(mode & stat.S_IROTH)
        )
    foreign = [str(p.relative_to(tmp)) for p in _tree(mounts["workspace"]) if p.lstat().st_uid != owner]
    checks[f"workspace entries not owned by uid {owner}: {foreign[:5]}"] = not foreign
    return [name for name, ok in checks.items() if not ok]


def _git(*args: str) -> None:
    env = {**os.environ, **GIT_IDENTITY, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    subprocess.run(["git", *args], check=True, env=env)


def _tree(root: Path) -> list[Path]:
    return [root, *root.rglob("*")]


def _chown_tree(root: Path, uid: int) -> None:
    if os.getuid() == 0:
        for path in _tree(root):
            os.lchown(path, uid, uid)


if __name__ == "__main__":
    sys.exit(main())
