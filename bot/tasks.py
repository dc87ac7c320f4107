"""The action's tasks as specs: from a labeled issue, or from the repository's spec files.

Precedence: the action's inputs, then the task's own keys (issue block or spec file), then
`.github/autofix.yml`, then the spec's defaults.
"""

from __future__ import annotations

import glob
import re
from fnmatch import fnmatch
from pathlib import Path

from pydantic import Field

from bot import spec as specs
from bot.config import Config
from bot.errors import UserError
from bot.spec import Spec, Strict, Tests

# The first fenced ```yaml block of an issue body configures the task.
YAML_BLOCK = re.compile(r"^[ \t]*(```+|~~~+)[ \t]*ya?ml[ \t]*\n(?P<body>.*?)^[ \t]*\1[ \t]*$", re.M | re.S)


class IssueBlock(Strict):
    target: str | None = None
    tests: dict | None = None
    max_attempts: int | None = Field(None, ge=1, le=50)


def from_issue(config: Config, number: int, title: str, body: str) -> Spec:
    where = Path(f"issue #{number}, yaml block")
    body = body.replace("\r\n", "\n")  # what GitHub's web editor sends
    block, lines = IssueBlock(), {(): 1}
    found = YAML_BLOCK.search(body)
    if found:
        data, lines = specs.parse_yaml(found["body"], where)
        block = specs.validate(IssueBlock, data, lines, where)
    if not block.target:
        raise UserError(f"issue #{number}: no target: add a ```yaml block to the issue with `target: path/of/the/file.py`")
    tests = {k: v for k, v in config.repo.tests.model_dump().items() if v}
    tests.update(block.tests or {})
    if isinstance(tests.get("protect"), list):  # anything else is left for validation to name
        tests["protect"] = [*config.repo.tests.protect, *(block.tests or {}).get("protect", [])]
    data = {
        "task": f"{title}\n\n{body}".strip(),
        "target": block.target,
        "tests": tests,
        "max_attempts": config.max_attempts or block.max_attempts or config.repo.max_attempts or 3,
    }
    data.update({k: v for k, v in (("timeout", config.repo.timeout), ("model", config.repo.model), ("api", config.repo.api)) if v})
    spec = specs.validate(Spec, data, lines, where)
    return placed(spec, config, where)


def from_file(config: Config, relpath: str) -> Spec:
    """A spec file of the repository; its paths are relative to the repository's root."""
    spec = specs.load(config.workspace / relpath, config.workspace)
    spec.path = Path(relpath)
    for key in ("max_attempts", "timeout", "model", "api"):
        default = getattr(config.repo, key)
        if key not in spec.model_fields_set and default is not None:
            setattr(spec, key, default)
    if config.max_attempts:
        spec.max_attempts = config.max_attempts
    spec.tests = Tests(code=spec.tests.code, command=spec.tests.command, protect=[*config.repo.tests.protect, *spec.tests.protect])
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
