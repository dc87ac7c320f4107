"""What `setup` left is read as its users read it (bot/github/interpreter.py): the environment's
paths come from its own Python, asked once in the sandbox, and nothing `setup` leaves makes a
folder outside the environment, the system's and the interpreter's own readable to a test run.

The attack (issue #40): `setup` appends a second `home =` line to pyvenv.cfg; Python takes the
first, autofix once took the last and lent its parent, the folder above the workspace, to every
later test run, which then read a credentials file the scratch copies leave out. Each test here
fails with the guard removed: parsing pyvenv.cfg again, or the answer's bounds lifted.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path

import pytest
from action_world import act, labeled
from test_repo_environment import PRICES_RIGHT, install, issue, shop, wheels  # noqa: F401 - wheels: a fixture

from bot.errors import UserError
from bot.github import environment, interpreter
from bot.judge.validate import open_test_sandbox
from bot.sandbox.tiers import Limits, Outcome, allowed_environ

TIERS = ["bwrap", "landlock"]
CONFIG = ".github/autofix.yml"
SECRET = "ghs_credentialsTheCopiesLeaveOut0123"
OWN = os.path.realpath(sys.base_prefix)  # autofix's interpreter: every test run reads it already
VERSION = f"python{sys.version_info.major}.{sys.version_info.minor}"


@pytest.fixture
def work(tmp_path) -> Path:
    """The workspace, in the runner's folder (`runner`) beside RUNNER_TEMP, a credentials file an
    earlier step left in it."""
    folder = tmp_path / "runner" / "work"
    folder.mkdir(parents=True)
    (folder / "gha-creds-1.json").write_text(SECRET)
    (tmp_path / "runner-temp").mkdir()
    return folder


def made(work: Path, setup: str | None, tier: str = "bwrap") -> environment.Environment:
    temp = work.parent.parent / "runner-temp"
    return environment.build(work, None, setup, CONFIG, 300, lambda _: None, tier=tier, private=[temp])


def lent(made: environment.Environment, tier: str, argv: list[str], folder: Path) -> Outcome:
    """`argv` run as a test run is: in the step's sandbox, lent what the environment says."""
    sandbox = open_test_sandbox(tier, "input sandbox", print, also=made.readable())
    folder.mkdir(exist_ok=True)
    env = allowed_environ({"PATH": environment.tests_path(made.prefix)})
    return sandbox.run(argv, folder, env, Limits(wall_seconds=60))


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("edit", ["appended", "replaced"])
def test_a_home_line_setup_leaves_makes_nothing_above_the_workspace_readable(work, tmp_path, tier, edit):
    """A second `home =` line (Python reads the first), or the first one changed (Python looks
    there and, not shown it, falls back to where it was built): a test run reads the environment
    and the interpreter's own folders, never the runner's folder above the workspace."""
    line = f"home = {work.parent}/bin"
    cfg = f"{environment.ENV}/pyvenv.cfg"
    setup = f'echo "{line}" >> {cfg}' if edit == "appended" else f'sed -i "s|^home = .*|{line}|" {cfg}'
    env = made(work, setup, tier)
    assert line in (work / cfg).read_text()
    assert env.readable() == [work / environment.ENV, Path(OWN)]
    stolen = lent(env, tier, ["/bin/cat", str(work / "gha-creds-1.json")], tmp_path / "run")
    assert stolen.returncode == 1 and SECRET not in stolen.output
    runs = lent(env, tier, ["python", "-c", "import json, sys; print(sys.prefix)"], tmp_path / "run")
    assert (runs.returncode, runs.output) == (0, f"{work / environment.ENV}\n")


def claims(work: Path, changed: Mapping[str, object]) -> str:
    """A `bin/python` that prints the answer an ordinary environment's gives, `changed` aside."""
    prefix = str(work / environment.ENV)
    answer: dict[str, object] = {
        "sys.prefix": prefix,
        "sys.exec_prefix": prefix,
        "sys.base_prefix": OWN,
        "sys.base_exec_prefix": OWN,
        "sys.executable": os.path.realpath(sys.executable),
        "sysconfig stdlib": f"{OWN}/lib/{VERSION}",
        "sysconfig platstdlib": f"{prefix}/lib/{VERSION}",
        "sysconfig purelib": f"{prefix}/lib/{VERSION}/site-packages",
        "sysconfig platlib": f"{prefix}/lib/{VERSION}/site-packages",
        "sys.version_info": [3, 11, 7],
    }
    answer.update(changed)
    answer = {key: value for key, value in answer.items() if value is not None}
    return f"#!/bin/sh\nprintf '%s\\n' '{interpreter.MARK}{json.dumps(answer)}'\n"


# (what the fake interpreter claims, what the refusal says after `.autofix/venv/bin/python says its `)
OUT_OF_PLACE = {
    "base prefix above the workspace": (
        lambda work: {"sys.base_prefix": str(work.parent)},
        lambda work: f"sys.base_prefix is {work.parent}, a folder holding {work}",
    ),
    "base prefix holding the homes": (
        lambda work: {"sys.base_prefix": "/home"},
        lambda work: "sys.base_prefix is /home, a folder holding /home",
    ),
    "base exec prefix of RUNNER_TEMP": (
        lambda work: {"sys.base_exec_prefix": str(work.parent.parent / "runner-temp")},
        lambda work: (
            f"sys.base_exec_prefix is {work.parent.parent / 'runner-temp'}, a folder holding "
            f"{work.parent.parent / 'runner-temp'}"
        ),
    ),
    "base prefix the root": (
        lambda work: {"sys.base_prefix": "/"},
        lambda work: f"sys.base_prefix is /, a folder holding {work}",
    ),
    "base prefix of no system": (
        lambda work: {"sys.base_prefix": "/srv/python"},
        lambda work: (
            "sys.base_prefix is /srv/python, outside the environment, the system's Pythons "
            f"(/usr, /opt/hostedtoolcache) and autofix's own ({OWN})"
        ),
    ),
    "site-packages above the workspace": (
        lambda work: {"sysconfig purelib": str(work.parent)},
        lambda work: f"sysconfig purelib is {work.parent}, outside the environment and its interpreter's installation",
    ),
    "executable through a link out": (
        lambda work: {"sys.executable": "/usr/../srv/python3"},
        lambda work: (
            "sys.executable is /usr/../srv/python3, outside the environment and its interpreter's installation"
        ),
    ),
    "prefix not the environment": (
        lambda work: {"sys.prefix": str(work.parent)},
        lambda work: f"sys.prefix is {work.parent}, not the environment itself",
    ),
}


@pytest.mark.parametrize("case", OUT_OF_PLACE)
def test_an_answer_out_of_its_place_is_refused(work, case):
    """The answer comes from a process setup's files configure: here a `bin/python` of setup's
    own. A path out of its place is one line naming it and why, exit 2, and nothing is lent."""
    claimed, said = OUT_OF_PLACE[case]
    (work / "fake-python").write_text(claims(work, claimed(work)))
    bin_python = f"{environment.ENV}/bin/python"
    with pytest.raises(UserError) as refused:
        made(work, f"rm {bin_python} && cp fake-python {bin_python} && chmod 755 {bin_python}")
    assert str(refused.value) == f"{CONFIG}: setup: {environment.ENV}/bin/python says its {said(work)}"


def test_the_same_fake_answering_in_place_is_taken(work):
    """The control of the cases above: their fake, claiming the ordinary paths, is believed."""
    (work / "fake-python").write_text(claims(work, {"sys.version_info": [3, 12, 1]}))
    bin_python = f"{environment.ENV}/bin/python"
    env = made(work, f"rm {bin_python} && cp fake-python {bin_python} && chmod 755 {bin_python}")
    assert (env.readable(), env.python_version()) == ([work / environment.ENV, Path(OWN)], "Python 3.12.1")


SHAPES: dict[str, dict[str, object]] = {
    "version as text": {"sys.version_info": ["3", 11, 7]},
    "version of two": {"sys.version_info": [3, 11]},
    "version of five": {"sys.version_info": [3, 11, 7, "final", 0]},
    "version with a bool": {"sys.version_info": [3, True, 7]},
    "a relative path": {"sys.base_prefix": "usr"},
    "a line separator": {"sys.base_prefix": f"{OWN}\u2028"},
    "a key missing": {"sys.executable": None},
}


@pytest.mark.parametrize("case", SHAPES)
def test_an_answer_of_another_shape_is_refused(work, case):
    (work / "fake-python").write_text(claims(work, SHAPES[case]))
    bin_python = f"{environment.ENV}/bin/python"
    with pytest.raises(UserError) as refused:
        made(work, f"rm {bin_python} && cp fake-python {bin_python} && chmod 755 {bin_python}")
    said = "did not answer in the sandbox: its answer is not of the shape asked"
    assert str(refused.value) == f"{CONFIG}: setup: {environment.ENV}/bin/python {said}"


@pytest.mark.parametrize("tier", TIERS)
def test_an_environment_linked_out_of_the_workspace_is_refused(work, tier):
    """The environment made a link to the runner's folder, laid out as one (a pyvenv.cfg, a
    bin/python): refused before autofix changes or runs anything there. (Without the check,
    landlock lends the runner's folder: its Python's prefix is the link's real path.)"""
    above = work.parent
    (above / "bin").mkdir()
    (above / "bin" / "python").symlink_to(os.path.realpath(sys.executable))
    (above / "pyvenv.cfg").write_text(f"home = {OWN}/bin\n")
    with pytest.raises(UserError) as refused:
        made(work, f"rm -rf {environment.ENV} && ln -s {above} {environment.ENV}", tier)
    said = f"left {environment.ENV} as a link to {above}: the environment must be the folder itself"
    assert str(refused.value) == f"{CONFIG}: setup: {said}"


@pytest.mark.parametrize("tier", TIERS)
def test_an_ordinary_environment_still_works(work, tmp_path, tier):
    """uv's environment of autofix's own interpreter, and one `python -m venv` makes from the
    system's: each lent with its installation, its Python runs in the sandbox."""
    env = made(work, None, tier)
    assert env.readable() == [work / environment.ENV, Path(OWN)]
    assert env.python_version() == "Python {}.{}.{}".format(*sys.version_info)
    runs = lent(env, tier, ["python", "-c", "import json, sys; print(sys.base_prefix)"], tmp_path / "run")
    assert (runs.returncode, runs.output) == (0, f"{sys.base_prefix}\n")

    system = made(work, f"rm -rf {environment.ENV} && /usr/bin/python3 -m venv --without-pip {environment.ENV}", tier)
    assert system.readable() == [work / environment.ENV, Path("/usr")]
    runs = lent(system, tier, ["python", "-c", "import json, sys; print(sys.base_prefix)"], tmp_path / "run")
    assert (runs.returncode, runs.output) == (0, "/usr\n")


@pytest.mark.parametrize("tier", TIERS)
def test_the_action_s_tests_can_t_read_the_runner_s_files_after_a_second_home_line(world, github, capsys, wheels, tier):
    """The whole step: `setup` installs the project and appends the line; the suite's own test
    tries the credentials file the copies leave out, through the folder above the workspace."""
    world.input("sandbox", tier)
    creds = world.workspace / "gha-creds-1.json"
    test = (
        "import pytest\n\n\ndef test_out_of_reach():\n"
        f"    with pytest.raises(OSError):\n        open({str(creds)!r}).read()\n"
    )
    line = f"home = {world.tmp}/bin"
    setup = f"{install(wheels)} && echo '{line}' >> {environment.ENV}/pyvenv.cfg"
    world.commit_to_origin({**shop("src"), "tests/test_reach.py": test, CONFIG: f'setup: "{setup}"\n'})
    creds.write_text(SECRET)  # an earlier step's, untracked
    world.event("issues", labeled(body=issue("src/shop/prices.py")))
    code, out, openai = act(capsys, world, [PRICES_RIGHT])
    assert code == 0, out[-5:]
    assert len(openai.requests) == 1
    assert line in (world.workspace / environment.ENV / "pyvenv.cfg").read_text()


def test_an_interpreter_that_does_not_start_is_refused(work):
    bin_python = f"{environment.ENV}/bin/python"
    with pytest.raises(UserError) as refused:
        made(work, f"rm {bin_python}")
    said = f"{CONFIG}: setup: {bin_python} did not answer in the sandbox: exit code 127 (/usr/bin/env: "
    # env quotes the path as the locale does
    assert str(refused.value).startswith(said) and str(refused.value).endswith(": No such file or directory)")


def test_the_action_stops_before_any_model_call_on_a_refusal(world, github, capsys):
    """A refusal is the step's one-line error (exit 2), before any model call."""
    bin_python = f"{environment.ENV}/bin/python"
    (world.seed / "fake-python").write_text(claims(world.workspace, {"sys.base_prefix": str(world.tmp)}))
    setup = f"rm {bin_python} && cp fake-python {bin_python} && chmod 755 {bin_python}"
    world.commit_to_origin({CONFIG: f"setup: {setup}\n"})
    world.event("issues", labeled())
    code, out, openai = act(capsys, world)
    said = f"{bin_python} says its sys.base_prefix is {world.tmp}, a folder holding {os.path.realpath(world.workspace)}"
    assert (code, out[-1], openai.requests) == (2, f"::error::{CONFIG}: setup: {said}", [])
