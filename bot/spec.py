"""The task spec: one YAML file, one task, validated with errors that name file, line and key."""

from __future__ import annotations

import ast
import builtins
import glob
import os
import re
from collections.abc import Iterable
from fnmatch import fnmatch, translate
from functools import lru_cache
from pathlib import Path, PurePosixPath
from typing import Literal, get_args

import yaml
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator, model_validator
from pydantic_core import ErrorDetails

from bot import commandfiles, loadable, syntax, testfiles
from bot.errors import UserError

# Paths a candidate may never change, on top of the spec's own `protect` list. Patterns work
# like .gitignore: one without a slash matches any path component; one with a slash matches the
# path or a folder it lies in. The tests and what configures how they run:
TEST_PROTECT = (
    "tests",
    "test_*.py",
    "*_test.py",
    "conftest.py",
    "pytest.ini",
    ".pytest.ini",
    "pytest.toml",
    ".pytest.toml",
    "tox.ini",
    "noxfile.py",
    "setup.cfg",
    "pyproject.toml",
    # JavaScript's: test files by the runners' default patterns, the manifest (its scripts run
    # the tests), lockfiles, and the runners' and TypeScript's configuration.
    "test",
    "__tests__",
    "*.test.*",
    "*.spec.*",
    "package.json",
    "package-lock.json",
    "npm-shrinkwrap.json",
    "pnpm-lock.yaml",
    "pnpm-workspace.yaml",
    "jest.config.*",
    "vitest.config.*",
    "vitest.workspace.*",
    "vite.config.*",
    "babel.config.*",
    ".babelrc*",
    "tsconfig*.json",
    ".npmrc",
    ".yarnrc*",
    "node_modules",
    # Go's: test files (a build tag's file of tests too: it ends in _test.go), the module's
    # requirements and checksums, and the workspace files that choose which modules build.
    "*_test.go",
    "go.mod",
    "go.sum",
    "go.work",
    "go.work.sum",
    ".git",
)
# CI configuration, code owners and pinned dependencies: protected too, unless the repository's
# `edit` globs name them (a fix may have to bump a pin). A broad `edit` glob never frees the
# tests: those stay protected whatever `edit` says.
OVERRIDABLE = (
    ".github",
    ".gitlab-ci.yml",
    ".circleci",
    "azure-pipelines.yml",
    "Jenkinsfile",
    "CODEOWNERS",
    ".pre-commit-config.yaml",
    "requirements*.txt",
    "*.lock",
)
DEFAULT_PROTECT = TEST_PROTECT + OVERRIDABLE
# What test tools write while the tests run, wherever it appears: never tampering.
CACHES = (
    "__pycache__",
    ".pytest_cache",
    ".hypothesis",
    ".mypy_cache",
    ".ruff_cache",
    ".coverage",
    ".coverage.*",
    ".tox",
    ".nox",
)


StrengthMode = Literal["report", "gate", "off"]
STRENGTH_MODES: tuple[StrengthMode, ...] = get_args(StrengthMode)
# How a spec's loop goes on after a failed attempt (bot/core/loop.py): repair (the feedback, in the
# conversation), resample (the task's first prompt again: a fresh sample), or repair+resample
# (repair, and a fresh start when a repair fails as the attempt before it did). The default is the
# one that solved most on `make bench-model`'s repair set (docs/evaluation.md).
Strategy = Literal["repair", "resample", "repair+resample"]
STRATEGIES: tuple[Strategy, ...] = get_args(Strategy)
DEFAULT_STRATEGY: Strategy = "resample"


class Strict(BaseModel):
    # Fields give a default as `default=`, the one form type checkers read (dataclass_transform).
    model_config = ConfigDict(extra="forbid", strict=True)


# What the target is: by its extension unless the spec's `kind` says; anything else is Python.
TargetKind = Literal["python", "json", "yaml", "sql", "javascript", "typescript", "go"]
KIND_OF_SUFFIX: dict[str, TargetKind] = {
    ".json": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".sql": "sql",
    **dict.fromkeys((".js", ".mjs", ".cjs", ".jsx"), "javascript"),
    **dict.fromkeys((".ts", ".mts", ".cts", ".tsx"), "typescript"),
    ".go": "go",
}


class SqlTests(Strict):
    """A SQL target's tests: the database its query runs on, and the rows it must return."""

    ddl: str = Field(alias="schema", min_length=1)  # a file of CREATE statements (`schema` is pydantic's own name)
    data: str | None = None  # a file of INSERT statements
    dialect: str = Field(default="sqlite", min_length=1)  # SQLite runs the query; others are parsed and resolved only
    expect: list[list[int | float | str | bool | None]] | None = None
    expect_file: str | None = None  # CSV, its first line naming the columns
    ordered: bool = False  # whether the rows' order counts
    # The schema's text as the spec's load read it, for the prompts: a copy of the spec may name
    # another work folder (an eval's), where the file isn't.
    _ddl_text: str | None = PrivateAttr(default=None)

    def ddl_text(self, workdir: Path, where: str) -> str:
        if self._ddl_text is None:
            self._ddl_text = testfiles.read(self.ddl, workdir, where)
        return self._ddl_text

    @model_validator(mode="after")
    def _one_expectation(self) -> SqlTests:
        if self.expect is not None and self.expect_file is not None:
            raise ValueError("`expect` and `expect_file` exclude each other")
        if self.dialect == "sqlite" and self.expect is None and self.expect_file is None:
            raise ValueError("needs the rows the query must return: `expect` or `expect_file`")
        return self


class Tests(Strict):
    code: str | None = None
    command: str | None = None
    json_schema: str | None = None  # a JSON or YAML target's JSON Schema file
    sql: SqlTests | None = None
    protect: list[str] = []
    exempt: list[str] = []  # paths the tests themselves may change (generated files): not compared

    @model_validator(mode="after")
    def _needs_one(self) -> Tests:
        if not (self.code or self.command or self.json_schema or self.sql):
            raise ValueError("needs `code`, `command`, `json_schema` or `sql`")
        return self


class SpecLimits(Strict):
    """Resource limits for every test run, on every sandbox tier."""

    memory_mb: int = Field(default=4096, ge=64)  # address space of each process
    processes: int = Field(default=256, ge=8)
    cpu_seconds: int = Field(default=300, ge=1)  # of each process; `timeout` bounds the wall time
    file_size_mb: int = Field(default=256, ge=1)
    output_mb: int = Field(default=16, ge=1)  # stdout and stderr together, before the run is killed
    disk_mb: int = Field(default=1024, ge=16)  # disk the whole run may fill, before it is killed


class ModelPrice(Strict):
    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cached_input: float | None = Field(default=None, ge=0)  # None: cached input tokens cost `input`


class Spec(Strict):
    task: str = Field(min_length=1)
    target: str = Field(min_length=1)
    entry: str | None = None
    tests: Tests
    max_attempts: int = Field(default=3, ge=1, le=50)
    timeout: float = Field(default=60, gt=0)
    max_tokens: int | None = Field(default=None, ge=1)
    max_seconds: float | None = Field(default=None, gt=0)
    max_cost: float | None = Field(default=None, gt=0)  # dollars; needs the model's price (bot/models/prices.py)
    price: ModelPrice | None = None  # dollars per million tokens, for a model the price list lacks
    limits: SpecLimits = SpecLimits()
    model: str | None = None
    api: Literal["responses", "chat"] | None = None
    request_timeout: float | None = Field(default=None, gt=0)  # seconds per model request; None: 120
    # the most tokens one reply may have; None: by the target's size (bot/models/base.py's scaled_reply_tokens)
    reply_tokens: int | None = Field(default=None, ge=16)
    temperature: float | None = Field(default=None, ge=0, le=2)  # sent with every call; None: the endpoint's
    # replies asked at once per round, with seeds of their own; each is a call of max_attempts
    candidates: int = Field(default=1, ge=1, le=8)
    strategy: Strategy = DEFAULT_STRATEGY
    # whole: the model writes the whole target; edit: SEARCH/REPLACE edits to the existing target;
    # auto: edit for an existing target longer than bot.core.edit_file.WHOLE_LINES, else whole.
    # A document or a query (json, yaml, sql) is always written whole.
    mode: Literal["auto", "whole", "edit"] = "auto"
    kind: TargetKind | None = None  # None: by the target's extension (KIND_OF_SUFFIX)
    # Test strength (bot/judge/strength.py): after a pass, mutants of the lines written are judged.
    # report: the score goes in the report; gate: a score below min_strength fails the attempt.
    strength: StrengthMode = "report"
    strength_budget: int = Field(default=20, ge=1)  # mutants judged at most
    strength_seconds: float = Field(default=120, gt=0)  # no mutant starts after this
    min_strength: float = Field(default=0.8, ge=0, le=1)  # the share of mutants the tests must kill

    @field_validator("strength", mode="before")
    @classmethod
    def _unquoted_off(cls, value: object) -> object:
        return "off" if value is False else value  # YAML 1.1 reads an unquoted `off` as false

    # Set by `load`, not by the YAML.
    path: Path = Field(default=Path("."), exclude=True)
    workdir: Path = Field(default=Path("."), exclude=True)
    key_lines: dict[tuple, int] = Field(default_factory=dict, exclude=True)  # the line of each key, for errors
    # commandfiles.derive's answer, by the command and the folder it was derived for
    _command_files: tuple[tuple[str, Path], commandfiles.CommandFiles] | None = PrivateAttr(default=None)

    @property
    def target_path(self) -> Path:
        return self.workdir / self.target

    @property
    def command_protection(self) -> tuple[str, ...]:
        """The patterns of what tests.command runs or reads as its configuration in the work
        folder (bot/commandfiles.py): protected, and never a target."""
        if not self.tests.command:
            return ()
        key = (self.tests.command, self.workdir)
        if self._command_files is None or self._command_files[0] != key:
            self._command_files = (key, commandfiles.derive(*key))
        return as_patterns(self._command_files[1])

    @property
    def protected(self) -> tuple[str, ...]:
        return DEFAULT_PROTECT + tuple(self.tests.protect) + self.command_protection

    @property
    def exempt(self) -> tuple[str, ...]:
        """Paths the protected-path check leaves alone, besides CACHES."""
        return tuple(self.tests.exempt)

    @property
    def target_kind(self) -> TargetKind:
        return self.kind or KIND_OF_SUFFIX.get(PurePosixPath(self.target).suffix.lower(), "python")

    @property
    def required_name(self) -> str | None:
        """The name the target must define: `entry`, else the first name the checks call
        that they don't define themselves. A document or a query defines no names."""
        if self.target_kind != "python":
            return None
        return self.entry or (called_name(self.tests.code) if self.tests.code else None)


def called_name(code: str) -> str | None:
    try:
        tree = syntax.parse(code)
    except SyntaxError:
        return None
    defined = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    defined |= {t.id for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            name = node.func.id
            if name not in defined and not hasattr(builtins, name):
                return name
    return None


def load(path: Path, workdir: Path | None = None) -> Spec:
    """Read and validate a spec; every problem becomes a one-line UserError."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UserError(f"{path}: cannot read spec: {exc.strerror}") from None
    data, lines = parse_yaml(text, path)
    spec = validate(Spec, data, lines, path)
    spec.path = path
    spec.workdir = (workdir or path.parent).resolve()
    spec.key_lines = lines
    check_target(spec)
    check_code(spec, lines.get(("tests", "code"), 1))
    check_kind(spec, lines)
    return spec


def check_kind(spec: Spec, lines: dict[tuple, int]) -> None:
    """The keys a target that isn't Python takes and refuses, and the files its tests name, read
    now so that a mistake in one stops the run before any model call."""
    kind = spec.target_kind

    def where(*key: str | int) -> str:
        return f"{spec.path}:{nearest_line(key, lines)}: {'.'.join(str(part) for part in key)}"

    python, document = kind == "python", kind in ("json", "yaml")
    code = kind in ("python", "javascript", "typescript", "go")
    refused = (
        (("tests", "json_schema"), spec.tests.json_schema and not document, "only a JSON or YAML target has one"),
        (("tests", "sql"), spec.tests.sql and kind != "sql", "only a SQL target has them"),
        (("tests", "code"), spec.tests.code and kind == "sql", "a SQL target is judged by tests.sql, not Python"),
        (("entry",), spec.entry and not python, "only a Python target defines names"),
        (("mode",), spec.mode == "edit" and not code, "a document or a query is written whole, never edited"),
    )
    for key, wrong, why in refused:
        if wrong:
            raise UserError(f"{where(*key)}: {why} ({spec.target} is {kind})")
    if spec.tests.json_schema is not None:
        testfiles.schema_validator(spec.tests.json_schema, spec.workdir, where("tests", "json_schema"))
    sql = spec.tests.sql
    if sql is None:
        return
    testfiles.check_dialect(sql.dialect, where("tests", "sql", "dialect"))
    ddl = sql.ddl_text(spec.workdir, where("tests", "sql", "schema"))
    if sql.data is not None:
        testfiles.read(sql.data, spec.workdir, where("tests", "sql", "data"))
    if sql.expect_file is not None:
        testfiles.expected_rows(sql.expect_file, spec.workdir, where("tests", "sql", "expect_file"))
    rows = sql.expect or []
    for index, row in enumerate(rows):
        if len(row) != len(rows[0]):
            values = f"{len(row)} value{'s' * (len(row) != 1)}"
            raise UserError(f"{where('tests', 'sql', 'expect', index)}: {values}, row 0 has {len(rows[0])}")
    if sql.dialect != "sqlite":  # SQLite reads its own schema in the sandbox (bot/judge/sql.py)
        testfiles.declared_tables(ddl, sql.ddl, sql.dialect, where("tests", "sql", "schema"))


def check_code(spec: Spec, line: int) -> None:
    if spec.tests.code is None:
        return
    try:
        syntax.parse(spec.tests.code)
    except SyntaxError as exc:
        raise UserError(
            f"{spec.path}:{line}: tests.code: invalid Python at line {exc.lineno} of the checks: {exc.msg}"
        ) from None


def parse_yaml(text: str, path: Path) -> tuple[dict, dict[tuple, int]]:
    """Parse YAML into plain data plus the line of every key, for error messages."""
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.MarkedYAMLError as exc:
        raise UserError(yaml_error(exc, text, path)) from None
    if not isinstance(data, dict):
        raise UserError(f"{path}:1: the file must be a YAML mapping of keys to values")
    lines: dict[tuple, int] = {}
    record_lines(node, (), lines)
    return data, lines


OPENERS = {"flow sequence": "[", "flow mapping": "{", "quoted scalar": "quote"}


def yaml_error(exc: yaml.MarkedYAMLError, text: str, path: Path) -> str:
    """One line at the place the problem starts: where PyYAML noticed it, unless that is the end
    of the file (an unclosed bracket or quote), then where the unclosed thing opened."""
    mark = exc.problem_mark or exc.context_mark
    at_end = mark is not None and mark.index >= len(text.rstrip())
    if at_end and exc.context_mark is not None:
        opened = next((name for key, name in OPENERS.items() if key in (exc.context or "")), None)
        mark = exc.context_mark
        if opened:
            what = "this '" + opened + "' is never closed" if opened != "quote" else "this quote is never closed"
            return f"{path}:{mark.line + 1}:{mark.column + 1}: invalid YAML: {what}"
    where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
    return f"{where}: invalid YAML: {exc.problem or exc.context}"


def record_lines(node: yaml.Node, loc: tuple, lines: dict[tuple, int]) -> None:
    lines[loc] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            child = loc + (key.value,)
            record_lines(value, child, lines)
            lines[child] = key.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            record_lines(item, loc + (index,), lines)


def validate(model: type[BaseModel], data: dict, lines: dict[tuple, int], path: Path):
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = tuple(part for part in error["loc"] if part not in ("function-after",))
        key = ".".join(str(part) for part in loc) or "(top level)"
        raise UserError(f"{path}:{nearest_line(loc, lines)}: {key}: {describe(error)}") from None


def nearest_line(loc: tuple, lines: dict[tuple, int]) -> int:
    while loc not in lines:
        loc = loc[:-1]
    return lines[loc]


def describe(error: ErrorDetails) -> str:
    kind = error["type"]
    if kind == "extra_forbidden":
        return "unknown key"
    if kind == "missing":
        return "missing required key"
    return error["msg"].removeprefix("Value error, ")


def check_target(spec: Spec) -> None:
    target = Path(spec.target)
    if target.is_absolute() or ".." in target.parts:
        raise UserError(f"{spec.path}: target: must be a path inside the work folder, got {spec.target!r}")
    if not spec.target_path.parent.is_dir():
        raise UserError(f"{spec.path}: target: folder {spec.target_path.parent} does not exist")
    if not spec.target_path.parent.resolve().is_relative_to(spec.workdir):
        raise UserError(f"{spec.path}: target: its folder is a symlink that leads out of the work folder")
    where = f"{spec.path}:{nearest_line(('target',), spec.key_lines)}" if spec.key_lines else str(spec.path)
    if is_protected(spec.target, spec.command_protection):
        raise UserError(
            f"{where}: target: {spec.target} is protected: tests.command runs it or reads it as its configuration"
        )
    if is_protected(spec.target, spec.protected):
        raise UserError(f"{where}: target: {spec.target} is a protected path")
    problem = loadable.refusal(normalised(spec.target) or "", lambda rel: os.path.lexists(spec.workdir / rel))
    if problem:
        raise UserError(
            f"{where}: target: {spec.target} may not be added: {problem} (one the repository has may be edited)"
        )
    if spec.mode == "edit" and not spec.target_path.is_file():
        raise UserError(f"{spec.path}: mode: edit changes an existing target, and {spec.target} does not exist")


def as_patterns(files: commandfiles.CommandFiles) -> tuple[str, ...]:
    """A command's files as protection patterns that match them alone: each path anchored at the
    root, each name in any folder, `[`, `*` and `?` escaped."""
    return tuple("/" + glob.escape(path) for path in files.paths) + tuple(glob.escape(n) for n in files.names)


def protected_by_command(command: str | None, root: Path) -> tuple[str, ...]:
    """The protection patterns of what `command` runs or reads in `root`, for the flows whose
    protected paths are not a Spec's (red CI, free-form)."""
    return as_patterns(commandfiles.derive(command, root)) if command else ()


def is_git_path(relpath: str) -> bool:
    """A path through a `.git` (any case, any depth): git's own files, never the repository's."""
    return any(part.casefold() == ".git" for part in PurePosixPath(relpath).parts)


def is_protected(relpath: str, patterns: tuple[str, ...], editable: tuple[str, ...] = ()) -> bool:
    """Whether `patterns` protect relpath, normalised first (`./a`, `a//b`, `a/` are `a`, `a/b`,
    `a`). A path that may lead out of the folder (absolute, or with `..`) always is. A path that
    an `editable` glob (the repository's `edit`) matches is free of the OVERRIDABLE patterns."""
    path = normalised(relpath)
    if path is None:
        return True
    if any(fnmatch(path, glob) for glob in editable):
        patterns = tuple(pattern for pattern in patterns if pattern not in OVERRIDABLE)
    return compiled(patterns).covers(path)


def normalised(relpath: str) -> str | None:
    """relpath without `.` components, empty ones and trailing slashes (case kept); None when
    it is absolute or has a `..`: it need not name anything inside the folder."""
    parts = [part for part in relpath.split("/") if part not in ("", ".")]
    if relpath.startswith("/") or ".." in parts:
        return None
    return "/".join(parts)


class PathPatterns:
    """Patterns compiled once, read as .gitignore reads them: one without a slash matches any
    component of a path, one with a slash at its start or in its middle the path or any folder it
    lies in (`/Makefile` is the root's alone; fnmatch's `*` crosses slashes). Patterns are
    normalised like paths."""

    def __init__(self, patterns: tuple[str, ...]):
        cleaned = [
            (pattern.startswith("/"), "/".join(part for part in pattern.split("/") if part not in ("", ".")))
            for pattern in patterns
        ]
        self.names = either(pattern for anchored, pattern in cleaned if not anchored and "/" not in pattern)
        self.paths = either(pattern for anchored, pattern in cleaned if anchored or "/" in pattern)

    def match(self, name: str, path: str) -> bool:
        """Whether the entry `name` at the normalised `path` matches, its folders left aside (a
        walk has checked those already)."""
        return bool(self.names.match(name) or self.paths.match(path))

    def covers(self, path: str) -> bool:
        """Whether the normalised `path` or a folder it lies in matches."""
        parts = path.split("/")
        return any(self.match(part, "/".join(parts[: depth + 1])) for depth, part in enumerate(parts))


@lru_cache(maxsize=64)
def compiled(patterns: tuple[str, ...]) -> PathPatterns:
    return PathPatterns(patterns)


def either(patterns: Iterable[str]) -> re.Pattern:
    return re.compile("|".join(translate(pattern) for pattern in patterns) or "(?!)")
