"""The tests a run asks for as pytest node ids on its command line, so pytest collects those
files alone instead of the whole suite (the plugin's deselection of the rest still applies).

Only a command autofix starts itself (launch.py) whose own arguments pytest would read the same
way with node ids in place of its paths: flags that take no separate value, and paths of the
work folder (a folder or a `.py` file) holding every test asked for. The ids become relative to
the work folder as the plugin names them (`--rootdir`), and no configuration file may lie
between it and a test's folder (pytest would read that one instead). Anything else: None, and
the run collects the whole suite and deselects.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path

# Flags that take no separate value: -q, -x, -vv, -ra, --long-option=value, and the long flags below.
FLAG = re.compile(r"-[qvsxl]+|-r[a-zA-Z]+|--[a-z][a-z0-9-]*=.*")
LONG_FLAGS = frozenset(
    {"--doctest-modules", "--strict-markers", "--strict-config", "--no-header", "--showlocals", "--quiet", "--verbose"}
    | {"--exitfirst", "--disable-warnings", "--no-summary", "--continue-on-collection-errors"}
)
# Options that change where pytest finds its root, configuration or tests: node ids wouldn't mean the same.
ROOTING = ("--rootdir", "--config-file", "--pyargs", "--confcutdir", "--inifile")
# The names whose presence makes a folder one pytest takes its configuration from.
CONFIG_FILES = ("pytest.ini", ".pytest.ini", "tox.ini", "setup.cfg", "pyproject.toml")


def arguments(rest: list[str], only: Iterable[str], work: Path) -> list[str] | None:
    """The command's own arguments with its paths replaced by the node ids of `only` (test ids as
    the plugin names them: `tests.test_x::TestY::test_z[1]`, or a module's id), or None when
    pytest can't be told them that way."""
    root = os.path.realpath(work)
    flags, paths = [], []
    for word in rest:
        if word.startswith("-"):
            if not (FLAG.fullmatch(word) or word in LONG_FLAGS) or word.startswith(ROOTING):
                return None
            flags.append(word)
        elif safe_path(root, word):
            paths.append(os.path.normpath(word))
        else:
            return None
    ids = []
    for test in sorted(set(only)):
        node = node_id(root, test)
        if node is None:
            return None
        file = node.split("::")[0]
        if paths and not any(path == "." or within(file, path) for path in paths):
            return None
        if configured_between(root, os.path.dirname(file)):
            return None
        ids.append(node)
    if not ids:
        return None
    return [*flags, f"--rootdir={root}", *ids]


def outside(rest: list[str], relative: str, work: Path) -> bool:
    """Whether the command's own arguments name paths of the work folder, none of which holds the
    file at `relative`: pytest would never collect it unless told it too."""
    root = os.path.realpath(work)
    paths = [os.path.normpath(word) for word in rest if not word.startswith("-") and safe_path(root, word)]
    return bool(paths) and not any(path == "." or within(relative, path) for path in paths)


def named_folder(rest: list[str], work: Path) -> str | None:
    """The first folder of the work folder the command's own arguments name (`pytest toolz/tests`),
    relative, or None: a test file put there is collected by the command as it stands, in CI too."""
    root = os.path.realpath(work)
    for word in rest:
        path = os.path.normpath(word)
        if not word.startswith("-") and path != "." and safe_path(root, word) and not path.endswith(".py"):
            return path
    return None


def within(relative: str, path: str) -> bool:
    return relative == path or relative.startswith(f"{path}/")


def node_id(root: str, test: str) -> str | None:
    """`tests.test_x::TestY::test_z[1]` as pytest's node id `tests/test_x.py::TestY::test_z[1]`,
    when the work folder holds that file (a regular file, reached through no link)."""
    module, sep, inner = test.partition("::")
    name, bracket, params = inner.partition("[")
    if not module or "::" in params or "/" in module or module.startswith("."):
        return None
    file = module.replace(".", "/") + ".py"
    if not safe_path(root, file):
        return None
    return f"{file}{sep}{name}{bracket}{params}"


def safe_path(root: str, relative: str) -> bool:
    """Whether `relative` names the work folder, a folder in it or a `.py` file of it, through no link."""
    parts = [part for part in os.path.normpath(relative).split("/") if part != "."]
    if os.path.isabs(relative) or ".." in parts:
        return False
    here, mode = root, stat.S_IFDIR
    for part in parts:
        here = os.path.join(here, part)
        try:
            mode = os.lstat(here).st_mode
        except OSError:
            return False
        if stat.S_ISLNK(mode):
            return False
    return stat.S_ISDIR(mode) or (stat.S_ISREG(mode) and here.endswith(".py"))


def configured_between(root: str, folder: str) -> bool:
    """Whether a folder below the root, down to `folder`, holds a file pytest may read its configuration from."""
    here = root
    for part in [p for p in folder.split("/") if p]:
        here = os.path.join(here, part)
        if any(os.path.lexists(os.path.join(here, name)) for name in CONFIG_FILES):
            return True
    return False
