"""A project's sdist from PyPI, unpacked once into a cache folder, for the benchmarks that run a
real suite (existing_code.py, red_ci.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "support"))
from archives import unpack


def unpacked(requirement: str, sdist: str, cache: Path) -> Path:
    """The sdist of `requirement` (`toolz==1.0.0`), whose archive and folder are named `sdist`
    (`toolz-1.0.0`), downloaded and unpacked once; an interrupted unpack never counts."""
    tree = cache / sdist
    if tree.is_dir():
        return tree
    cache.mkdir(parents=True, exist_ok=True)
    archive = cache / f"{sdist}.tar.gz"
    if not archive.exists():
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps"]
            + ["--no-binary", ":all:", requirement, "-d", str(cache)],
            check=True,
        )
    with tempfile.TemporaryDirectory(dir=cache) as staging:
        unpack(archive, Path(staging))
        os.rename(Path(staging) / sdist, tree)
    return tree
