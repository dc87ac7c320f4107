"""A `go test` command read as data: its packages and the flags autofix can read, never run
through a shell.

`tests.command` may be `go test ./...`, `go test ./pkg/... -run X`, `go test -v -race ./...` and
the like. autofix starts `go` itself, found on the tests' PATH, with flags of its own (`-json`,
`-count=1`, a bounded `-p`) and the command's packages and test flags. A command it can't read
that way (shell syntax, a flag that runs something else: `-exec`, `-toolexec`, `-c`, `-o`, `-args`,
files in place of packages) comes back with the reason, and is judged by its exit code alone.
`-mod=mod` (in the command or GOFLAGS) lets go change go.mod and download modules while the tests
run: refused, a configuration error; modules are downloaded during setup (`go mod download`).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from bot.errors import UserError
from bot.judge.runner_base import Unread
from bot.sandbox.tiers import allowed_environ

SHELL_SYNTAX = re.compile(r"[|&;<>()$`\\\"'*?\[\]#~{}\n]")  # as bot/judge/launch.py: sh would read these
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
# Variables a command may set for go: none of them makes go run another program or reach the network.
SETTABLE = frozenset({"CGO_ENABLED", "GODEBUG", "GOEXPERIMENT", "GOMAXPROCS", "GORACE", "GOFLAGS"})
# Flags that go with their value (`-run X` or `-run=X`), kept on autofix's line.
VALUED = frozenset(
    {"-run", "-skip", "-timeout", "-tags", "-cpu", "-parallel", "-shuffle", "-mod", "-gcflags", "-ldflags"}
)
SWITCHES = frozenset({"-race", "-short", "-trimpath", "-cover", "-benchmem", "-msan", "-asan"})
DROPPED_SWITCHES = frozenset({"-v", "-json", "-failfast"})  # -json reports every test; the whole suite runs
DROPPED_VALUED = frozenset({"-count", "-p", "-vet", "-covermode", "-coverprofile", "-coverpkg"})
FILTERS = ("-run", "-skip")  # flags that run some tests alone


@dataclass(frozen=True)
class GoTest:
    """`go test` as autofix starts it: the go binary, the command's flags it keeps, its packages."""

    go: str
    flags: tuple[str, ...]
    packages: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)

    @property
    def filtered(self) -> bool:
        """Whether the command runs some tests alone (-run, -skip)."""
        return any(flag.split("=", 1)[0] in FILTERS for flag in self.flags)

    def build_flags(self) -> list[str]:
        """The flags that change what is built, for a listing of the same test binaries."""
        keep = ("-tags", "-mod", "-gcflags", "-ldflags", "-race", "-trimpath", "-msan", "-asan")
        return [flag for flag in self.flags if flag.split("=", 1)[0] in keep]

    def without_filters(self) -> list[str]:
        return [flag for flag in self.flags if flag.split("=", 1)[0] not in FILTERS]


def is_go(command: str) -> bool:
    """Whether `command` runs `go test` (after any variable assignments)."""
    words = [w for w in command.split() if not ASSIGNMENT.match(w)]
    return len(words) >= 2 and os.path.basename(words[0]) == "go" and words[1] == "test"


def runner_of(command: str, work: Path) -> GoTest | Unread | None:
    """`go test` as `command` asks for it; None for a command that isn't `go test`. `-mod=mod`
    anywhere, or no go on the tests' PATH, stops the task (UserError, exit 2)."""
    if not is_go(command):
        return None
    found = read(command, allowed_environ().get("PATH", ""))
    if isinstance(found, Unread) and found.missing:
        raise UserError(f"tests.command `{command}`: {found.why}")
    return found


def read(command: str, path: str) -> GoTest | Unread:
    if SHELL_SYNTAX.search(command):
        return Unread(f"`{command}` has shell syntax, which autofix doesn't run")
    words = shlex.split(command)
    env: dict[str, str] = {}
    while words and ASSIGNMENT.match(words[0]):
        name, _, value = words.pop(0).partition("=")
        if name not in SETTABLE:
            return Unread(f"`{command}` sets {name}, which autofix doesn't pass to go")
        env[name] = value
    if "-mod=mod" in env.get("GOFLAGS", "").split():
        raise UserError(
            f"tests.command `{command}`: GOFLAGS=-mod=mod lets go change go.mod and download modules "
            "while the tests run; download them during setup (`go mod download`)"
        )
    if env.get("GOFLAGS"):
        return Unread(f"`{command}` sets GOFLAGS, which autofix doesn't read")
    program, _test, *args = words
    flags: list[str] = []
    packages: list[str] = []
    index = 0
    while index < len(args):
        word = args[index]
        index += 1
        if not word.startswith("-"):
            if os.path.isabs(word) or ".." in word.split("/") or word.endswith(".go"):
                return Unread(f"`{command}` names {word}, which isn't a package of the work folder autofix reads")
            packages.append(word)
            continue
        name, equals, value = word.lstrip("-").partition("=")
        flag = "-" + name
        if flag in SWITCHES and not equals:
            flags.append(flag)
        elif flag in DROPPED_SWITCHES and not equals:
            continue
        elif flag in VALUED or flag in DROPPED_VALUED:
            if not equals:
                if index >= len(args):
                    return Unread(f"`{command}`: {flag} has no value")
                value = args[index]
                index += 1
            if flag == "-mod" and value == "mod":
                raise UserError(
                    f"tests.command `{command}`: -mod=mod lets go change go.mod and download modules "
                    "while the tests run; download them during setup (`go mod download`)"
                )
            if flag in VALUED:
                flags.append(f"{flag}={value}")
        else:
            return Unread(f"`{command}` passes {word} to go test, which autofix doesn't read")
    go = program if "/" in program else shutil.which(program, path=path)
    if not go or not os.path.isabs(go):
        return Unread(f"`{program}` isn't on the PATH the tests run with", missing=True)
    return GoTest(go, tuple(flags), tuple(packages) or (".",), env)
