"""What the tests' environment's Python reads, asked of it once after `setup`, inside the sandbox,
and bounded before any of it is lent to a test run.

Python reads pyvenv.cfg, its landmarks and .pth files its own way (of two `home =` lines it takes
the first), so autofix never parses what `setup` left to decide what a run may read: it runs the
environment's `bin/python` in a sandbox that shows only the folders a run could ever be lent (the
environment, the system's Pythons, autofix's own interpreter) and asks it. Its answer comes from
a process `setup`'s files configure, so each path in it is checked for its place before use: the
environment is the workspace's own folder, the interpreter's installation lies in the environment,
among the system's Pythons or is autofix's own, and holds neither the workspace, RUNNER_TEMP nor
a home folder; the stdlib, site-packages and the executable lie in those two. Anything else is
one line naming what `setup` left and why, exit 2.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.errors import UserError
from bot.sandbox.tiers import Limits, Outcome, SandboxWarning, allowed_environ, open_sandbox, within

# Where a system's Python lives: the distribution's and the image's (/usr, /usr/local), and the
# runners' tool cache actions/setup-python fills (a CLI run outside the image).
SYSTEM_PYTHONS = ("/usr", "/opt/hostedtoolcache")
HOMES = ("/root", "/home")  # no interpreter's installation holds a user's home
MARK = "autofix-interpreter: "  # the answer's line, among what .pth files may print
QUESTION = f"""\
import json, os, sys, sysconfig
paths = sysconfig.get_paths()
print({MARK!r} + json.dumps({{
    "sys.prefix": sys.prefix, "sys.exec_prefix": sys.exec_prefix,
    "sys.base_prefix": sys.base_prefix, "sys.base_exec_prefix": sys.base_exec_prefix,
    "sys.executable": os.path.realpath(sys.executable),
    **{{f"sysconfig {{name}}": paths[name] for name in ("stdlib", "platstdlib", "purelib", "platlib")}},
    "sys.version_info": list(sys.version_info)[:3],
}}))
"""
OWN = ("sys.prefix", "sys.exec_prefix")  # the environment itself
INSTALLATIONS = ("sys.base_prefix", "sys.base_exec_prefix")  # the interpreter's installation
INSIDE = ("sys.executable", "sysconfig stdlib", "sysconfig platstdlib", "sysconfig purelib", "sysconfig platlib")
LIMITS = Limits(wall_seconds=60, output_bytes=2**20, excerpt_bytes=64 * 1024)
PATH_CHARS = 4096


@dataclass(frozen=True)
class Interpreter:
    prefix: Path  # the environment, as the workspace names it
    installations: tuple[Path, ...]  # real paths of its interpreter's installation outside it
    version: str  # "3.11.7"

    def readable(self) -> list[Path]:
        return [self.prefix, *self.installations]


def own_folder(prefix: Path, workspace: Path, where: str) -> None:
    """UserError unless the environment is the workspace's own folder, not a link out of it
    (nor beneath one): the sandbox would lend what the link points at. Checked before autofix
    changes anything in it or runs anything from it."""
    real = os.path.realpath(prefix)
    if real != os.path.join(os.path.realpath(workspace), os.path.relpath(prefix, workspace)):
        name = os.path.relpath(prefix, workspace)
        raise UserError(f"{where}: setup: left {name} as a link to {real}: the environment must be the folder itself")


def ask(prefix: Path, workspace: Path, tier: str, private: Sequence[Path], where: str) -> Interpreter:
    """The environment at `prefix` (its own folder: own_folder) as its own Python reads it, run
    on `tier`; UserError naming `where` (the config file) when what `setup` left is not of the
    allowed shape. `private`: folders besides the workspace no installation may hold (RUNNER_TEMP)."""
    name = os.path.relpath(prefix, workspace)
    real = os.path.realpath(prefix)
    answer = answer_of(prefix, tier, name, where)
    refusal = refused(answer, real, [os.path.realpath(workspace), *map(os.path.realpath, private)])
    if refusal:
        what, path, why = refusal
        raise UserError(f"{where}: setup: {name}/bin/python says its {what} is {path}, {why}")
    installations = {os.path.realpath(answer[key]) for key in INSTALLATIONS}
    return Interpreter(
        prefix=prefix,
        installations=tuple(Path(p) for p in sorted(installations) if not within(p, real)),
        version=".".join(map(str, answer["sys.version_info"])),
    )


def answer_of(prefix: Path, tier: str, name: str, where: str) -> dict:
    """The interpreter's answer, its shape checked (paths absolute text, the version three
    small numbers); UserError when it gives none."""
    outcome = run(prefix, tier)
    answers = [line[len(MARK) :] for line in outcome.output.splitlines() if line.startswith(MARK)]
    if outcome.killed or outcome.returncode:
        last = [line.strip() for line in outcome.output.splitlines() if line.strip()][-1:]
        why = (outcome.killed or f"exit code {outcome.returncode}") + "".join(f" ({line[:200]})" for line in last)
    elif not answers:
        why = "it printed no answer"
    elif (answer := parsed(answers[-1])) is None:
        why = "its answer is not of the shape asked"
    else:
        return answer
    raise UserError(f"{where}: setup: {name}/bin/python did not answer in the sandbox: {why}")


def run(prefix: Path, tier: str) -> Outcome:
    """`bin/python` in a sandbox of `tier` that lends only the environment and the places an
    installation may lie (the system's folders every run sees besides)."""
    places = [prefix, Path(os.path.realpath(sys.base_prefix)), *map(Path, SYSTEM_PYTHONS)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SandboxWarning)  # the `none` tier's: said when the tests' opens
        try:
            sandbox = open_sandbox(tier, readable=places)
        except ValueError as exc:
            raise UserError(f"input sandbox: {exc}") from None  # as the tests' sandbox says it
    env = allowed_environ({"PATH": os.pathsep.join([str(prefix / "bin"), "/usr/bin", "/bin"])})
    with tempfile.TemporaryDirectory(prefix="autofix-interpreter-") as folder:
        # -I: no user site, no PYTHON* variables, no working folder on sys.path; site and its
        # .pth files run, as for the tests
        return sandbox.run([str(prefix / "bin" / "python"), "-I", "-c", QUESTION], Path(folder), env, LIMITS)


def parsed(line: str) -> dict | None:
    try:
        answer = json.loads(line)
    except ValueError:
        return None
    if not isinstance(answer, dict) or set(answer) != {*OWN, *INSTALLATIONS, *INSIDE, "sys.version_info"}:
        return None
    version = answer["sys.version_info"]
    if not (isinstance(version, list) and len(version) == 3):
        return None
    if not all(type(part) is int and 0 <= part < 1000 for part in version):
        return None
    for key in (*OWN, *INSTALLATIONS, *INSIDE):
        path = answer[key]
        # printable: it is quoted in a one-line message (no NUL, line break or control character)
        if not (isinstance(path, str) and path.startswith("/") and len(path) < PATH_CHARS and path.isprintable()):
            return None
    return answer


def refused(answer: dict, environment: str, private: Sequence[str]) -> tuple[str, str, str] | None:
    """(what, path, why) of the first path of the answer out of its place, or None."""
    for key in OWN:
        if os.path.realpath(answer[key]) != environment:
            return key, answer[key], "not the environment itself"
    installations = []
    for key in INSTALLATIONS:
        real = os.path.realpath(answer[key])
        why = misplaced(real, environment, private)
        if why:
            return key, answer[key], why
        installations.append(real)
    for key in INSIDE:
        if not any(within(os.path.realpath(answer[key]), place) for place in [environment, *installations]):
            return key, answer[key], "outside the environment and its interpreter's installation"
    return None


def misplaced(installation: str, environment: str, private: Sequence[str]) -> str | None:
    """Why a test run may not read `installation` (a real path), or None."""
    for folder in [*private, *HOMES]:
        if within(folder, installation):
            return f"a folder holding {folder}"
    own = os.path.realpath(sys.base_prefix)  # autofix's interpreter: every run reads it already
    if not any(within(installation, place) for place in [environment, own, *SYSTEM_PYTHONS]):
        places = ", ".join(SYSTEM_PYTHONS)
        return f"outside the environment, the system's Pythons ({places}) and autofix's own ({own})"
    return None
