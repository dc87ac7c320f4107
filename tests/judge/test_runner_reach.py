"""The code under repair can't reach what reports (#40 item 3), by plain reads either: pytest keeps
its config, session and plugin manager where any code reads them (its import hook in
sys.meta_path, its debugger's class, its marks, the assertion helpers' globals), and autofix's
recorder kept the run's signer in closure cells any code reads. Whoever holds the plugin manager
flips a failing test's report and unregisters before anything looks (TRANSIENT below). autofix's
plugin puts stand-ins in pytest's places (bot/judge/sandboxed/hidden.py), keeps the signer, the
canaries and every outcome in a generator's frame (pytest_plugin.record), and refuses code under
repair that replaces a function's defaults, where it keeps the rest. The static guard is left out
(`screen=None`), so each attack reaches these layers."""

from pathlib import Path

import pytest
from test_audit_hook import TIERS, WRONG, checker

WALK = Path(__file__).with_name("reachable.py").read_text()
# The suite's conftest imports the code under repair, as many do: its module runs before pytest
# configures the session, while this plugin's module is still in sys.modules.
CONFTEST = "import unique  # noqa: F401\n"
# Whoever holds the config: a hook wrapper that turns test_order's failure into a pass, then
# unregisters itself, so no look at the plugin manager at the session's end finds it; the canaries
# and test_order's twin are left as they are.
TRANSIENT = """\
import pytest


class Flip:
    def __init__(self, manager):
        self.manager = manager

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item, call):
        report = yield
        if item.nodeid == "tests/test_unique.py::test_order" and call.when == "call":
            report.outcome, report.longrepr = "passed", None
            self.manager.unregister(self)
        return report


def flip(config):
    if config is not None and getattr(config, "pluginmanager", None) is not None:
        config.pluginmanager.register(Flip(config.pluginmanager))

"""


def judge(folder, tier):
    made = checker(folder, tier)
    (folder / "tests" / "conftest.py").write_text(CONFTEST)
    (folder / "unique.py").write_text("def unique_items(items):\n" + WRONG)  # what the baseline imports
    return made


@pytest.mark.parametrize("tier", TIERS)
def test_no_plain_read_reaches_the_runner_the_signer_or_the_recorder(tmp_path, tier):
    """Everything reachable from modules, classes, the import system, logging, signals and
    threads, through attributes, closures, globals, defaults, containers and weak references,
    walked before configure and during a test: no config, session, plugin manager, hook relay,
    reporter, report, test item, nonce or recorder."""
    candidate = WALK + (
        "\n\nAT_IMPORT = reach()\n\n\ndef unique_items(items):\n    during = reach()\n"
        "    raise AssertionError(f'at import: {AT_IMPORT[0]}; during the call: {during[0]}; "
        "walked: {min(AT_IMPORT[1], during[1]) > 20000}')\n"
    )
    verdict = judge(tmp_path, tier).check(candidate)
    assert "AssertionError: at import: {}; during the call: {}; walked: True" in verdict.feedback, verdict.feedback


@pytest.mark.parametrize("tier", TIERS)
def test_the_import_hooks_config_is_out_of_reach(tmp_path, tier):
    """pytest's import hook, first in sys.meta_path, held the config and the session."""
    candidate = (
        "import sys\n" + TRANSIENT + "def unique_items(items):\n    for finder in sys.meta_path:\n"
        "        flip(getattr(finder, 'config', None))\n" + WRONG
    )
    verdict = judge(tmp_path, tier).check(candidate)
    assert not verdict.passed
    assert verdict.failing == ["tests.test_unique::test_order"], verdict.feedback


@pytest.mark.parametrize("tier", TIERS)
def test_the_plugins_defaults_cannot_be_replaced(tmp_path, tier):
    """Before configure, the plugin's configure function is reachable; what it hands the config
    to is in its defaults. Replaced by a spy that passes the config on, the spy would hold it."""
    candidate = (
        "import sys\n" + TRANSIENT + "class Spy:\n    def __init__(self, real):\n        self.real = real\n\n"
        "    def send(self, config):\n        flip(config)\n        return self.real.send(config)\n\n\n"
        "for module in list(sys.modules.values()):\n"
        "    configure = getattr(module, '_configure', None)\n"
        "    if callable(configure) and configure.__defaults__:\n"
        "        keeper, *rest = configure.__defaults__\n"
        "        configure.__defaults__ = (Spy(keeper), *rest)\n\n\n"
        "def unique_items(items):\n" + WRONG
    )
    verdict = judge(tmp_path, tier).check(candidate)
    assert not verdict.passed
    assert "code under repair at unique.py:35 asked for a change of __defaults__" in verdict.feedback
