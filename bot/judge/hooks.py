"""The test runners' hooks as each run gets them: generated from bot/judge/sandboxed/ into a
folder of the run's own, root-owned and read-only to it, the pytest plugin under a module name
drawn for that run.

No name a candidate could know in advance reaches the verdict: a file the candidate adds can't
stand in for the plugin (its name is drawn after the candidate is written) or for anything the
plugin imports (it imports nothing: seal.py is written into it, and os, sys and pytest are loaded
by then); code can't import it by a fixed name. The run's descriptors and paths are written into
the hooks' header, so nothing of the verdict travels in an environment variable that a child
shell, `make` or the tests' own subprocesses would inherit.
"""

from __future__ import annotations

import atexit
import functools
import os
import secrets
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

SANDBOXED = Path(__file__).parent / "sandboxed"
SEAL, MEMORY, EDITABLES, AUDIT, COLLECTOR, HIDDEN, CONTENTS, PLUGIN, UNITTEST = (
    (SANDBOXED / name).read_text(encoding="utf-8")
    for name in (
        "seal.py",
        "memory.py",
        "editables.py",
        "audit.py",
        "collector.py",
        "hidden.py",
        "contents.py",
        "pytest_plugin.py",
        "unittest_hook.py",
    )
)


@dataclass(frozen=True)
class Hooks:
    folder: Path  # first on the tests' PYTHONPATH: sitecustomize.py (unittest) and the plugin
    plugin: str  # the plugin's module name, for `-p`


@functools.cache
def home() -> Path:
    """The folder every run's hooks folder lies in, made once per autofix process: root's (or
    autofix's own uid's), 0755, so a sandboxed run reads it and writes nothing there. The sandbox
    shows it read-only (validate.python_paths)."""
    path = Path(tempfile.mkdtemp(prefix="autofix-hooks-"))
    path.chmod(0o755)
    atexit.register(shutil.rmtree, path, True)
    return path


@contextmanager
def generated(
    fd: int,
    only_fd: int | None,
    workdir: Path,
    target: str,
    redirect: Sequence[tuple[str, str]] = (),
    plugins: Sequence[tuple[str, str]] | None = None,
    prefer: Sequence[str] = (),
    sites: Sequence[tuple[str, str, str]] | None = None,
    avoid: Sequence[str] = (),
    functions: dict[str, list] | None = None,
    dump_at: float | None = None,
) -> Iterator[Hooks]:
    """This run's hooks, removed when it is over. `redirect`: each folder an editable install of
    the tests' environment names, with its place in `workdir` (sandboxed/editables.py).
    `plugins`: the environment's, (module, file) each, that this run loads by name (None: pytest
    discovers them, and the plugin reports what it loaded). `prefer`: the tests whose twins the
    must-fail canaries are, where they can be (the ones failing last: bot/judge/canaries.py);
    `avoid`: tests no twin copies (the flaky ones).
    `sites`: the places of the repository's own code the audit hook lets reach the runner (None:
    it notes them, on the tree as the repository has it). `functions`: what each test ran on that
    tree, layer by layer (None: the plugin notes it). `dump_at`: when a test still running
    dumps its stack (seconds since the epoch: just before the run is stopped; bot/judge/hung.py)."""
    folder = home() / secrets.token_hex(8)
    folder.mkdir()
    folder.chmod(0o755)
    try:
        name = "m" + secrets.token_hex(8)
        run = {"fd": fd, "only_fd": -1 if only_fd is None else only_fd, "workdir": str(workdir), "target": target}
        named = None if plugins is None else [list(pair) for pair in plugins]
        allowed = None if sites is None else [list(site) for site in sites]
        run.update(redirect=[list(pair) for pair in redirect], plugins=named, prefer=sorted(prefer), sites=allowed)
        run.update(avoid=sorted(avoid), dump_at=dump_at, functions=functions)
        header = "RUN = " + repr(run)
        write(folder / f"{name}.py", header, SEAL, MEMORY, EDITABLES, AUDIT, COLLECTOR, HIDDEN, CONTENTS, PLUGIN)
        sealing = (SEAL, MEMORY, EDITABLES, "redirect_editables()", AUDIT, COLLECTOR, UNITTEST)
        write(folder / "sitecustomize.py", header, *sealing)
        yield Hooks(folder, name)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def write(path: Path, header: str, *sources: str) -> None:
    """One module: the header, then the sources (each stays readable, docstring and all)."""
    text = "\n\n".join([header, *sources])
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
