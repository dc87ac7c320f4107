"""How a test command starts: a plain pytest invocation is started by autofix itself, with no
shell; any other command runs through `/bin/sh -c`.

A plain invocation is `pytest ...`, `py.test ...` or `PYTHON -m pytest ...` (PYTHON a python
program by name or path), after optional `NAME=value` assignments, with no shell syntax anywhere:
no operator, expansion, quoting trick or glob that `sh` would read differently from shlex. Then the
plugin's options go on pytest's own argument list, and no shell stands between autofix and the
process that reports the verdict.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

SHELL_SYNTAX = re.compile(r"[|&;<>()$`\\\"'*?\[\]#~{}\n]")  # anything sh reads other than as a word
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
PYTHON = re.compile(r"python(\d+(\.\d+)?)?")
PYTEST = ("pytest", "py.test")


@dataclass(frozen=True)
class Direct:
    argv: list[str]  # the program's path, then pytest's arguments up to where autofix adds its own
    rest: list[str]  # the command's own arguments, after autofix's
    env: dict[str, str]  # the command's assignments


def direct(command: str, env: Mapping[str, str]) -> Direct | None:
    """The command as a pytest process autofix can start itself, or None (run it through sh)."""
    if SHELL_SYNTAX.search(command):
        return None
    words = shlex.split(command)
    assigned: dict[str, str] = {}
    while words and ASSIGNMENT.match(words[0]):
        name, _, value = words.pop(0).partition("=")
        assigned[name] = value
    if not words:
        return None
    program, *args = words
    base = os.path.basename(program)
    if base in PYTEST:
        head: list[str] = []
    elif PYTHON.fullmatch(base) and args[:2] == ["-m", "pytest"]:
        head, args = args[:2], args[2:]
    else:
        return None
    if "/" in program and not os.path.isabs(program):
        return None  # relative to the work folder the run starts in, which sh resolves
    found = program if "/" in program else shutil.which(program, path=assigned.get("PATH", env.get("PATH", "")))
    if not found or not os.access(found, os.X_OK):
        return None  # sh says why it can't start, in the words refuse_broken_command knows
    return Direct([found, *head], args, assigned)


def joined(options: Sequence[str]) -> str:
    return " ".join(shlex.quote(option) for option in options)
