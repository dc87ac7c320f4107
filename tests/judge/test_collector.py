"""The collector hands code under repair nothing (bot/judge/sandboxed/collector.py): `gc.set_debug(
gc.DEBUG_SAVEALL)` and `gc.collect()` raise no audit event, and with them every object the
collector finds unreachable stays in `gc.garbage`, pytest's test nodes among them, whose config
leads to every report. The static guard is left out (`screen=None`), so each attack reaches the
sandboxed layer."""

import sys

import pytest
from test_audit_hook import TIERS, WRONG, checker
from test_unittest_seal import TESTS as UNITTEST_TESTS
from test_verdict import validator

# A red team's (round three): through a node in gc.garbage, the terminal reporter's writer is
# replaced by a proxy that turns test_order's failure, filed a moment before, into a pass. No
# function of pytest replaced, nothing registered: nothing the machinery check looks at changes.
THROUGH_GARBAGE = """\
import gc

done = []


class Writer:
    def __init__(self, real, reporter, session):
        self.real, self.reporter, self.session = real, reporter, session

    def __getattr__(self, name):
        return getattr(self.real, name)

    def write(self, text, **markup):
        failed = self.reporter.stats.get("failed") or []
        if text == "F" and failed and failed[-1].when == "call":
            report = failed.pop()
            report.outcome, report.longrepr = "passed", None
            self.session.testsfailed -= 1
            text = "."
        return self.real.write(text, **markup)


def take_over():
    gc.set_debug(gc.DEBUG_SAVEALL)
    gc.collect()
    for found in list(gc.garbage):
        config, session = getattr(found, "config", None), getattr(found, "session", None)
        reporter = config and config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None and session is not None:
            reporter._tw = Writer(reporter._tw, reporter, session)
            done.append(True)
            break
    gc.set_debug(0)
    del gc.garbage[:]


def unique_items(items):
    if not done:
        take_over()
"""


@pytest.mark.parametrize("tier", TIERS)
def test_what_the_collector_kept_is_out_of_reach(tmp_path, tier):
    verdict = checker(tmp_path, tier).check(THROUGH_GARBAGE + WRONG)
    assert not verdict.passed
    assert "tests.test_unique::test_order" in verdict.failing, verdict.feedback
    assert "code under repair at unique.py:24 asked for gc.set_debug during the run" in verdict.feedback


# Every way to a gc module: sys.modules, a fresh copy from gc's spec, a re-import, _imp's own
# maker, and any module's global. Each one found is asked to keep what it collects; the test
# fails naming those that didn't refuse.
ROUTES = """\
import _imp
import importlib
import importlib.util
import sys


def routes():
    found = [("sys.modules", sys.modules["gc"])]
    found.append(("a copy from its spec", importlib.util.module_from_spec(importlib.util.find_spec("gc"))))
    found.append(("_imp.create_builtin", _imp.create_builtin(importlib.util.find_spec("gc"))))
    fresh_imp = _imp.create_builtin(importlib.util.find_spec("_imp"))
    found.append(("a fresh _imp's", fresh_imp.create_builtin(importlib.util.find_spec("gc"))))
    kept = sys.modules.pop("gc")
    found.append(("a re-import", importlib.import_module("gc")))
    sys.modules["gc"] = kept
    for name, module in list(sys.modules.items()):
        if module is not None and type(getattr(module, "gc", None)) is type(sys):
            found.append((name + ".gc", module.gc))
    return found


def unique_items(items):
    kept = []
    for name, module in routes():
        try:
            module.set_debug(32)  # DEBUG_SAVEALL: a copy made from the spec alone has no constants
        except RuntimeError:
            continue
        module.set_debug(0)
        kept.append(name)
    try:
        read = type(sys.modules["gc"].garbage) is list
    except RuntimeError:
        read = False
    raise AssertionError(f"kept everything: {kept}; garbage read: {read}")
"""


def test_every_way_to_the_collector_refuses(tmp_path):
    verdict = checker(tmp_path, "process").check(ROUTES)
    assert "AssertionError: kept everything: []; garbage read: False" in verdict.feedback, verdict.feedback


# A repository's own leak check keeps everything the collector finds while its test runs: its
# own code may, and the fix it calls is judged as usual.
LEAK_CHECK = """\
import gc

from unique import unique_items


def test_order():
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        assert unique_items([3, 1, 3, 2, 1]) == [3, 1, 2]
        assert isinstance(gc.garbage, list)
    finally:
        gc.set_debug(0)
        del gc.garbage[:]
"""


@pytest.mark.parametrize("tier", ["bwrap", "landlock"])
def test_the_repositorys_own_leak_check_is_let_be(tmp_path, tier):
    made = checker(tmp_path, tier)
    (tmp_path / "tests" / "test_unique.py").write_text(LEAK_CHECK)
    verdict = made.check("def unique_items(items):\n    return list(dict.fromkeys(items))\n")
    assert verdict.passed, verdict.feedback


def test_under_unittest_every_way_to_the_collector_refuses(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_unique.py").write_text(UNITTEST_TESTS)
    made = validator(tmp_path, "bwrap", {"command": f"{sys.executable} -m unittest discover -s tests"})
    verdict = made.check(ROUTES)
    assert "AssertionError: kept everything: []; garbage read: False" in verdict.feedback, verdict.feedback
