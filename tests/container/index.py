"""A package index of the host's for the repositories' `setup` in the container: what their
projects install (runtime and test dependencies, build backends), downloaded here with pip, laid
out as a PEP 503 simple index and served on the host's loopback, which the container shares
(`--network host`). A `setup` command names it itself (`pip install --index-url URL ...`):
nothing of the host's pip configuration reaches it."""

from __future__ import annotations

import functools
import html
import http.server
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SUFFIXES = (".whl", ".tar.gz", ".zip")


def download(requirements: list[str], folder: Path) -> None:
    """`requirements` and what they depend on, into `folder/files`: wheels where there are, an
    sdist where there aren't (docopt has none, so its `setup` builds it with the index's
    setuptools). The host's Python is the container's version (3.11): the same wheels fit."""
    files = folder / "files"
    files.mkdir(parents=True, exist_ok=True)
    argv = [sys.executable, "-m", "pip", "download", "--quiet", "--dest", str(files), *requirements]
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    write_pages(folder)


def project_of(filename: str) -> str:
    """The normalized project name (PEP 503) of a wheel's or an sdist's file name."""
    stem = filename.split("-", 1)[0] if filename.endswith(".whl") else filename.rsplit("-", 1)[0]
    return re.sub(r"[-_.]+", "-", stem).lower()


def write_pages(folder: Path) -> None:
    """`simple/<project>/index.html` for each project among the files, linking them."""
    projects: dict[str, list[str]] = {}
    for path in sorted((folder / "files").iterdir()):
        if path.name.endswith(SUFFIXES):
            projects.setdefault(project_of(path.name), []).append(path.name)
    simple = folder / "simple"
    for name, files in projects.items():
        (simple / name).mkdir(parents=True, exist_ok=True)
        links = "".join(f'<a href="../../files/{html.escape(f)}">{html.escape(f)}</a>\n' for f in files)
        (simple / name / "index.html").write_text(f"<!DOCTYPE html>\n<html><body>\n{links}</body></html>\n")
    listing = "".join(f'<a href="{name}/">{name}</a>\n' for name in projects)
    (simple / "index.html").write_text(f"<!DOCTYPE html>\n<html><body>\n{listing}</body></html>\n")


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # one line per file pip fetches: noise
        pass


@contextmanager
def served(folder: Path) -> Iterator[str]:
    """The index's URL while it is served from 127.0.0.1 on a port of its own."""
    handler = functools.partial(Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/simple"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
