"""Files Python or pytest load without being asked, and names that take the place of a module the
test run imports: a candidate may edit one the repository has, never add one.

Added, each would run the candidate's code in the test process before any test, or instead of
the runner: `site` imports `sitecustomize` and `usercustomize` and runs a `.pth` file's import
lines at start-up; pytest loads every `conftest.py` it meets; Python runs a `.pyc` under
`__pycache__` instead of its source; a `pytest.py` or a `pluggy/` in a folder on `sys.path` (the
work folder is, for `python -m pytest`) is imported instead of the real one, and so is a `json.py`
beside a test that pytest's rootdir insertion puts first. A file the repository already has is
its own (pytest's repository has `src/_pytest/`; a plugin's has its `conftest.py`), so it stays
editable; the rule is the same for a spec's target and for the paths an edit reply adds.

What an edit reply may add is an allowlist on top (`addition`): a Python module inside the
repository's packages, or what its `edit` globs name; and what tools find by looking
(distribution metadata and its entry points, `.pth`, `pyvenv.cfg`, bytecode) is never written,
added or edited: pytest loads a plugin from an `*.egg-info/entry_points.txt` on `sys.path` by itself."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import PurePosixPath

RUNNER = frozenset({"pytest", "_pytest", "pluggy", "py"})  # what pytest imports: shadowed from anywhere
STARTUP = frozenset({"sitecustomize", "usercustomize"})  # what `site` imports in every Python
# A standard module shadows only from a folder that may be on sys.path: one that isn't a package.
STANDARD = frozenset(sys.stdlib_module_names) - {"__future__"}
# What Python imports as a module, in any version the tests may run under: `x.py`, `x.pyc`,
# `x.cpython-312-x86_64-linux-gnu.so`, `x.abi3.so`, Windows' `x.pyw` and `x.pyd`.
MODULE_SUFFIXES = (".py", ".pyc", ".pyw", ".so", ".pyd")


def module_of(name: str) -> str | None:
    """The module a file of this name is, when Python would import it as one."""
    stem, dot, _ = name.partition(".")
    return stem if dot and name.endswith(MODULE_SUFFIXES) else None


def refusal(relpath: str, exists: Callable[[str], bool]) -> str | None:
    """Why adding the normalised `relpath` would make Python or pytest load it on their own; None
    when it wouldn't, or when it is there already. `exists(path)`: whether the tree has that path
    (without following a link). A folder is a module only through its `__init__`: one without is a
    namespace portion, which never wins over a module found anywhere on sys.path."""
    if exists(relpath):
        return None
    found = found_by_looking(relpath)
    if found:
        return found
    path = PurePosixPath(relpath)
    if path.name == "conftest.py":
        return "pytest loads every conftest.py on its own"
    module, where = module_of(path.name), path.parent
    if module == "__init__":  # the package its folder becomes
        module, where = where.name, where.parent
    if module in STARTUP:
        return f"Python imports {module} on its own at start-up"
    if module in RUNNER:
        return f"it would be imported instead of {module}, which the test runner imports"
    if module in STANDARD and not (where.parts and exists(f"{where}/__init__.py")):
        return f"it would be imported instead of the standard module {module}, from a folder that may be on sys.path"
    return None


# Folders and files Python's import system and the test tools find by looking, whatever their
# content says: distribution metadata holds entry points (pytest's `pytest11` plugins, hypothesis'
# and others' hooks), a .pth runs at start-up, pyvenv.cfg says where an environment's Python is.
# A change never writes one, added or edited, whatever `edit` says.
METADATA_FOLDERS = (".egg-info", ".dist-info", ".egg-link")
FOUND_BY_LOOKING = frozenset({"entry_points.txt", "pyvenv.cfg", "direct_url.json"})


def found_by_looking(relpath: str) -> str | None:
    """Why a change may not write `relpath`, whether the tree has it or not; None for any other path."""
    path = PurePosixPath(relpath)
    if any(part.endswith(METADATA_FOLDERS) for part in path.parts) or path.name in FOUND_BY_LOOKING:
        return "distribution metadata or environment configuration, which Python and pytest read by looking"
    if path.name.endswith(".pth"):
        return "Python runs the import lines of a .pth file at start-up"
    if "__pycache__" in path.parts or path.name.endswith(".pyc"):
        return "Python runs compiled bytecode instead of the source"
    return None


def addition(
    relpath: str,
    exists: Callable[[str], bool],
    added: Callable[[str], bool],
    freed: bool,
    listed: Callable[[str], list[str]] = lambda folder: [],
) -> str | None:
    """Why a change may not add `relpath`; None when it may. An allowlist: a Python module inside
    one of the repository's packages (a folder whose `__init__.py` the tree has, or this change
    adds as a package of one), a Go source file in one of its Go packages (`go_source`), or a file
    the repository's `edit` globs name (`freed`). Anything else a tool may load by looking (runner
    configuration, packaging, a top-level module that takes the place of one the runner imports)
    never comes in unasked. `listed(folder)`: the names the tree's folder holds."""
    if exists(relpath):
        return found_by_looking(relpath)
    problem = refusal(relpath, exists)
    if problem or freed:
        return problem
    path = PurePosixPath(relpath)
    if path.suffix == ".py" and in_package(path.parent, exists, added):
        return None
    if script_module(path):
        return None
    if go_source(path, listed):
        return None
    return (
        "only a Python module inside one of the repository's packages (a folder with __init__.py), a "
        "JavaScript or TypeScript module in a folder below the root, or a Go file (not a test) in a folder "
        "of Go files is, unless `edit` in .github/autofix.yml names the file"
    )


def go_source(path: PurePosixPath, listed: Callable[[str], list[str]]) -> bool:
    """Whether `path` is a Go file a change may add: beside the Go files of a package the tree has
    (go builds every .go file of the folder into it), never a test (`_test.go`: go test compiles it
    into the suite), never one go leaves out by its name (`_x.go`, `.x.go`), nor in testdata or
    vendor. One with an `init()` is allowed: it runs when the package loads, as an `init()` of the
    file under repair would, and is judged with the same tests."""
    if path.suffix != ".go" or path.name.endswith("_test.go") or path.name.startswith(("_", ".")):
        return False
    if any(part in ("testdata", "vendor") or part.startswith((".", "_")) for part in path.parts[:-1]):
        return False
    folder = str(path.parent) if path.parent.parts else "."
    return any(name.endswith(".go") and not name.endswith("_test.go") for name in listed(folder))


# JavaScript's and TypeScript's modules: nothing imports one unless code names it, but for the
# folders and names tools read by looking (Jest's manual mocks, configuration files, global type
# declarations, dotfiles), which never come in unasked.
SCRIPT_SUFFIXES = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
FOUND_FOLDERS = frozenset({"__mocks__", "node_modules", "__snapshots__", ".vitest", ".jest"})
CONFIG_NAME = re.compile(r"(^|[._-])(config|rc|setup|teardown|workspace|preset)([._-]|$)", re.I)


def script_module(path: PurePosixPath) -> bool:
    """Whether `path` is a JavaScript or TypeScript module a change may add: in a folder below the
    root (where the runners' configuration and setup files live), none of whose folders a tool
    reads by looking, named like no configuration or setup file, no global type declaration."""
    return (
        path.suffix in SCRIPT_SUFFIXES
        and len(path.parts) > 1
        and not any(part in FOUND_FOLDERS or part.startswith(".") for part in path.parts)
        and not path.name.endswith((".d.ts", ".d.mts", ".d.cts"))
        and not CONFIG_NAME.search(path.name[: -len(path.suffix)])
    )


def in_package(folder: PurePosixPath, exists: Callable[[str], bool], added: Callable[[str], bool]) -> bool:
    """Whether `folder` is a package the tree has, or one this change adds inside such a package."""
    for _ in folder.parts:
        marker = f"{folder}/__init__.py"
        if exists(marker):
            return True
        if not added(marker):
            return False
        folder = folder.parent
    return False
