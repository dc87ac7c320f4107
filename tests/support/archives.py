"""A registry's tarball (an sdist, an `npm pack`) unpacked as tarfile's `data` filter would.

`make test` builds its venvs from Debian's Python 3.11.2, older than the filter (3.11.4): there
each member is checked as the filter checks it before anything is written, and one that fails
stops it (an absolute name too, whose slash the filter strips instead)."""

from __future__ import annotations

import os
import tarfile
from pathlib import Path

from bot.sandbox.tiers import within


def unpack(archive: Path, folder: Path) -> None:
    with tarfile.open(archive) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(folder, filter="data")
            return
        members, root = tar.getmembers(), os.path.realpath(folder)
        for member in members:
            refused = refusal(member, root)
            if refused:
                raise tarfile.TarError(f"{archive.name}: {member.name}: {refused}")
        tar.extractall(folder, members=members)  # every member checked above


def refusal(member: tarfile.TarInfo, root: str) -> str:
    """Why the data filter would refuse `member` unpacked into `root` (a real path), or ""."""
    if not (member.isfile() or member.isdir() or member.issym() or member.islnk()):
        return "neither a file, a folder nor a link"
    if os.path.isabs(member.name):
        return "an absolute path"
    path = os.path.realpath(os.path.join(root, member.name))
    if not within(path, root):
        return "outside the folder"
    if member.issym():
        target = os.path.join(os.path.dirname(path), member.linkname)
    elif member.islnk():
        target = os.path.join(root, member.linkname)
    else:
        return ""
    return "" if within(os.path.realpath(target), root) else "a link to outside the folder"
