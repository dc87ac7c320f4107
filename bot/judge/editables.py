"""Where the editable installs of the tests' environment point, and where that is in a copy.

`pip install -e .` in the environment the tests run with (the repository's, which the Action's
`setup` builds, or any activated virtual environment) records the folder it installed from in
the distribution's direct_url.json (PEP 610). autofix reads those records outside the sandbox and
hands each folder, with its place in the run's copy, to the run's hooks (sandboxed/editables.py),
which point the environment's import paths there: the tests import the candidate, not the
original, and `setup: pip install -e '.[test]'` works as it reads.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bot.sandbox.tiers import within

MARK = "pyvenv.cfg"
RECORDS = 500  # distributions read at most: an environment is not a place to spend time


def moves(env: Mapping[str, str], work: Path, original: Path | None) -> list[tuple[str, str]]:
    """What a run in `work`, the copy of `original`, started with `env`, must redirect."""
    prefix = environment_of(env)
    return redirect(editable_roots(prefix), original, work) if prefix is not None else []


def environment_of(env: Mapping[str, str]) -> Path | None:
    """The virtual environment whose Python the tests find first on their PATH, or None."""
    for name in ("python", "python3"):
        found = shutil.which(name, path=env.get("PATH", ""))
        if found:
            prefix = Path(found).parent.parent  # bin/python, never resolved: a venv's is a link
            return prefix if (prefix / MARK).is_file() else None
    return None


def editable_roots(prefix: Path) -> tuple[str, ...]:
    """The folders the environment's editable installs were made from (real paths)."""
    site = sorted(prefix.glob("lib/python*/site-packages"))
    try:
        stamp = tuple(os.stat(folder).st_mtime_ns for folder in site)
    except OSError:
        return ()
    return _roots(tuple(str(folder) for folder in site), stamp)


@functools.lru_cache(maxsize=16)
def _roots(site: tuple[str, ...], stamp: tuple[int, ...]) -> tuple[str, ...]:
    """An install or uninstall changes its site-packages folder's mtime (`stamp`): a new read."""
    found: set[str] = set()
    for folder in site:
        for record in sorted(Path(folder).glob("*.dist-info/direct_url.json"))[:RECORDS]:
            try:
                data = json.loads(record.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            url = data.get("url") if isinstance(data, dict) else None
            info = data.get("dir_info") if isinstance(data, dict) else None
            if not (isinstance(url, str) and isinstance(info, dict) and info.get("editable") is True):
                continue
            parts = urlsplit(url)
            if parts.scheme == "file" and parts.path:
                found.add(os.path.realpath(unquote(parts.path)))
    return tuple(sorted(found))


def redirect(roots: tuple[str, ...], original: Path | None, work: Path) -> list[tuple[str, str]]:
    """Each root with its place in `work`, the copy of `original`: inside the original, at the
    same relative path; outside it only when the original is a checkout of another repository
    folder or of none (the Action installed from its workspace and judges the files of a pull
    request's head in a folder without .git), at the root's path relative to its repository's top.
    A root the copy holds no counterpart of is left."""
    if original is None:
        return []
    home = os.path.realpath(original)
    home_top = repository_top(home)
    pairs = []
    for root in roots:
        if within(root, home):
            pairs.append((root, os.path.normpath(os.path.join(work, os.path.relpath(root, home)))))
            continue
        top = repository_top(root)
        if top is not None and top != home_top and home_top in (None, home):
            pairs.append((root, os.path.normpath(os.path.join(work, os.path.relpath(root, top)))))
    return pairs


def repository_top(path: str) -> str | None:
    for folder in (path, *map(str, Path(path).parents)):
        if os.path.exists(os.path.join(folder, ".git")):
            return folder
    return None
