"""The action's tasks as specs: from a labeled issue, or from the repository's spec files.

Precedence: the action's inputs, then the task's own keys (issue block or spec file), then
`.github/autofix.yml`, then the spec's defaults. Exceptions for issues, whose author may be
anyone: the block's `tests` (and a free-form block's `files`) count only when its author may write
to the repository, such an author's `target` must be a source file, and the block's
`max_attempts` can only lower the repository's.
"""

from __future__ import annotations

import glob
import re
from dataclasses import dataclass
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from pydantic import Field

from bot import spec as specs
from bot.errors import UserError
from bot.github.config import Config
from bot.spec import KIND_OF_SUFFIX, Spec, Strict
from bot.visible import Visible, plain, visible

DEFAULT_ATTEMPTS = 3
# What an author without write access may name as the target: code, never a script, a makefile or
# a configuration the test command may run or read through names no reading of it can follow.
SOURCE_SUFFIXES = (".py", *KIND_OF_SUFFIX)
FENCE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`]*?)[ \t]*$")


class IssueBlock(Strict):
    target: str | None = None
    tests: dict | None = None  # counts only from an author with write access
    max_attempts: int | None = Field(None, ge=1, le=50)  # can only lower the repository's
    mode: Literal["auto", "whole", "edit"] | None = None  # how the model answers: bot/spec.py
    files: list[str] | None = (
        None  # a free-form issue's hint, from an author with write access: the files the bug is in
    )


@dataclass(frozen=True)
class Issue:
    """A labeled issue: its title and body are the task, its visible yaml block the task's keys."""

    number: int
    title: str
    body: str
    block: IssueBlock
    lines: dict[tuple, int]  # of each key in the block, for error messages
    hidden: Visible  # what of the title and body no reader sees, removed before any prompt

    @classmethod
    def read(cls, number: int, title: str, body: str) -> Issue:
        shown_title = plain(title)  # GitHub shows a title as text, not Markdown
        shown = visible(body.replace("\r\n", "\n"))  # what GitHub's web editor sends
        title, body, hidden = shown_title.text, shown.text, shown + shown_title
        text = visible_yaml_block(body)
        if text is None:
            return cls(number, title, body, IssueBlock(), {(): 1}, hidden)
        data, lines = specs.parse_yaml(text, cls.where(number))
        block = specs.validate(IssueBlock, data, lines, cls.where(number))
        return cls(number, title, body, block, lines, hidden)

    @staticmethod
    def where(number: int) -> Path:
        return Path(f"issue #{number}, yaml block")


def visible_yaml_block(body: str) -> str | None:
    """The first fenced yaml block a reader of the issue sees. What an HTML comment hides is
    shown to nobody, so the maintainer who labels never saw it: it doesn't count. An opened
    `<!--` hides the rest of its line and what follows up to `-->`, as a browser reads it; inside
    a fenced block it is only text."""
    fence, yaml, hidden = None, False, False
    content: list[str] = []
    for line in body.split("\n"):
        if hidden:
            hidden = "-->" not in line or opens_comment(line[line.index("-->") + 3 :])
        elif fence is not None:
            closing = FENCE.match(line)
            if (
                closing
                and not closing["info"]
                and closing["fence"][0] == fence[0]
                and len(closing["fence"]) >= len(fence)
            ):
                if yaml:
                    return "".join(content)
                fence = None
            else:
                content.append(line + "\n")
        elif opening := FENCE.match(line):
            fence, yaml, content = opening["fence"], opening["info"] in ("yaml", "yml"), []
        else:
            hidden = opens_comment(line)
    return None


def opens_comment(line: str) -> bool:
    return line.rfind("<!--") > line.rfind("-->")


def from_issue(config: Config, issue: Issue, tests_from_block: bool) -> Spec:
    """The issue's task. `tests_from_block`: the issue's author may write to the repository, so
    the block's `tests` count; otherwise the repository's configuration alone says what judges."""
    block, where = issue.block, Issue.where(issue.number)  # a block without a target is a free-form issue
    block_tests = (block.tests or {}) if tests_from_block else {}
    tests = {k: v for k, v in config.repo.tests.model_dump().items() if v}
    tests.update(block_tests)
    if isinstance(tests.get("protect"), list):  # anything else is left for validation to name
        tests["protect"] = [*config.repo.tests.protect, *block_tests.get("protect", [])]
    if isinstance(tests.get("exempt"), list):
        tests["exempt"] = [*config.repo.tests.exempt, *block_tests.get("exempt", [])]
    if block.tests and not tests_from_block and not tests.get("command"):
        raise UserError(
            f"issue #{issue.number}: no tests: a yaml block's tests count only when the issue's author may write to "
            f"the repository, and {config.config_path} sets no tests.command"
        )
    most = config.max_attempts or config.repo.max_attempts or DEFAULT_ATTEMPTS
    data: dict[str, Any] = {
        "task": f"{issue.title}\n\n{issue.body}".strip(),
        "target": block.target,
        "tests": tests,
        "max_attempts": min(block.max_attempts or most, most),
        **({"mode": block.mode} if block.mode else {}),
    }
    data.update(
        {
            k: v
            for k, v in (
                ("timeout", config.repo.timeout),
                ("model", config.repo.model),
                ("api", config.repo.api),
                ("price", config.repo.price.model_dump() if config.repo.price else None),
                ("temperature", config.repo.temperature),
                ("candidates", config.repo.candidates),
                ("strategy", config.repo.strategy),
            )
            if v is not None and v != ""
        }
    )
    if config.max_tokens:
        data["max_tokens"] = config.max_tokens
    if config.strength:
        data["strength"] = config.strength
    spec = specs.validate(Spec, data, issue.lines, where)
    spec.key_lines = issue.lines
    placed(spec, config, where)
    if not tests_from_block and PurePosixPath(spec.target).suffix.lower() not in SOURCE_SUFFIXES:
        raise UserError(
            f"{where}:{specs.nearest_line(('target',), issue.lines)}: target: {spec.target} is not a source file "
            f"({', '.join(SOURCE_SUFFIXES)}); an issue whose author may not write to the repository targets code only"
        )
    return spec


def from_file(config: Config, relpath: str) -> Spec:
    """A spec file of the repository; its paths are relative to the repository's root."""
    spec = specs.load(config.workspace / relpath, config.workspace)
    spec.path = Path(relpath)
    for key in ("max_attempts", "timeout", "model", "api", "price", "temperature", "candidates", "strategy"):
        default = getattr(config.repo, key)
        if key not in spec.model_fields_set and default is not None:
            setattr(spec, key, default)
    if config.max_attempts:
        spec.max_attempts = config.max_attempts
    if config.max_tokens:
        spec.max_tokens = min(spec.max_tokens or config.max_tokens, config.max_tokens)
    if config.strength:
        spec.strength = config.strength
    spec.tests = spec.tests.model_copy(
        update={
            "protect": [*config.repo.tests.protect, *spec.tests.protect],
            "exempt": [*config.repo.tests.exempt, *spec.tests.exempt],
        }
    )
    return placed(spec, config, Path(relpath))


def placed(spec: Spec, config: Config, where: Path) -> Spec:
    spec.path = where
    spec.workdir = config.workspace.resolve()
    specs.check_target(spec)
    if config.repo.edit and not any(fnmatch(spec.target, pattern) for pattern in config.repo.edit):
        raise UserError(f"{where}: target: {spec.target} is not among the paths `edit` allows in {config.config_path}")
    return spec


def spec_files(workspace: Path, pattern: str, only: str | None = None) -> list[str]:
    """The spec files `pattern` matches (or just `only`), relative to the workspace, sorted."""
    if only:
        if not (workspace / only).is_file():
            raise UserError(f"input spec: {only} is not a file in the repository")
        return [only]
    matches = glob.glob(pattern, root_dir=workspace, recursive=True)
    return sorted(m for m in matches if (workspace / m).is_file())


def spec_name(relpath: str) -> str:
    """The branch-safe name of a spec: `.autofix/unique_items.yml` -> `unique_items`."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", Path(relpath).stem).strip(".-") or "spec"
