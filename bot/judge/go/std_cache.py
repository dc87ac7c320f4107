"""The standard library's compiled packages, kept on disk across autofix's processes (issue #43).

A warm build cache (run.warm) takes a minute or more to make under load; made once per process,
every pytest-xdist worker and every step of the Action paid it again. It is kept instead under
`$XDG_CACHE_HOME/autofix/go-std/<key>` (default ~/.cache), one entry per toolchain (go's
GOVERSION, GOOS/GOARCH, CGO_ENABLED, GOROOT, the go binary), set of packages compiled and
version of autofix's recipe (RECIPE), all in the key.

Only autofix's own warm-up writes an entry: it builds in a temporary folder beside the entries
(`.warm-*`), from the test file autofix writes and nothing of a repository, before any run
reads it; what is handed back from the sandbox is made autofix's and read-only to others
(files 0644, folders 0755, no link, nothing another uid owns, else it is thrown away); the
marker (MARKER) is written last; then the folder is renamed into place, atomically. Builders
take a lock (`go-std.lock` beside the entries, 0600: no run can open it) for the whole check and
build, so a second process waits for the first and finds its entry; an entry without its marker
is damaged, built again and swapped in. Runs see the entries read-only (the sandbox's readable
paths, validate.go_paths) and copy one into their private GOCACHE, so nothing a candidate does
reaches the next run.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

RECIPE = "2"  # autofix's warm-up recipe: changed when what run.make_cache writes or runs changes
MARKER = "READY"  # written last: an entry without it is damaged
TEMP, OLD = ".warm-", ".old-"


def root() -> Path:
    """Where entries lie: $XDG_CACHE_HOME (when absolute) or ~/.cache, then autofix/go-std."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "autofix" / "go-std"


def prepared(folder: Path) -> bool:
    """`folder` made when missing (0755); usable when it is a real folder of autofix's own uid
    that no one else may write."""
    try:
        os.makedirs(folder, mode=0o755, exist_ok=True)
        found = os.lstat(folder)
    except OSError:
        return False
    others = stat.S_IWGRP | stat.S_IWOTH
    return stat.S_ISDIR(found.st_mode) and found.st_uid == os.geteuid() and not found.st_mode & others


def key(facts: Mapping[str, str], packages: Iterable[str]) -> str:
    """The entry's name: what the toolchain says of itself, readable, then a hash of it all."""
    held = {"recipe": RECIPE, "facts": dict(sorted(facts.items())), "packages": sorted(set(packages))}
    digest = hashlib.sha256(json.dumps(held, sort_keys=True).encode("utf-8")).hexdigest()[:24]
    shown = [facts.get(name, "") for name in ("GOVERSION", "GOOS", "GOARCH")] + ["cgo" + facts.get("CGO_ENABLED", "")]
    return "-".join(re.sub(r"[^\w.+]", "_", part)[:40] for part in shown) + "-" + digest


def whole(entry: Path) -> bool:
    return os.path.isfile(entry / MARKER) and not os.path.islink(entry / MARKER)


@contextmanager
def locked(folder: Path) -> Iterator[None]:
    """The builders' lock of the entries in `folder`, beside it (a run can't open it)."""
    fd = os.open(f"{folder}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def entry(folder: Path, name: str, build: Callable[[Path], bool], label: Mapping[str, object] = {}) -> Path | None:
    """The entry `name` in `folder`: found whole, or built by `build(temp)` (True when it made
    it) and moved into place. None when it couldn't be made. `label`: what the marker says."""
    final = folder / name
    if whole(final):
        return final
    with locked(folder):
        if whole(final):  # another process built it while this one waited
            return final
        for left in os.listdir(folder):  # a builder that died: every live one holds the lock
            if left.startswith((TEMP, OLD)):
                shutil.rmtree(folder / left, ignore_errors=True)
        temp = Path(tempfile.mkdtemp(prefix=TEMP, dir=folder))
        try:
            os.chmod(temp, 0o755)
            if not build(temp) or not sealed(temp):
                return None
            marker = os.open(temp / MARKER, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
            with os.fdopen(marker, "w", encoding="utf-8") as out:
                json.dump({"recipe": RECIPE, **label}, out, sort_keys=True)
                out.flush()
                os.fsync(out.fileno())
            old = None
            if os.path.lexists(final):  # damaged: set aside, then replaced
                old = tempfile.mkdtemp(prefix=OLD, dir=folder)
                os.rename(final, os.path.join(old, name))
            os.rename(temp, final)
            if old is not None:
                shutil.rmtree(old, ignore_errors=True)
            return final
        finally:
            shutil.rmtree(temp, ignore_errors=True)


def sealed(tree: Path) -> bool:
    """Everything in `tree` autofix's own and read-only to others (0755 folders, 0644 files):
    False when something isn't a folder or a regular file, or another uid owns it."""
    me = os.geteuid()
    for where, dirs, files in os.walk(tree):
        for name in (*dirs, *files):
            path = os.path.join(where, name)
            found = os.lstat(path)
            if found.st_uid != me or not (stat.S_ISDIR(found.st_mode) or stat.S_ISREG(found.st_mode)):
                return False
            os.chmod(path, 0o755 if stat.S_ISDIR(found.st_mode) else found.st_mode & 0o755)
    os.chmod(tree, 0o755)
    return True
