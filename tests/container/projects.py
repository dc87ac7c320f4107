"""The real repositories the smoke test repairs: projects nobody here wrote, from their PyPI sdists,
an npm package's published tarball and a Go module's zip from the Go module proxy (their own code
and test suites, each with a runtime dependency), one bug planted in each. The versions are
pinned, so the bug's lines and the suites' figures stay as measured."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from archives import unpack

# What a checkout wouldn't hold: setuptools' build records. PKG-INFO stays: it is in the sdist,
# and setuptools-scm reads the version there where git can't give one.
NOT_IN_GIT = (".egg-info",)


@dataclass(frozen=True)
class Bug:
    path: str
    right: str  # the project's line(s), exactly
    wrong: str  # what the bug makes of them

    def plant(self, text: str) -> str:
        """The text with the bug; its lines are there once, so the fix's SEARCH block finds one place."""
        planted = text.replace(self.right, self.wrong)
        assert text.count(self.right) == 1 and planted.count(self.wrong) == 1, f"{self.path}: not one place"
        return planted


@dataclass(frozen=True)
class Project:
    name: str
    version: str
    needs: tuple[str, ...]  # what its `setup` installs from the local index, build backend included
    setup: str  # `setup:` of its .github/autofix.yml; {index} is the local index's URL
    tests: str  # its test command
    bug: Bug

    @property
    def requirement(self) -> str:
        return f"{self.name}=={self.version}"


# python-slugify's suite: 140 tests, 5 skipped (the optional transliteration backends), ~2 s.
SLUGIFY = Project(
    "python-slugify", "9.2.0", ("text-unidecode>=1.3", "pytest", "setuptools>=77"),
    "pip install --index-url {index} -e . pytest", "python -m pytest -q tests",
    Bug(
        "slugify/_legacy.py",
        "    text = DUPLICATE_DASH_PATTERN.sub(DEFAULT_SEPARATOR, text).strip(DEFAULT_SEPARATOR)\n",
        "    text = DUPLICATE_DASH_PATTERN.sub(DEFAULT_SEPARATOR, text)\n",
    ),
)  # fmt: skip
# num2words: 62 language modules, 1,428 tests, ~5 s; its CLI tests need delegator.py and the
# script installed in bin/, so the maintainers' command leaves them out. Installed, not editable.
NUM2WORDS = Project(
    "num2words", "0.5.14", ("docopt>=0.6.2", "pytest", "setuptools>=40.8.0", "wheel"),
    "pip install --index-url {index} . pytest", "python -m pytest -q tests --ignore=tests/test_cli.py",
    Bug("num2words/lang_EN.py", '                lastword = lastword[:-1] + "ie"\n',
        '                lastword = lastword[:-1] + "i"\n'),
)  # fmt: skip
# inflect: 284 tests and 16 xfailed, its modules' doctests among them (pytest.ini), ~7 s; built
# with setuptools-scm; its `test` extra brings pytest. The README's form of `setup`.
INFLECT = Project(
    "inflect", "7.6.0",
    ("jaraco.functools", "more_itertools>=8.5.0", "typeguard>=4.0.1", "pytest>=6,!=8.1.*", "pygments",
     "setuptools>=77", "setuptools_scm[toml]>=3.4.1", "coherent.licensed"),
    "pip install --index-url {index} -e '.[test]'", "python -m pytest -q",
    # the `try:` line too: the `except` branch holds the wrong line already
    Bug("inflect/__init__.py", "            try:\n                post = nth[abs(n) % 100]\n",
        "            try:\n                post = nth[abs(n) % 10]\n"),
)  # fmt: skip


@dataclass(frozen=True)
class NpmProject:
    """A package from the npm registry whose published tarball holds its suite: the repository is
    the tarball's files, package.json's `manifest` fields changed where the maintainers' test
    script needs what the tarball leaves out, with a package-lock.json made when it is fetched.
    Its CI installs the dependencies (`npm ci`) before autofix runs: no `setup`."""

    name: str
    version: str
    manifest: tuple[tuple[str, object], ...]  # package.json's fields, set (JSON values)
    tests: str  # its test command
    bug: Bug
    needs: tuple[str, ...] = ()  # nothing from the local Python index

    @property
    def requirement(self) -> str:
        return f"{self.name}@{self.version}"


# no-case (blakeembrey/change-case's word splitter, under camel-case, snake-case and the rest of
# change-case 4): its tarball holds the code compiled from TypeScript (dist/, dist.es2015/) and
# its Jest spec compiled beside it (dist/index.spec.js, 31 tests, ~2 s); lower-case and tslib at
# run time. The maintainers' Jest config reads src/ through ts-jest, which the tarball lacks: the
# suite runs on dist/ with plain Jest (the version autofix's tests pin), the TypeScript toolchain
# left out of devDependencies.
NO_CASE = NpmProject(
    "no-case", "3.0.4",
    (("scripts", {"test": "jest"}), ("devDependencies", {"jest": "30.5.2"}),
     ("jest", {"roots": ["<rootDir>/dist/"], "testRegex": "\\.spec\\.js$"})),
    "npm test",
    # camelCase is matched but no longer split: `testString` is one word (11 tests fail); the line
    # the fix writes back has two calls whose arguments make mutants, which the suite kills
    Bug("dist/index.js", '    var result = replace(replace(input, splitRegexp, "$1\\0$2"), stripRegexp, "\\0");\n',
        '    var result = replace(replace(input, splitRegexp, "$1$2"), stripRegexp, "\\0");\n'),
)  # fmt: skip


@dataclass(frozen=True)
class GoProject:
    """A module from the Go module proxy whose zip holds its suite: the repository is the zip's files
    (go.mod and go.sum among them). Its dependencies are served to the container by a module
    proxy of the host's (the download folder of the module cache `fetch_go` filled, which is laid
    out as a proxy is: GOPROXY), from which its `setup` (`go mod download`) fetches them."""

    name: str  # the module's path
    version: str
    tests: str  # its test command
    bug: Bug
    needs: tuple[str, ...] = ()  # nothing from the local Python index

    @property
    def requirement(self) -> str:
        return f"{self.name}@{self.version}"


# agnivade/levenshtein: levenshtein.go (ComputeDistance, over uint16 cells where the longer string
# fits, else int) and its suite (levenshtein_test.go: 3 tests, ~0.1 s), which imports two other
# modules' implementations to compare with (go.sum pins them): `go mod download` must bring them.
LEVENSHTEIN = GoProject(
    "github.com/agnivade/levenshtein", "v1.2.2", "go test ./...",
    # a string of 65,536 runes takes the uint16 path, whose distance wraps to 0 (1 test fails);
    # the line the fix writes back has a constant and a comparison whose mutants the suite kills
    Bug("levenshtein.go", "\tif len(s2) > 65535 {\n", "\tif len(s2) > 65536 {\n"),
)  # fmt: skip
PROJECTS: tuple[Project | NpmProject | GoProject, ...] = (SLUGIFY, NUM2WORDS, INFLECT, NO_CASE, LEVENSHTEIN)
GO_MODULES = "go-modules"  # the host's module cache for the Go projects, in fetch's folder

# npm's own flags for every command here: nothing asked of the registry that its cache holds,
# no lifecycle scripts, no audit or funding requests.
NPM_FLAGS = ("--prefer-offline", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")


def fetch(projects: tuple[Project | NpmProject | GoProject, ...], folder: Path) -> dict[str, Path]:
    """Each project's sdist from PyPI, tarball from the npm registry or module from the Go module
    proxy, unpacked in `folder`: {name: its tree}."""
    trees = {}
    python = [p for p in projects if isinstance(p, Project)]
    if python:
        sdists = folder / "sdists"
        argv = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                "--dest", str(sdists), *(p.requirement for p in python)]  # fmt: skip
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        for project in python:
            [archive] = [p for p in sdists.iterdir() if _is_sdist_of(p.name, project)]
            unpack(archive, folder)
            trees[project.name] = folder / archive.name.removesuffix(".tar.gz")
    for project in projects:
        if isinstance(project, NpmProject):
            trees[project.name] = fetch_npm(project, folder)
        if isinstance(project, GoProject):
            trees[project.name] = fetch_go(project, folder)
    return trees


def fetch_go(project: GoProject, folder: Path) -> Path:
    """The module's files (`go mod download`, which checks them against the checksum database),
    copied as `folder/<last part of its path>-<version>`; `go mod download` there once fills the
    module cache `folder/go-modules` with every module its go.sum names: its download folder is
    the proxy a scenario's `setup` fetches them from (go_proxy)."""
    env = {**os.environ, "GOMODCACHE": str(folder / GO_MODULES), "GOFLAGS": "-modcacherw", "GOTOOLCHAIN": "local"}
    done = subprocess.run(["go", "mod", "download", "-json", project.requirement], env=env, check=True,
                          capture_output=True, text=True)  # fmt: skip
    tree = folder / f"{project.name.rsplit('/', 1)[-1]}-{project.version}"
    shutil.copytree(json.loads(done.stdout)["Dir"], tree)
    subprocess.run(["go", "mod", "download"], cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL)
    return tree


def go_proxy(folder: Path) -> Path:
    """The module proxy's files for the Go projects `fetch` fetched into `folder`."""
    return folder / GO_MODULES / "cache" / "download"


def fetch_npm(project: NpmProject, folder: Path) -> Path:
    """The package's tarball (`npm pack`), unpacked as `folder/<name>-<version>`, its manifest
    changed and locked; `npm ci` there once fills npm's cache with every package the lock names,
    so a scenario's own `npm ci --offline` needs no network, then its node_modules goes."""
    tarballs = folder / "npm"
    tarballs.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["npm", "pack", *NPM_FLAGS, "--json", "--pack-destination", str(tarballs),
                           project.requirement], check=True, capture_output=True, text=True)  # fmt: skip
    [packed] = json.loads(done.stdout)
    tree = folder / f"{project.name}-{project.version}"
    unpack(tarballs / packed["filename"], tarballs / tree.name)
    (tarballs / tree.name / "package").rename(tree)  # npm packs every file under package/
    manifest = json.loads((tree / "package.json").read_text())
    manifest.update(dict(project.manifest))
    (tree / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
    for command in (["install", "--package-lock-only"], ["ci"]):
        subprocess.run(["npm", *command, *NPM_FLAGS], cwd=tree, check=True, stdout=subprocess.DEVNULL)
    shutil.rmtree(tree / "node_modules")
    return tree


def _is_sdist_of(filename: str, project: Project) -> bool:
    normalized = project.name.replace("-", "_").lower()
    return filename.lower() == f"{normalized}-{project.version}.tar.gz"


def files_of(tree: Path) -> dict[str, bytes]:
    """The tree's files as a repository would hold them (relative path: bytes)."""
    found = {}
    for path in sorted(tree.rglob("*")):
        relative = path.relative_to(tree)
        if path.is_file() and not any(part.endswith(NOT_IN_GIT) for part in relative.parts):
            found[relative.as_posix()] = path.read_bytes()
    return found
