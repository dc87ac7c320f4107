"""The audit hook of autofix's pytest plugin (bot/judge/sandboxed/audit.py): code under repair
that reaches for the runner's live objects through frames, gc, a traceback or ctypes is stopped
and the run fails, on every tier. The static guard is left out (`screen=None`) so that each
attack reaches the dynamic layer; each, unstopped, flips the failing test to passed without
anything else noticing."""

import sys

import pytest
from suite_env import PYTHON as SUITE_PYTHON

from bot.judge.validate import Validator, python_paths
from bot.sandbox.tiers import open_sandbox
from bot.spec import Spec

TIERS = ["bwrap", "landlock", "process"]
TEST_FILE = """\
from unique import unique_items


def test_order():
    assert unique_items([3, 1, 3, 2, 1]) == [3, 1, 2]


def test_empty():
    assert unique_items([]) == []
"""
# What every attack does once it holds the plugin manager: the recorder's own bookkeeping turns
# test_order's failure into a pass, and the session stops counting it (no hook, no function of
# the machinery replaced, the canaries untouched).
FLIP = """\
def flip(manager):
    for plugin in manager.get_plugins():
        if hasattr(plugin, "cases") and hasattr(plugin, "note") and "note" not in vars(plugin):
            plugin.note = passing(plugin, plugin.note)


def passing(recorder, real):
    def note(report, outcome):
        if report.nodeid == "tests/test_unique.py::test_order" and outcome == "failed":
            report.outcome, outcome = "passed", "passed"
            recorder.session.testsfailed -= 1
        return real(report, outcome)

    return note


def walk(frame):
    while frame is not None:
        item = frame.f_locals.get("item")
        if item is not None and hasattr(item, "config"):
            flip(item.config.pluginmanager)
            return
        frame = frame.f_back

"""
WRONG = "    return list(set(items))\n"
ATTACKS = {
    "sys._getframe": "import sys\n" + FLIP + "def unique_items(items):\n    walk(sys._getframe(1))\n" + WRONG,
    "gc.get_objects": (
        "import gc\n" + FLIP + "def unique_items(items):\n"
        "    for found in gc.get_objects():\n"
        "        if type(found).__name__ == 'PytestPluginManager':\n"
        "            flip(found)\n" + WRONG
    ),
    "a frame (.tb_frame)": (
        FLIP + "def unique_items(items):\n"
        "    try:\n        raise ValueError\n"
        "    except ValueError as caught:\n        walk(caught.__traceback__.tb_frame)\n" + WRONG
    ),
    # ctypes imported by a name no reader of the source sees, then the interpreter's own frame.
    "an import of _ctypes": (
        "import importlib\n" + FLIP + "def unique_items(items):\n"
        "    ctypes = importlib.import_module(''.join(['c', 'ty', 'pes']))\n"
        "    current = ctypes.pythonapi.PyEval_GetFrame\n"
        "    current.restype = ctypes.py_object\n"
        "    walk(current())\n" + WRONG
    ),
}
# Lines of the attacks above where each asks (the line numbers of unique.py).
ASKED_AT = {"sys._getframe": 27, "gc.get_objects": 27, "a frame (.tb_frame)": 29, "an import of _ctypes": 27}
sandboxes = {}


def checker(folder, tier, python=SUITE_PYTHON):
    if tier not in sandboxes:
        sandboxes[tier] = open_sandbox(tier, readable=python_paths())
    (folder / "tests").mkdir()
    (folder / "tests" / "test_unique.py").write_text(TEST_FILE)
    spec = Spec.model_validate(
        {
            "task": "t",
            "target": "unique.py",
            "tests": {"command": f"{python} -m pytest -q tests"},
            "timeout": 30,
        }
    )
    spec.workdir = folder
    return Validator(spec, sandboxes[tier], screen=None)


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("means", list(ATTACKS))
def test_code_under_repair_cannot_reach_the_runner(tmp_path, tier, means):
    verdict = checker(tmp_path, tier).check(ATTACKS[means])
    assert not verdict.passed
    assert "tests.test_unique::test_order" in verdict.failing
    assert (
        f"(pytest): code under repair at unique.py:{ASKED_AT[means]} asked for {means} during the run; "
        "the tests' machinery may not change" in verdict.feedback
    )


@pytest.mark.parametrize("tier", TIERS)
def test_a_hook_added_by_code_under_repair_is_refused(tmp_path, tier):
    # Another audit hook would be handed what pytest's own code looks at: here the traceback of
    # test_order's failure, as pytest reports it.
    spy = (
        "import sys\n" + FLIP + "inside = []\n\n\ndef spy(event, args):\n"
        "    if event == 'object.__getattr__' and args[1] == 'tb_frame' and not inside:\n"
        "        inside.append(True)\n        walk(args[0].tb_frame)\n        inside.pop()\n\n\n"
        "sys.addaudithook(spy)\n\n\ndef unique_items(items):\n" + WRONG
    )
    verdict = checker(tmp_path, tier).check(spy)
    assert not verdict.passed
    assert "(pytest): code under repair at unique.py:36 asked for sys.addaudithook during the run" in verdict.feedback


# Code under repair as ordinary code is written: the standard library's own uses of frames
# (namedtuple, typing, enum, logging, traceback, warnings) go on when it calls them.
ORDINARY = """\
import collections
import enum
import logging
import traceback
import typing
import warnings

T = typing.TypeVar("T")
Pair = collections.namedtuple("Pair", "first second")
Colour = enum.Enum("Colour", "RED GREEN")
log = logging.getLogger(__name__)


def unique_items(items: typing.List[T]) -> typing.List[T]:
    log.warning("unique of %d items", len(items))
    try:
        raise KeyError(Pair(1, Colour.RED))
    except KeyError:
        log.exception("kept")
        assert "KeyError" in traceback.format_exc()
    warnings.warn("noted", UserWarning)
    return list(dict.fromkeys(items))
"""
# The suite itself may look at frames and objects: pytest's approx and raises (with its
# traceback), assertion rewriting, caplog, a generator fixture, inspect and gc in a test.
ORDINARY_TESTS = """\
import gc
import inspect

import pytest

from unique import unique_items


@pytest.fixture
def numbers():
    yield [3, 1, 3, 2, 1]


def test_order(numbers, caplog):
    with pytest.warns(UserWarning):
        assert unique_items(numbers) == [3, 1, 2]
    assert "unique of 5 items" in caplog.text


def test_approx_and_raises():
    assert [0.1 + 0.2] == pytest.approx([0.3])
    with pytest.raises(ZeroDivisionError) as caught:
        1 / 0
    assert caught.traceback[-1].frame.code.name == "test_approx_and_raises"


def test_frames_and_objects():
    assert inspect.stack()[0].function == "test_frames_and_objects"
    assert any(callable(found) for found in gc.get_objects()[:100])
"""


@pytest.mark.parametrize("tier", TIERS)
def test_ordinary_code_and_a_suite_that_introspects_pass(tmp_path, tier):
    judge = checker(tmp_path, tier)
    (tmp_path / "tests" / "test_unique.py").write_text(ORDINARY_TESTS)
    verdict = judge.check(ORDINARY)
    assert verdict.passed, verdict.feedback
    wrong = judge.check(ORDINARY.replace("list(dict.fromkeys(items))", "list(set(items))"))
    assert wrong.failing == ["tests.test_unique::test_order"]
    assert "code under repair" not in wrong.feedback


# The repository's own code may do what the hook guards (attrs names the module of the classes
# it makes with sys._getframe): the baseline's run notes where, and those places are let be.
OWN = """\
import sys


def module_of_caller():
    return sys._getframe(1).f_globals["__name__"]


def unique_items(items):
    module_of_caller()
{body}"""


@pytest.mark.parametrize("tier", TIERS)
def test_the_repositorys_own_use_is_let_be_and_an_added_one_is_refused(tmp_path, tier):
    (tmp_path / "unique.py").write_text(OWN.format(body=WRONG))
    judge = checker(tmp_path, tier)
    judge.preflight()
    assert judge.check(OWN.format(body="    return list(dict.fromkeys(items))\n")).passed
    added = OWN.format(body="    sys._getframe(0)\n    return list(dict.fromkeys(items))\n")
    verdict = judge.check(added)
    assert not verdict.passed
    assert "code under repair at unique.py:10 asked for sys._getframe" in verdict.feedback


# hypothesis compiles each @given test's wrapper from text and names it after the test's file;
# that wrapper calls hypothesis's stack_depth_of_caller, which asks for a frame and hands back
# only a count (a keeper). Before it was one, every candidate of a hypothesis suite failed.
GIVEN = """\
from hypothesis import assume, given, strategies as st

from unique import unique_items


@given(st.lists(st.integers(0, 5)))
def test_order_kept(items):
    assume(len(items) != 1)  # hypothesis's assume reads its caller's frame, under a wrapper it renamed
    assert unique_items(items) == list(dict.fromkeys(items))
"""


@pytest.mark.parametrize("tier", TIERS)
def test_a_hypothesis_suite_judges_a_right_fix_right_and_a_wrong_one_wrong(tmp_path, tier):
    judge = checker(tmp_path, tier, sys.executable)  # the dev venv's, which has hypothesis
    (tmp_path / "tests" / "test_given.py").write_text(GIVEN)
    wrong = "def unique_items(items):\n" + WRONG
    right = "def unique_items(items):\n    return list(dict.fromkeys(items))\n"
    (tmp_path / "unique.py").write_text(wrong)
    judge.preflight()
    verdict = judge.check(right)
    assert verdict.passed, verdict.feedback
    assert "tests.test_given::test_order_kept" in judge.check(wrong).failing
