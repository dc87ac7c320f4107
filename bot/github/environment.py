"""The repository's environment: the virtual environment its tests run with, which `setup` fills.

autofix lives in an environment of its own (/opt/autofix in the image), never on the tests' PATH:
a project's pins can't break autofix, nor autofix's packages stand in for the project's. Where
the repository configures `setup` or `python`, autofix makes a virtual environment at a fixed
place in the workspace (ENV) with uv, for the Python version asked (`python: "3.12"`; default:
the interpreter autofix itself runs on), with pip in it; runs `setup` with that environment
first on its PATH, as a uid of its own (bot/sandbox/setup_user.py); asks the environment's own
Python, in the sandbox, what it reads: all a test run is lent of it (bot/github/interpreter.py);
then puts it first on the tests' PATH for the rest of the step. uv keeps the interpreters it
fetches and its cache inside ENV, so one `actions/cache` path keeps all of it between runs;
scratch copies link to ENV rather than copy it (bot/judge/scratch.py), and every test run reads
it read-only.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from bot import safefs
from bot.errors import UserError
from bot.github import interpreter
from bot.github.interpreter import Interpreter
from bot.sandbox.setup_user import SetupUser, run_as, setup_user
from bot.sandbox.tiers import allowed_environ

ENV = ".autofix/venv"
PYTHONS = ".pythons"  # uv's interpreters (UV_PYTHON_INSTALL_DIR), inside ENV
CACHE = ".uv-cache"  # uv's cache (UV_CACHE_DIR), inside ENV
LOG_CHARS = 20_000


@dataclass(frozen=True)
class Environment:
    prefix: Path
    interpreter: Interpreter  # what its Python said of itself once setup was done

    def python_version(self) -> str:
        return f"Python {self.interpreter.version}"

    def readable(self) -> list[Path]:
        """What a test run must read: the environment, and its interpreter's installation where
        that lies outside it (bot/github/interpreter.py: never from the files setup wrote)."""
        return self.interpreter.readable()


def lend_node_modules(workspace: Path, tree: Path) -> None:
    """The workspace's node_modules (what the workflow's `npm ci` installed before autofix ran),
    linked into a folder holding a pull request's or a branch's code that has none: its
    JavaScript tests import from there, and every test run reads it read-only."""
    modules = workspace / "node_modules"
    if modules.is_dir() and not os.path.lexists(tree / "node_modules"):
        os.symlink(os.path.realpath(modules), tree / "node_modules")


def tests_path(prefix: Path | None = None) -> str:
    """The tests' PATH: the environment's bin first, never autofix's own environment's."""
    own = Path(sys.executable).parent if sys.prefix != sys.base_prefix else None
    kept = [entry for entry in os.environ.get("PATH", os.defpath).split(os.pathsep) if entry and Path(entry) != own]
    return os.pathsep.join([*([str(prefix / "bin")] if prefix is not None else []), *kept])


def uv() -> str:
    """uv's program: beside autofix's interpreter (the `uv` package's), else on the PATH."""
    found = shutil.which("uv", path=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    if found is None:
        raise UserError("setup: uv is not installed where autofix runs (pip install uv)")
    return found


def build(
    workspace: Path,
    python: str | None,
    command: str | None,
    where: str,
    timeout: float,
    log: Callable[[str], None],
    *,
    tier: str,
    private: Sequence[Path] = (),
) -> Environment:
    """ENV made (or brought up to date) for `python`, then `command` run in it, then its Python
    asked in a sandbox of `tier` what it reads (interpreter.ask; `private`: folders no test run may
    read, RUNNER_TEMP); UserError naming `where` (the config file) when any of it fails."""
    prefix = workspace / ENV
    try:
        parent = safefs.make_folders(workspace, ENV.split("/")[:-1])
    except OSError as exc:
        raise UserError(f"{where}: setup: can't make {ENV}: {exc.strerror}") from None
    try:  # the runner's, as if it had made it: lent to the setup with the rest
        owner = os.lstat(workspace)
        if os.fstat(parent).st_uid != owner.st_uid and os.geteuid() == 0:
            os.fchown(parent, owner.st_uid, owner.st_gid)
    finally:
        os.close(parent)
    program = uv()
    with setup_user(workspace, [sys.base_prefix, str(Path(program).parent)]) as user:
        env = setup_environ(prefix, user)
        wanted = python or f"{sys.base_prefix}/bin/python{sys.version_info.major}.{sys.version_info.minor}"
        argv = [program, "venv", "--seed", "--allow-existing", "--python", wanted, str(prefix)]
        made = run(user, argv, workspace, env, timeout, where)
        log(made.stdout[-LOG_CHARS:])
        if made.returncode != 0:
            why = last_line(made.stdout)
            raise UserError(f"{where}: python: uv could not make the environment for {wanted}: {why}")
        if command:
            done = run(user, ["/bin/sh", "-c", command], workspace, env, timeout, where)
            log(done.stdout[-LOG_CHARS:])
            if done.returncode != 0:
                raise UserError(f"{where}: setup: exited with code {done.returncode}")
    interpreter.own_folder(prefix, workspace, where)
    closed(prefix)
    return Environment(prefix, interpreter.ask(prefix, workspace, tier, private, where))


def closed(prefix: Path) -> None:
    """Nothing in the environment writable by others (uv's cache lock is 0666): a tree the test
    runs' uids could change is copied into every scratch copy instead of shared read-only."""
    for folder, subfolders, files in os.walk(prefix):
        for name in [".", *subfolders, *files]:
            path = os.path.join(folder, name)
            mode = os.lstat(path).st_mode
            if mode & 0o002 and not stat.S_ISLNK(mode):
                os.chmod(path, stat.S_IMODE(mode) & ~0o002)


def setup_environ(prefix: Path, user: SetupUser) -> dict[str, str]:
    """The setup's environment: the tests' allowlist (no secret is in it), the environment first
    on PATH, uv's folders inside it."""
    env = allowed_environ(
        {
            "PATH": tests_path(prefix),
            "HOME": str(user.home),
            "VIRTUAL_ENV": str(prefix),
            "UV_PYTHON_INSTALL_DIR": str(prefix / PYTHONS),
            "UV_CACHE_DIR": str(prefix / CACHE),
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "UV_SYSTEM_CERTS": "1",  # the system's trust store, as git and pip use it (a proxy's CA)
        }
    )
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # an install may compile; the tests never write there
    return env


def run(
    user: SetupUser, argv: list[str], cwd: Path, env: Mapping[str, str], timeout: float, where: str
) -> subprocess.CompletedProcess[str]:
    try:
        return run_as(user, argv, cwd, env, timeout)
    except subprocess.TimeoutExpired:
        raise UserError(f"{where}: setup: did not finish within {timeout:g} s") from None


def last_line(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    return lines[-1][:300] if lines else "no output"


@contextmanager
def activated(environment: Environment) -> Iterator[None]:
    """For the rest of the step, every test run finds the environment first on its PATH
    (sandbox.tiers.allowed_environ takes the PATH from here), autofix's own never."""
    before = os.environ.get("PATH")
    os.environ["PATH"] = tests_path(environment.prefix)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("PATH", None)
        else:
            os.environ["PATH"] = before
