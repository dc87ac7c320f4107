"""Which view the repository map reads a file with, by its extension: None for Python's (the map
reads them with `ast`), other languages' without one, files nobody writes by hand, and Go's copies
of other modules and test inputs."""

from __future__ import annotations

import fnmatch
from pathlib import PurePosixPath

from bot.lang import registry
from bot.lang.go_map import GO
from bot.lang.js_map import JS, TS, TSX
from bot.lang.mapped import MapView

VIEWS: dict[str, MapView] = {"javascript": JS, "typescript": TS, "tsx": TSX, "go": GO}  # by the code view's name
# A package's bundles, its compiled output and coverage reports are built from its sources, at any
# depth (a workspace's packages/a/dist); so are minified copies and TypeScript's declarations.
BUILT_FOLDERS = frozenset({"dist", "build", "coverage"})
BUILT_FILES = ("*.min.js", "*.min.mjs", "*.min.cjs", "*.d.ts", "*.d.mts", "*.d.cts")
# Go's: copies of other modules (`go mod vendor`) and the inputs of tests, which the go tool never builds.
LEFT_OUT = {"go": frozenset({"vendor", "testdata"})}


def for_path(path: str) -> MapView | None:
    view = registry.for_path(path)
    if (
        view is None
        or built(path)
        or not LEFT_OUT.get(view.name, frozenset()).isdisjoint(PurePosixPath(path).parts[:-1])
    ):
        return None
    return VIEWS.get(view.name)


def built(path: str) -> bool:
    where = PurePosixPath(path)
    name = where.name.lower()
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in BUILT_FILES) or not BUILT_FOLDERS.isdisjoint(
        where.parts[:-1]
    )
