"""What the audit hook believes about who asked (bot/judge/sandboxed/audit.py), attacked by an
author who read it: a frame asked for through a standard function that hands it back, and code
that carries a trusted file's name. Each attack, unstopped, registers a plugin that turns
test_order's failure into a pass and unregisters itself before anything looks, so the run passes."""

import pytest
from test_audit_hook import TIERS, WRONG, checker
from test_runner_reach import TRANSIENT

# A plugin registered for one report, then gone (test_runner_reach's), by what an attacker holding a
# frame finds: the first object on the way out whose config has a plugin manager.
FLIP = (
    TRANSIENT
    + """
placed = []


def reach(frame):
    while frame is not None and not placed:
        for value in list(frame.f_locals.values()):
            config = getattr(value, "config", None)
            if getattr(config, "pluginmanager", None) is not None:
                flip(config)
                placed.append(True)
                return
        frame = frame.f_back

"""
)
# The standard library asks, and hands the frame back: logging's currentframe is `lambda:
# sys._getframe(1)`; a Mock returns what its side effect does; importlib's trampoline hides who
# called (each a second attacker's find, the last two after a first rule looked one frame out).
LAUNDERED = {
    "logging.currentframe": ("import logging\n", "logging.currentframe()", "logging/__init__.py's <lambda>"),
    "a Mock's side effect": (
        "from unittest import mock\nimport sys\n",
        "mock.Mock(side_effect=sys._getframe)(0)",
        "mock.py's _execute_mock_call",
    ),
    "importlib's trampoline": (
        "import logging\nfrom importlib._bootstrap import _call_with_frames_removed\n",
        "_call_with_frames_removed(logging.currentframe)",
        "logging/__init__.py's <lambda>",
    ),
}
# Code compiled under a name of its own, then given another file's with no audit event at all,
# and called by the standard library's own code, so no foreign caller is next to it.
RENAMED = (
    "import _imp\nimport os\nimport sys\nimport threading\n" + FLIP + "\n"
    "code = compile('def grab():\\n    reach(sys._getframe(1))\\n', 'borrowed', 'exec')\n"
    "_imp._fix_co_filename(code, {name})\n"
    "exec(code, globals())\n\n\ndef unique_items(items):\n    threading.Thread(target=grab).run()\n" + WRONG
)
NAMES = {
    "the standard library's os.py": ("os.__file__", "{os}:2"),
    "the suite's own test file": (
        "os.path.join(os.path.dirname(os.path.abspath(__file__)), 'tests', 'test_unique.py')",
        "tests/test_unique.py:2",
    ),
}


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("means", list(LAUNDERED))
def test_a_frame_handed_back_by_a_standard_function_is_asked_for_by_its_caller(tmp_path, tier, means):
    imports, expression, asker = LAUNDERED[means]
    attack = imports + FLIP + f"\ndef unique_items(items):\n    reach({expression})\n" + WRONG
    line = attack.splitlines().index(f"    reach({expression})") + 1
    verdict = checker(tmp_path, tier).check(attack)
    assert not verdict.passed
    assert "tests.test_unique::test_order" in verdict.failing
    assert f"code under repair at unique.py:{line} asked for sys._getframe through {asker} during" in verdict.feedback


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("named", list(NAMES))
def test_code_that_only_carries_a_trusted_files_name_is_still_foreign(tmp_path, tier, named):
    import os

    expression, place = NAMES[named]
    verdict = checker(tmp_path, tier).check(RENAMED.format(name=expression))
    assert not verdict.passed
    assert "tests.test_unique::test_order" in verdict.failing
    where = place.format(os=os.__file__)
    assert (
        f"code under repair at {where} (code that only carries that file's name) asked for sys._getframe"
        in verdict.feedback
    )


# Two ways to a plugin manager with no frame asked for: pytest hands its own arguments to a
# function of its module that code under repair replaced (and puts back at once), or a signal
# handler is handed the frame it interrupted. Either registers a plugin for one report only.
TRANSIENT = {
    "rebound and restored": """
import _pytest.runner
import pytest

_real = _pytest.runner.call_and_report


class _Flip:
    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        report = yield
        report.outcome, report.longrepr = "passed", None
        return report


def call_and_report(item, when, log=True, **kwds):
    if item.name == "test_order" and when == "call":
        _pytest.runner.call_and_report = _real
        flip = _Flip()
        item.config.pluginmanager.register(flip)
        try:
            return _real(item, when, log, **kwds)
        finally:
            item.config.pluginmanager.unregister(flip)
    return _real(item, when, log, **kwds)


_pytest.runner.call_and_report = call_and_report

""",
    "a signal handler's frame": "import signal\n"
    + FLIP
    + """
def handler(number, frame):
    signal.setitimer(signal.ITIMER_REAL, 0)
    reach(frame)


signal.signal(signal.SIGALRM, handler)
signal.setitimer(signal.ITIMER_REAL, 0.0001, 0.0001)

""",
}


@pytest.mark.parametrize("tier", TIERS)
@pytest.mark.parametrize("means", list(TRANSIENT))
def test_a_plugin_registered_for_one_report_is_still_named(tmp_path, tier, means):
    verdict = checker(tmp_path, tier).check(TRANSIENT[means] + "def unique_items(items):\n" + WRONG)
    assert not verdict.passed
    assert (
        "(pytest): the hook pytest_runtest_makereport was implemented by unique.py during the run" in verdict.feedback
    )


# Code that runs inside the recorder (a built-in that pytest_plugin.plant reaches through `ast`,
# rebound) raises a signal: its handler is handed the frame it interrupts, and there the
# recorder's own frame holds the outcomes (and the signer).
RAISED = """
import builtins
import signal

_compile = builtins.compile
found = []


class _Sticky(list):
    def __setitem__(self, index, value):
        if index != 0:
            list.__setitem__(self, index, "")


class _Zero(int):
    def __add__(self, other):
        return self

    __sub__ = __radd__ = __add__


def handler(number, frame):
    while frame is not None:
        if frame.f_code.co_name == "record" and "cases" in frame.f_locals:
            frame.f_locals["cases"]["tests.test_unique::test_order"] = _Sticky(["passed", "", ""])
            frame.f_locals["session"].testsfailed = _Zero(0)
            found.append(True)
            return
        frame = frame.f_back


def spy(*args, **kwargs):
    if not found:
        signal.raise_signal(signal.SIGUSR1)
    return _compile(*args, **kwargs)


signal.signal(signal.SIGUSR1, handler)
builtins.compile = spy

"""


@pytest.mark.parametrize("tier", TIERS)
def test_a_signal_raised_inside_the_recorder_waits_until_it_is_done(tmp_path, tier):
    verdict = checker(tmp_path, tier).check(RAISED + "def unique_items(items):\n" + WRONG)
    assert not verdict.passed
    assert verdict.failing == ["tests.test_unique::test_order"]
