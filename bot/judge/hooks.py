"""The test runners' hooks as each run gets them: generated from bot/judge/sandboxed/ into a
folder of the run's own, root-owned and read-only to it, the pytest plugin under a module name
drawn for that run.

No name a candidate could know in advance reaches the verdict: a file the candidate adds can't
stand in for the plugin (its name is drawn after the candidate is written) or for anything the
plugin imports (it imports nothing of a file's: seal.py is written into its body, which it loads
by path through the frozen import system, and os, sys and pytest are loaded by then); code
can't import it by a fixed name. The run's descriptors and paths are written into
the hooks' header, so nothing of the verdict travels in an environment variable that a child
shell, `make` or the tests' own subprocesses would inherit.
"""

from __future__ import annotations

import atexit
import functools
import marshal
import os
import secrets
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.util import MAGIC_NUMBER
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

# The hooks' code each run's plugin and sitecustomize.py run (`write`), after the run's header.
PLUGIN_BODY = "\n\n".join([SEAL, MEMORY, EDITABLES, AUDIT, COLLECTOR, HIDDEN, CONTENTS, PLUGIN])
SITE_BODY = "\n\n".join([SEAL, MEMORY, EDITABLES, "redirect_editables()", AUDIT, COLLECTOR, UNITTEST])


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
        write(folder, name, f"{name}-plugin", header, PLUGIN_BODY)
        write(folder, "sitecustomize", f"{name}-site", header, SITE_BODY)
        yield Hooks(folder, name)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def write(folder: Path, module: str, body: str, header: str, text: str) -> None:
    """`module`.py: the run's header, then the hooks' code (`text`, the same in every run) run in
    its namespace from `body`.py beside it, as one module. A run's Python of autofix's own version
    reads the body's bytecode, compiled once per autofix process (`bytecode`), where it compiled the
    file every time: 0.07 s of a small pytest run's 0.3 s went to parsing, rewriting and compiling
    a generated plugin of 2,000 lines. Another version compiles the file itself."""
    path = folder / f"{body}.py"
    create(path, text.encode("utf-8"))
    found = os.stat(path)
    stamp = b"".join(n.to_bytes(4, "little") for n in (0, int(found.st_mtime) & 0xFFFFFFFF, found.st_size & 0xFFFFFFFF))
    cache = folder / "__pycache__"
    cache.mkdir(mode=0o755, exist_ok=True)
    cache.chmod(0o755)
    create(cache / f"{body}.{sys.implementation.cache_tag}.pyc", MAGIC_NUMBER + stamp + bytecode(text))
    create(folder / f"{module}.py", SHIM.format(header=header, path=str(path)).encode("utf-8"))


# What the module a run imports holds: its header, then its body run in its namespace. The body
# comes through the import system's own loader, which takes the cached bytecode when its stamp
# matches the file and this Python's version, and renames the code to the body's file either way.
SHIM = """{header}


def _body(path):
    from _frozen_importlib_external import SourceFileLoader

    return SourceFileLoader(__name__, path).get_code(__name__)


exec(_body({path!r}), globals())
del _body
"""


@functools.cache
def bytecode(text: str) -> bytes:
    """A body compiled as the import system compiles a source file (the loader renames the code
    to the file it reads it for), marshalled."""
    return marshal.dumps(compile(text, "<autofix-hooks>", "exec", dont_inherit=True))


def create(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
