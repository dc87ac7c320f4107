"""Nothing a candidate adds is discovered: pytest finds the environment's plugins once, on the tree
as the repository has it, and every later run loads exactly those by name with autoloading off.

The attack (#40): distribution metadata beside a module (`x.egg-info/entry_points.txt` naming it
under `[pytest11]`) in a folder on sys.path; pytest loads it as a plugin by itself and hands it
`config`, so it needs no introspection. Its report hook turns a failure into a pass only when the
failure names the code under repair, which the canaries don't call. The edit replies can't add
such files (test_workspace.py, test_command_files.py); these tests show the runs don't load one
that got there anyway, and that a suite needing an installed plugin still passes."""

import sys

import pytest

from bot.judge.validate import Validator, python_paths
from bot.judge.verdict import Plugins, run_tests
from bot.sandbox.tiers import Limits, open_sandbox
from bot.spec import Spec

TIERS = ["bwrap", "landlock", "process"]
WRONG = "def gcd(a, b):\n    return a\n"  # gcd(12, 8) is 12
RIGHT = "import math\n\n\ndef gcd(a, b):\n    return math.gcd(a, b)\n"
TESTS = (
    "from calc import gcd\n\n\ndef test_gcd():\n    assert gcd(12, 8) == 4\n\n\n"
    "def test_zero():\n    assert gcd(5, 0) == 5\n"
)
# The forger: flips a failure whose text names the function under repair, and nothing else.
FORGER = """\
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed and "gcd" in str(report.longrepr):
        report.outcome = "passed"
        report.longrepr = None
"""
METADATA = "Metadata-Version: 2.1\nName: speedups\nVersion: 1.0\n"
ENTRY_POINTS = "[pytest11]\nspeedups = speedups_plugin\n"
sandboxes = {}


def sandbox(tier):
    if tier not in sandboxes:
        sandboxes[tier] = open_sandbox(tier, readable=python_paths())
    return sandboxes[tier]


def tree(root, planted=False):
    (root / "calc.py").write_text(WRONG)
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text(TESTS)
    if planted:
        (root / "speedups_plugin.py").write_text(FORGER)
        (root / "speedups-1.0.dist-info").mkdir()
        (root / "speedups-1.0.dist-info" / "METADATA").write_text(METADATA)
        (root / "speedups-1.0.dist-info" / "entry_points.txt").write_text(ENTRY_POINTS)


def outcomes(run):
    return {case.test_id: case.outcome for case in run.cases}


@pytest.mark.parametrize("tier", TIERS)
def test_metadata_planted_beside_the_code_is_never_loaded_once_the_plugins_are_named(tmp_path, tier):
    """`python -m pytest` puts the work folder on sys.path, so the planted metadata is in view:
    discovering, pytest loads the forger and the unfixed bug passes; with the environment's
    plugins named and autoloading off, the same tree fails as it should."""
    tree(tmp_path, planted=True)
    command = f"{sys.executable} -m pytest -q tests"
    discovered = run_tests(sandbox(tier), command, tmp_path, Limits(wall_seconds=30), "calc.py", plugins=None)
    assert outcomes(discovered) == {"tests.test_calc::test_gcd": "passed", "tests.test_calc::test_zero": "passed"}
    assert ("speedups_plugin", "./speedups_plugin.py") in discovered.plugins.modules  # the attack is real
    named = run_tests(sandbox(tier), command, tmp_path, Limits(wall_seconds=30), "calc.py", plugins=Plugins())
    assert outcomes(named) == {"tests.test_calc::test_gcd": "failed", "tests.test_calc::test_zero": "passed"}
    assert named.tampered == [] and named.forged == []


@pytest.mark.parametrize("tier", TIERS)
def test_a_suite_needing_an_installed_plugin_passes_with_it_named(tmp_path, tier):
    """anyio's pytest plugin (installed, an entry point) runs the suite's async test: the
    baseline finds it, and each candidate's run loads it by name, from the file it found."""
    (tmp_path / "calc.py").write_text(WRONG)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_calc.py").write_text(
        "import pytest\n" + TESTS + "\n\n@pytest.mark.anyio\nasync def test_async_gcd():\n    assert gcd(9, 6) == 3\n"
    )
    (tmp_path / "tests" / "conftest.py").write_text(
        "import pytest\n\n\n@pytest.fixture\ndef anyio_backend():\n    return 'asyncio'\n"
    )
    spec = Spec.model_validate(
        {"task": "t", "target": "calc.py", "tests": {"command": f"{sys.executable} -m pytest -q tests"}, "timeout": 30}
    )
    spec.workdir = tmp_path
    judge = Validator(spec, sandbox(tier), screen=None)
    judge.preflight()
    assert sorted(name for name, _ in judge.plugins.modules) == [
        "_hypothesis_pytestplugin",  # the `test` extra installs hypothesis, whose plugin is an entry point too
        "anyio.pytest_plugin",
        "xdist.looponfail",
        "xdist.plugin",
    ]
    verdict = judge.check(RIGHT)
    assert verdict.passed, verdict.feedback
    assert judge.check(WRONG).failing == [
        "tests.test_calc::test_gcd",
        "tests.test_calc::test_async_gcd",
    ]


@pytest.mark.parametrize("tier", TIERS)
def test_a_named_plugin_the_tree_shadows_is_tampering(tmp_path, tier):
    """A package of the environment's plugin's name in the work folder (first on sys.path under
    `python -m pytest`) would be imported in its place: the plugin checks each named one came
    from the file the baseline found it in."""
    tree(tmp_path)
    (tmp_path / "anyio").mkdir()
    (tmp_path / "anyio" / "__init__.py").write_text("")
    (tmp_path / "anyio" / "pytest_plugin.py").write_text("# a stand-in: no hook of the work folder's to see\n")
    command = f"{sys.executable} -m pytest -q tests"
    import anyio.pytest_plugin

    real = anyio.pytest_plugin.__file__
    plugins = Plugins((("anyio.pytest_plugin", real),))
    run = run_tests(sandbox(tier), command, tmp_path, Limits(wall_seconds=30), "calc.py", plugins=plugins)
    assert run.tampered == [f"the plugin anyio.pytest_plugin was loaded from ./anyio/pytest_plugin.py, not {real}"]
