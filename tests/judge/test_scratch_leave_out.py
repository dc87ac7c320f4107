"""A scratch copy without the paths it is told to leave out (what other steps left in the Action's
workspace, bot/github/step.py `left_out`): not copied, not put back, and not reachable through a
tree shared read-only, on every tier."""

import os
import sys
from pathlib import Path

import pytest
from test_sandbox import private_tmp  # noqa: F401 - a fixture
from test_scratch import TIERS

from bot.judge.validate import Validator, python_paths
from bot.sandbox.tiers import open_sandbox
from bot.spec import Spec

LEFT = ("gha-creds-abc.json", "config/creds.json", ".venv/creds.json")
# The candidate names every left-out path its copy holds, next to its own file.
PEEK = f"""from pathlib import Path


def present():
    here = Path(__file__).parent
    return [name for name in {LEFT!r} if (here / name).exists()]


def unique_items(items):
    return list(dict.fromkeys(items))
"""


def judge(folder: Path, tier: str) -> Validator:
    spec = Spec.model_validate({"task": "t", "target": "unique.py", "tests": {"code": "assert present() == [], 'p'\n"}})
    spec.workdir = folder
    sandbox = open_sandbox(tier, readable=python_paths(folder))
    return Validator(spec, sandbox, screen=None, leave_out=frozenset(LEFT))


@pytest.mark.parametrize("tier", TIERS)
def test_left_out_paths_are_in_no_copy_and_no_shared_tree(private_tmp, tier):
    folder = private_tmp / "work"
    for path, text in {
        "config/settings.txt": "tracked\n",
        ".venv/pyvenv.cfg": f"home = {os.path.dirname(sys.executable)}\n",
        **dict.fromkeys(LEFT, '{"private_key": "planted"}\n'),
    }.items():
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text(text)
    checker = judge(folder, tier)
    assert checker.preflight() == ["copied .venv rather than sharing it read-only: it holds files left out of the copy"]
    [scratch] = checker.copies.idle
    assert not (scratch.work / ".venv").is_symlink() and (scratch.work / ".venv" / "pyvenv.cfg").is_file()
    assert (scratch.work / "config" / "settings.txt").read_text() == "tracked\n"
    verdict = checker.check(PEEK)
    assert verdict.passed, verdict.feedback
    assert all((folder / path).is_file() for path in LEFT)  # the original keeps them


@pytest.mark.parametrize("tier", TIERS)
def test_a_folder_put_back_from_the_original_leaves_them_out_too(private_tmp, tier):
    folder = private_tmp / "work"
    for path in ["config/settings.txt", *LEFT]:
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_text("x\n")
    checker = judge(folder, tier)
    checker.preflight()
    [scratch] = checker.copies.idle
    with scratch.use() as work:
        os.rename(work / "config", work / "moved")  # what a run might do; put back from the original
    assert sorted(p.name for p in (scratch.work / "config").iterdir()) == ["settings.txt"]
    assert not (scratch.work / "moved").exists()
