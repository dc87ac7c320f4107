"""Editable installs pointed at the copy under test.

A project installed in editable mode (`pip install -e .`) is found through its environment's
.pth files and setuptools' finders, which name the folder it was installed from: the tests would
import the original, not the candidate in the copy. autofix writes this after the run's header
into the run's sitecustomize.py and its pytest plugin (bot/judge/hooks.py). RUN["redirect"] pairs
each folder an editable install names with its place in the run's copy; at start-up, before any
test imports the project, every import path and finder mapping into such a folder is moved into
the copy. A .pth line whose folder the sandbox hides, which site dropped, is moved too.
"""

import os
import sys


def moved(path):
    """`path` in the copy when it lies in a folder an editable install names, else None. Never
    the environment's own folders, which may lie inside the project (a .venv in it)."""
    for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix}:
        if path == prefix or path.startswith(prefix + "/"):
            return None
    for root, there in RUN.get("redirect", ()):
        if path == root or path.startswith(root + "/"):
            return there + path[len(root) :]
    return None


def pth_entries():
    """The folders the environment's .pth files name (site drops those it can't see, such as a
    source folder the sandbox hides)."""
    site = sys.modules.get("site")  # never imported here: the work folder could shadow it
    found = []
    for folder in getattr(site, "getsitepackages", lambda: [])():
        try:
            names = sorted(n for n in os.listdir(folder) if n.endswith(".pth"))
        except OSError:
            continue
        for name in names[:100]:
            try:
                with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as pth:
                    lines = pth.read(65536).splitlines()
            except OSError:
                continue
            found += [
                os.path.join(folder, line.strip())
                for line in lines
                if line.strip() and not line.startswith(("#", "import ", "import\t"))
            ]
    return found


def redirect_editables():
    if not RUN.get("redirect"):
        return
    sys.path[:] = [(moved(p) or p) if isinstance(p, str) else p for p in sys.path]
    for entry in pth_entries():
        there = moved(os.path.normpath(entry))
        if there and there not in sys.path and os.path.isdir(there):
            sys.path.append(there)
    for name, module in list(sys.modules.items()):
        if not name.startswith("__editable__"):
            continue  # setuptools' finders: __editable___<project>_<version>_finder
        mapping = getattr(module, "MAPPING", None)
        if isinstance(mapping, dict):
            for key, value in list(mapping.items()):
                if isinstance(value, str) and moved(value):
                    mapping[key] = moved(value)
        namespaces = getattr(module, "NAMESPACES", None)
        if isinstance(namespaces, dict):
            for key, values in list(namespaces.items()):
                if isinstance(values, list):
                    namespaces[key] = [(moved(v) or v) if isinstance(v, str) else v for v in values]
    sys.path_importer_cache.clear()
