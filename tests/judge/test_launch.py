"""Which test commands autofix starts itself, with no shell between it and pytest (launch.py)."""

import shutil
import sys

import pytest

from bot.judge.launch import Direct, direct

ENV = {"PATH": "/usr/bin:/bin"}


def test_plain_pytest_invocations_are_started_without_a_shell():
    assert direct(f"{sys.executable} -m pytest -q tests", ENV) == Direct(
        [sys.executable, "-m", "pytest"], ["-q", "tests"], {}
    )
    assert direct(f"PYTHONHASHSEED=1 {sys.executable} -m pytest tests/test_a.py -k x", ENV) == Direct(
        [sys.executable, "-m", "pytest"], ["tests/test_a.py", "-k", "x"], {"PYTHONHASHSEED": "1"}
    )
    python3 = shutil.which("python3", path=ENV["PATH"])
    assert direct("python3 -m pytest", ENV) == Direct([python3, "-m", "pytest"], [], {})


@pytest.mark.parametrize(
    "command",
    [
        "make test",  # not pytest: its recipe is the shell's
        f"cd tests && {sys.executable} -m pytest",  # an operator
        f"PYTHONPATH=src:$PYTHONPATH {sys.executable} -m pytest",  # an expansion
        f"{sys.executable} -m pytest 'tests/a b.py'",  # quoting that sh and shlex might read apart
        f"{sys.executable} -m pytest tests/*.py",  # a glob
        ".venv/bin/python -m pytest",  # relative to the folder the run starts in
        "no-such-program-anywhere -m pytest",  # not python
        "pytest-not-installed-here",  # sh says it can't start, in words autofix knows
        f"{sys.executable} -X dev -m pytest",  # an option before -m
    ],
)
def test_anything_else_runs_through_sh(command):
    assert direct(command, ENV) is None
