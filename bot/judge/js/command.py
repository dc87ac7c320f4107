"""A JavaScript test command read as data: which runner it starts, and with what, never run
through a shell.

`tests.command` may name a runner (`node --test ...`, `npx jest ...`, `npx vitest run ...`,
`jest`, `vitest`) or a package manager's script (`npm test`, `npm run X -- args`, `pnpm X`,
`yarn X`), which is read from package.json's `scripts` and resolved the same way, a few levels
deep. autofix then starts the runner itself: node with the runner's own entry file from the
repository's node_modules, its arguments, and autofix's reporter options after them. A command
it can't read this way (shell syntax, a script that runs something else first, a runner it
doesn't know) comes back with the reason, and is judged by its exit code alone.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from bot import safefs
from bot.errors import UserError
from bot.judge.runner_base import Unread as Unread  # where it was first, for its importers
from bot.sandbox.tiers import allowed_environ

Runner = Literal["node", "jest", "vitest"]
SHELL_SYNTAX = re.compile(r"[|&;<>()$`\\\"'*?\[\]#~{}\n]")  # as bot/judge/launch.py: sh would read these
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
MANAGERS = ("npm", "pnpm", "yarn")
# A manager's own words that aren't a script's name.
RUN_WORDS = {"npm": ("run", "run-script", "rum", "urn"), "pnpm": ("run",), "yarn": ("run",)}
TEST_WORDS = ("test", "t", "tst")  # `npm test` and its aliases run the `test` script
PACKAGES = ("jest", "vitest")  # runners started from their package's `bin` file
DEPTH = 3  # scripts naming scripts
# Jest 29 is the first with --workerIdleMemoryLimit, which makes it run the tests in a worker of
# their own, apart from autofix's reporter (bot/judge/js/run.py): an older one refuses the option.
JEST_FLOOR = 29
MANIFEST_CAP = 1 << 20  # bytes of package.json read


@dataclass(frozen=True)
class Started:
    """The runner as autofix starts it: `argv` ends with the command's own arguments; autofix's
    reporter options go after them (where the runner reads options anywhere on its line)."""

    runner: Runner
    argv: list[str]
    env: dict[str, str] = field(default_factory=dict)
    via: str = ""  # the scripts followed, for the log: "npm test -> jest --ci"


def linked_modules(work: Path) -> list[Path]:
    """Where the work folder's node_modules really is (a link's target: a workspace's hoisted
    packages, a shared install): the tests read it there, so the sandbox must show it."""
    modules = work / "node_modules"
    return [Path(os.path.realpath(modules))] if modules.is_dir() else []


def is_javascript(command: str) -> bool:
    """Whether `command` starts a JavaScript tool: node, a package manager, npx, or a runner."""
    words = [w for w in command.split() if not ASSIGNMENT.match(w)]
    return bool(words) and os.path.basename(words[0]) in {"node", "npx", *MANAGERS, *PACKAGES}


def runner_of(command: str, work: Path) -> Started | Unread | None:
    """The JavaScript runner `command` starts in `work` with the tests' PATH; None for a
    command that isn't JavaScript's (pytest, make, ...). A runner it names that isn't installed
    stops the task (UserError, exit 2): no run of it could judge anything."""
    if not is_javascript(command):
        return None
    found = resolve(command, work, allowed_environ().get("PATH", ""))
    if isinstance(found, Unread) and found.missing:
        raise UserError(f"tests.command `{command}`: {found.why}")
    return found


def resolve(command: str, work: Path, path: str) -> Started | Unread:
    """The runner `command` starts in the folder `work` (PATH `path` finds `node`)."""
    return Reader(work, path).read(command, [], depth=0, via=[])


class Reader:
    def __init__(self, work: Path, path: str):
        self.work = work
        self.path = path
        self.manifest: dict | None | bool = False  # package.json, read once when a script is named

    def read(self, command: str, extra: list[str], depth: int, via: list[str]) -> Started | Unread:
        if SHELL_SYNTAX.search(command):
            return Unread(f"`{command}` has shell syntax, which autofix doesn't run")
        words = shlex.split(command)
        env: dict[str, str] = {}
        while words and ASSIGNMENT.match(words[0]):
            name, _, value = words.pop(0).partition("=")
            env[name] = value
        if not words:
            return Unread(f"`{command}` names no program")
        program, *args = words
        name = os.path.basename(program)
        via = [*via, " ".join(words)]
        if name in MANAGERS:
            started = self.script(name, args, extra, depth, via)
        elif name == "npx":
            started = self.npx(args, extra, via)
        elif name in PACKAGES:
            started = self.runner(name, args + extra, via)
        elif name == "node" or name.startswith("node"):
            started = self.node(program, args + extra, via)
        else:
            return Unread(f"`{command}` starts {name}, which isn't node:test, Jest or Vitest")
        if isinstance(started, Started) and env:
            started = Started(started.runner, started.argv, {**env, **started.env}, started.via)
        return started

    def script(self, manager: str, args: list[str], extra: list[str], depth: int, via: list[str]) -> Started | Unread:
        args = [a for a in args if a not in ("--silent", "-s", "--if-present")]
        if not args:
            return Unread(f"`{manager}` names no script")
        if args[0] in TEST_WORDS:
            name, rest = "test", args[1:]
        elif args[0] in RUN_WORDS[manager] and len(args) > 1:
            name, rest = args[1], args[2:]
        elif manager != "npm" and not args[0].startswith("-"):
            name, rest = args[0], args[1:]  # `pnpm X` and `yarn X` run the script X
        else:
            return Unread(f"`{manager} {args[0]}` isn't a script autofix can read")
        if manager == "npm" and rest[:1] == ["--"]:
            rest = rest[1:]  # npm hands what follows `--` to the script
        elif manager == "npm" and rest:
            return Unread(f"`npm {' '.join(args)}`: npm reads arguments before `--` as its own")
        scripts = self.scripts()
        if scripts is None:
            return Unread("package.json can't be read, so its scripts can't be")
        text = scripts.get(name)
        if not isinstance(text, str):
            return Unread(f"package.json has no `{name}` script")
        for hook in (f"pre{name}", f"post{name}"):
            if hook in scripts:
                return Unread(f"package.json's `{hook}` script runs beside `{name}`; autofix judges the exit code")
        if depth >= DEPTH:
            return Unread(f"package.json's scripts name scripts more than {DEPTH} levels deep")
        return self.read(text, [*rest, *extra], depth + 1, via)

    def scripts(self) -> dict | None:
        if self.manifest is False:
            self.manifest = manifest(self.work / "package.json")
        scripts = self.manifest.get("scripts") if isinstance(self.manifest, dict) else None
        return scripts if isinstance(scripts, dict) else None

    def npx(self, args: list[str], extra: list[str], via: list[str]) -> Started | Unread:
        args = [a for a in args if a not in ("--no-install", "--no", "-y", "--yes", "--offline")]
        if not args or args[0] not in PACKAGES:
            return Unread(f"`npx {' '.join(args)}` runs no runner autofix knows")
        return self.runner(args[0], args[1:] + extra, via)

    def runner(self, name: str, args: list[str], via: list[str]) -> Started | Unread:
        entry = self.entry(name)
        if entry is None:
            return Unread(
                f"{name} isn't installed in node_modules: install the dependencies before autofix runs "
                "(a workflow step's `npm ci`) or in `setup`",
                missing=True,
            )
        node = shutil.which("node", path=self.path)
        if node is None:
            return Unread("node isn't on the PATH the tests run with", missing=True)
        runner: Runner = "jest" if name == "jest" else "vitest"
        version = (manifest(self.work / "node_modules" / name / "package.json") or {}).get("version")
        major = str(version).split(".", 1)[0]
        if runner == "jest" and major.isdigit() and int(major) < JEST_FLOOR:
            return Unread(
                f"Jest {version} (node_modules/jest) is older than {JEST_FLOOR}, the first that autofix can run apart "
                f"from its reporter (--workerIdleMemoryLimit): upgrade Jest to {JEST_FLOOR} or later",
                missing=True,
            )
        if runner == "vitest":
            if args[:1] in (["watch"], ["dev"]) or "--watch" in args:
                return Unread("vitest in watch mode never ends; use `vitest run`")
            if args[:1] != ["run"]:
                args = ["run", *(args[1:] if args[:1] == ["related"] else args)]
        return Started(runner, [node, entry, *args], via=" -> ".join(via))

    def entry(self, name: str) -> str | None:
        """The file the package NAME names as its `bin`, inside the work folder's node_modules
        (npm's and pnpm's layouts alike): never a path out of the package."""
        package = self.work / "node_modules" / name
        found = manifest(package / "package.json")
        bins = found.get("bin") if found else None
        relative = bins.get(name) if isinstance(bins, dict) else bins
        if not isinstance(relative, str):
            return None
        entry = os.path.normpath(package / relative)
        if not entry.startswith(str(package) + os.sep) or not os.path.isfile(entry):
            return None
        return entry

    def node(self, program: str, args: list[str], via: list[str]) -> Started | Unread:
        if "--test" not in args:
            return Unread(f"`{os.path.basename(program)}` without --test isn't a test runner autofix reads")
        if any(a.startswith("--test-reporter") for a in args):
            args = drop_reporters(args)
        found = program if "/" in program else shutil.which(program, path=self.path)
        if not found or ("/" in program and not os.path.isabs(program)):
            return Unread(f"`{program}` isn't on the PATH the tests run with")
        return Started("node", [found, *args], via=" -> ".join(via))


def manifest(path: Path) -> dict | None:
    """A package.json, read without following a link at its name; None when it isn't one."""
    data = safefs.read_regular(path, MANIFEST_CAP)
    try:
        parsed = json.loads(data.decode("utf-8")) if data is not None else None
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None
    return parsed if isinstance(parsed, dict) else None


def drop_reporters(args: list[str]) -> list[str]:
    """node's arguments without the command's own reporters: autofix's take their place."""
    kept, skip = [], False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg in ("--test-reporter", "--test-reporter-destination"):
            skip = True
            continue
        if arg.startswith(("--test-reporter=", "--test-reporter-destination=")):
            continue
        kept.append(arg)
    return kept
