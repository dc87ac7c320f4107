"""The repository's environment: `setup` builds a virtual environment at .autofix/venv with uv, the
tests run with it first on their PATH (autofix's own never), an editable install of the project
is judged in the copy, and `setup` runs as a uid of its own that can't reach autofix's secrets."""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from action_world import API_KEY, REPO, TOKEN, act, labeled
from conftest import RIGHT

from bot.github import step as step_module
from bot.sandbox.procs import pids_of
from bot.sandbox.setup_user import SETUP_POOL

PRICES_WRONG = "```python\ndef total(prices):\n    return sum(prices) + 1\n```"
PRICES_RIGHT = "```python\ndef total(prices):\n    return sum(prices)\n```"
TEST_PRICES = """\
import sys

from shop.prices import total


def test_total():
    assert total([1, 2, 3]) == 6


def test_where():
    # what the tests' Python is: the repository's environment, never autofix's
    assert sys.prefix.endswith("/.autofix/venv"), sys.prefix
"""


@pytest.fixture(scope="session")
def wheels():
    """pytest and its dependencies as wheels, for a `setup` that installs without an index; in a
    folder the setup's uid can read (pytest's own temporary folders are root's alone)."""
    folder = Path(tempfile.mkdtemp(prefix="autofix-test-wheels-"))
    folder.chmod(0o755)
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--dest", folder, "pytest"],
        check=True,
        stderr=subprocess.DEVNULL,
    )
    for wheel in folder.iterdir():
        wheel.chmod(0o644)
    yield folder
    shutil.rmtree(folder)


def shop(layout: str) -> dict[str, str]:
    """A setuptools project: `src` layout (its editable install is a .pth line naming src/) or
    flat (setuptools' finder, with a MAPPING to the package's folder)."""
    package = "src/shop" if layout == "src" else "shop"
    find = '[tool.setuptools.packages.find]\nwhere = ["src"]\n' if layout == "src" else ""
    return {
        "pyproject.toml": (
            '[build-system]\nrequires = ["setuptools>=64"]\nbuild-backend = "setuptools.build_meta"\n\n'
            f'[project]\nname = "shop"\nversion = "0.1"\n\n{find}'
        ),
        f"{package}/__init__.py": "",
        f"{package}/prices.py": "def total(prices):\n    return 0\n",
        "tests/test_prices.py": TEST_PRICES,
    }


def running(command: str) -> list[str]:
    """The setup uids' processes running `command` (other tests' setups may run beside this one)."""
    found = []
    for uid in SETUP_POOL:
        for pid in pids_of(uid):
            try:
                if Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").strip() == command.encode():
                    found.append(pid)
            except OSError:
                continue  # gone meanwhile
    return found


def issue(target: str) -> str:
    return f"`total` is wrong.\n\n```yaml\ntarget: {target}\ntests:\n  command: python -m pytest -q tests\n```\n"


def install(wheels: Path) -> str:
    offline = f"--quiet --no-index --find-links {wheels}"
    return f"pip install {offline} pytest && pip install {offline} --no-build-isolation -e ."


@pytest.mark.parametrize("layout, tier", [("src", "bwrap"), ("src", "landlock"), ("flat", "process")])
def test_an_editable_install_is_judged_in_the_copy(world, github, capsys, wheels, layout, tier):
    """`setup: pip install -e .` points the environment at the workspace; the runs import the
    candidate in their copy: the wrong reply fails, the right one passes, nothing exits 2. On
    bwrap and landlock the workspace is hidden, so site drops the .pth line: it is moved anyway."""
    world.input("sandbox", tier)
    files = shop(layout)
    target = "src/shop/prices.py" if layout == "src" else "shop/prices.py"
    world.commit_to_origin({**files, ".github/autofix.yml": f"setup: {install(wheels)}\n"})
    world.event("issues", labeled(body=issue(target)))
    code, out, openai = act(capsys, world, [PRICES_WRONG, PRICES_RIGHT])
    assert code == 0, out[-5:]
    assert len(openai.requests) == 2  # the wrong total failed in the copy, though the workspace's didn't change
    assert "autofix: the tests run with .autofix/venv (Python 3.11" in "\n".join(out)
    assert f"autofix: sandbox: {tier} (" in "\n".join(out)
    assert world.file_at("autofix/issue-1", target) == "def total(prices):\n    return sum(prices)\n"
    assert ".autofix" not in world.git("ls-tree", "-r", "--name-only", "autofix/issue-1", cwd=world.origin)


def test_without_the_redirect_the_editable_install_would_judge_the_original(world, github, capsys, wheels, monkeypatch):
    """The guard's attack: with the hooks' redirect off, the same run stops (exit 2) because the
    tests import the workspace's code, not the candidate's."""
    from bot.judge import editables

    monkeypatch.setattr(editables, "moves", lambda env, work, original: [])
    world.commit_to_origin({**shop("src"), ".github/autofix.yml": f"setup: {install(wheels)}\n"})
    world.event("issues", labeled(body=issue("src/shop/prices.py")))
    code, out, _ = act(capsys, world, [PRICES_RIGHT])
    assert code == 2 and "the tests import from" in out[-1] and "/workspace/src" in out[-1]


def test_autofix_s_own_environment_is_never_on_the_tests_path(world, github, capsys, wheels, monkeypatch):
    """Even with autofix's own bin first on the PATH it was started with, the tests find the
    repository's Python, which can't import autofix's packages."""
    own = str(Path(sys.executable).parent)
    monkeypatch.setenv("PATH", f"{own}:{os.environ['PATH']}")
    test = (
        "import importlib.util, shutil\n\n\ndef test_alone():\n"
        "    assert importlib.util.find_spec('bot') is None\n"
        "    assert importlib.util.find_spec('openai') is None\n"
        f"    assert not any(p == {own!r} for p in __import__('os').environ['PATH'].split(':'))\n"
    )
    files = {**shop("src"), "tests/test_alone.py": test}
    world.commit_to_origin({**files, ".github/autofix.yml": f"setup: {install(wheels)}\n"})
    world.event("issues", labeled(body=issue("src/shop/prices.py")))
    code, out, openai = act(capsys, world, [PRICES_RIGHT])
    assert code == 0, out[-5:]


def test_the_python_key_reaches_uv(world, github, capsys):
    world.commit_to_origin({".github/autofix.yml": 'python: "3.11"\n'})
    world.event("issues", labeled())
    code, out, _ = act(capsys, world, [RIGHT])
    assert code == 0
    text = "\n".join(out)
    assert f"Using CPython 3.11.{sys.version_info.micro}" in text
    assert (world.workspace / ".autofix/venv/pyvenv.cfg").read_text().count("version_info = 3.11.") == 1


def test_a_python_no_one_has_is_one_line_naming_the_key(world, github, capsys, monkeypatch):
    monkeypatch.setenv("UV_PYTHON_DOWNLOADS", "never")  # never reaches setup: it runs with an allowlist
    world.commit_to_origin({".github/autofix.yml": 'python: "3.4"\n'})
    world.event("issues", labeled())
    code, out, openai = act(capsys, world)
    assert code == 2 and openai.requests == []
    assert out[-1].startswith("::error::.github/autofix.yml: python: uv could not make the environment for 3.4: ")
    assert "uv could not make the environment for 3.4" in github.comments(REPO, 1)[0].body


def test_an_unquoted_version_is_refused_naming_the_line(world, github, capsys):
    world.commit_to_origin({".github/autofix.yml": "label: autofix\npython: 3.10\n"})
    world.event("issues", labeled())
    code, out, _ = act(capsys, world)
    message = '.github/autofix.yml:2: python: a version is text: write it quoted, python: "3.1"'
    assert (code, out[-1]) == (2, f"::error file=.github/autofix.yml,line=2::{message}")


def test_setup_is_killed_at_its_time_limit_with_everything_it_started(world, github, capsys, monkeypatch):
    monkeypatch.setattr(step_module, "SETUP_TIMEOUT", 3)
    world.commit_to_origin({".github/autofix.yml": "setup: sleep 301 & sleep 301\n"})
    world.event("issues", labeled())
    code, out, openai = act(capsys, world)
    assert (code, out[-1]) == (2, "::error::.github/autofix.yml: setup: did not finish within 3 s")
    assert running("sleep 301") == []  # the background sleep went too


def test_a_daemon_the_setup_starts_does_not_outlive_it(world, github, capsys):
    """A process that leaves the setup's session (setsid) would watch, and could change, the
    workspace while the candidates run: every process of the setup's uid is killed when it ends."""
    world.commit_to_origin({".github/autofix.yml": "setup: setsid sleep 302 > /dev/null 2>&1 < /dev/null &\n"})
    world.event("issues", labeled())
    code, out, _ = act(capsys, world, [RIGHT])
    assert code == 0
    assert running("sleep 302") == []


def test_setup_runs_as_a_uid_that_reaches_no_secret(world, github):
    """autofix started as a container action starts (the token and key in its environment from
    exec, so in /proc/<pid>/environ), a Docker-like socket (root:docker, 0660) and the checkout's
    persisted token: the setup's probe finds none of them, and can't write the runner's files."""
    folder = Path(tempfile.mkdtemp(prefix="autofix-test-docker-"))
    try:
        folder.chmod(0o755)
        path = folder / "docker.sock"
        docker = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        docker.bind(str(path))
        docker.listen(1)
        os.chown(path, 0, 999)
        path.chmod(0o660)
        world.output.write_text("")
        world.output.chmod(0o644)
        setup = f"python probe.py {path} {world.output} {TOKEN} {API_KEY} > probe.txt; exit 1"
        world.commit_to_origin({"probe.py": PROBE, ".github/autofix.yml": f"setup: {setup}\n"})
        world.git("config", "--local", "http.https://github.com/.extraheader", f"AUTHORIZATION: basic {TOKEN}")
        world.event("issues", labeled())
        world.input("base-url", "http://127.0.0.1:9/v1")
        done = subprocess.run(
            [sys.executable, "-m", "bot", "action"], capture_output=True, text=True, timeout=120, check=False
        )
        docker.close()
    finally:
        shutil.rmtree(folder)
    assert done.returncode == 2 and "setup: exited with code 1" in done.stdout, done.stdout[-2000:]
    report = (world.workspace / "probe.txt").read_text()
    lines = dict(line.split(": ", 1) for line in report.splitlines())
    assert int(lines["uid"]) in SETUP_POOL and lines["groups"] == "[]"
    # autofix's /proc/<pid>/environ holds the token and the key (the runner's exec): none readable
    assert lines["environ with a secret"] == "none" and int(lines["readable environ"]) >= 2
    assert lines["pid 1 environ"] == "PermissionError"
    assert lines["docker"] == "PermissionError"
    assert lines["output"] == "PermissionError" and "injected" not in world.output.read_text()
    assert lines["extraheader"] == "absent"
    assert "INPUT_" not in lines["env"] and "GITHUB_" not in lines["env"]
    assert "extraheader" in (world.workspace / ".git/config").read_text()  # put back after the setup


PROBE = """\
import os, socket, sys

out = {"uid": str(os.getuid()), "groups": str(sorted(os.getgroups()))}
readable, secret = [], []
for pid in sorted(name for name in os.listdir("/proc") if name.isdigit()):
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            found = f.read()
    except OSError:
        continue
    readable.append(pid)
    if sys.argv[3].encode() in found or sys.argv[4].encode() in found:
        secret.append(pid)
out["readable environ"] = str(len(readable))
out["environ with a secret"] = ",".join(secret) or "none"
try:
    open("/proc/1/environ", "rb").read()
    out["pid 1 environ"] = "read"
except OSError as error:
    out["pid 1 environ"] = type(error).__name__
try:
    socket.socket(socket.AF_UNIX).connect(sys.argv[1])
    out["docker"] = "connected"
except OSError as error:
    out["docker"] = type(error).__name__
try:
    with open(sys.argv[2], "a") as f:
        f.write("injected=1\\n")
    out["output"] = "written"
except OSError as error:
    out["output"] = type(error).__name__
config = open(".git/config").read()
out["extraheader"] = "present" if "extraheader" in config else "absent"
out["env"] = " ".join(sorted(os.environ))
print("\\n".join(f"{k}: {v}" for k, v in out.items()))
"""


def test_a_setup_autofix_can_t_run_as_another_uid_says_so(world, github, capsys, monkeypatch):
    """Outside its image autofix may not be root: then setup runs as autofix's uid, and the log says
    what that means instead of implying the isolation above."""
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    world.commit_to_origin({".github/autofix.yml": "setup: id -u > setup.uid\n"})
    world.event("issues", labeled())
    code, out, _ = act(capsys, world, [RIGHT])
    assert code == 0
    assert "::warning::setup runs as autofix's own uid (autofix is not root, as it is in its image)" in "\n".join(out)
    assert (world.workspace / "setup.uid").read_text() == f"{os.getuid()}\n"
