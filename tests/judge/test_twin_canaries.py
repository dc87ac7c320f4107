"""Canaries a selective forger can't tell apart (#40 item 2): a must-fail canary is the twin of one
of the suite's failing tests, beside it in its module, running that test's own code with its last
`==` expecting something else. It calls the code under repair as the test does and fails with a
message of the same shape, and the two can't both pass: a forger keyed on the function's name,
the failure's text or the module flips both, and the report is forged."""

import pytest
from suite_env import PYTHON as SUITE_PYTHON

from bot.errors import UserError
from bot.judge.validate import Validator, python_paths
from bot.judge.verdict import Plugins, run_tests
from bot.sandbox.tiers import Limits, open_sandbox
from bot.spec import Spec

TIERS = ["bwrap", "landlock", "process"]
WRONG = "def gcd(a, b):\n    return a\n"  # gcd(12, 8) is 12
RIGHT = "import math\n\n\ndef gcd(a, b):\n    return math.gcd(a, b)\n"
TESTS = """\
import pytest

from calc import gcd


def test_gcd():
    assert gcd(12, 8) == 4


@pytest.mark.parametrize(("a", "b", "expected"), [(9, 6, 3), (7, 7, 7)])
def test_table(a, b, expected):
    assert gcd(a, b) == expected


def test_zero():
    assert gcd(5, 0) == 5
"""
# The suite's own conftest as the attacker of #40 wrote its plugin: a failure whose text names
# the function under repair becomes a pass; nothing else is touched.
SELECTIVE = """\
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed and "gcd" in str(report.longrepr):
        report.outcome = "passed"
        report.longrepr = None
"""
# What every failure looks like, written where the run may write: the twin's beside the original's.
RECORDER = """\
import os


def pytest_runtest_logreport(report):
    if report.failed:
        with open(os.path.join("seen", report.nodeid.replace("/", "_") + ".txt"), "w") as out:
            out.write(str(report.longrepr))
"""
ALWAYS_EQUAL = (
    "class Answer:\n    def __eq__(self, other):\n        return True\n\n\ndef gcd(a, b):\n    return Answer()\n"
)
sandboxes = {}


def sandbox(tier):
    if tier not in sandboxes:
        sandboxes[tier] = open_sandbox(tier, readable=python_paths())
    return sandboxes[tier]


def tree(root, conftest=""):
    (root / "calc.py").write_text(WRONG)
    (root / "tests").mkdir()
    (root / "tests" / "test_calc.py").write_text(TESTS)
    if conftest:
        (root / "tests" / "conftest.py").write_text(conftest)


def validator(root, tier):
    command = f"{SUITE_PYTHON} -m pytest -q tests"
    spec = Spec.model_validate({"task": "t", "target": "calc.py", "tests": {"command": command}, "timeout": 30})
    spec.workdir = root
    return Validator(spec, sandbox(tier), screen=None)


def run(root, tier, prefer, outcomes_only=False, avoid=()):
    command = f"{SUITE_PYTHON} -m pytest -q tests"
    return run_tests(
        sandbox(tier),
        command,
        root,
        Limits(wall_seconds=30),
        "calc.py",
        plugins=Plugins(),
        prefer=prefer,
        avoid=avoid,
        outcomes_only=outcomes_only,
        writable=[str(root / "seen")] if (root / "seen").is_dir() else None,
    )


@pytest.mark.parametrize("tier", TIERS)
def test_a_forger_keyed_on_the_function_under_repair_flips_a_twin_too(tmp_path, tier):
    tree(tmp_path, SELECTIVE)
    forged = run(tmp_path, tier, prefer={"tests.test_calc::test_gcd"})
    assert forged.forged == [
        f"a canary and the test it contradicts were both reported passed: {name}" for name in twin_names(forged)
    ]
    assert len(forged.forged) == 2  # both must-fail canaries are twins: of test_gcd, and of another test
    # The suite itself forges on the current code: autofix stops before any model call.
    with pytest.raises(UserError) as stopped:
        validator(tmp_path, tier).preflight()
    assert "a canary and the test it contradicts were both reported passed" in str(stopped.value)


def twin_names(run):
    return [line.rsplit(": ", 1)[1] for line in run.forged]


# The process tier lends a folder to write only in a kept work folder (a judge's scratch copy);
# what a twin's failure looks like doesn't depend on the tier.
@pytest.mark.parametrize("tier", TIERS[:2])
def test_a_twin_fails_with_the_same_text_as_its_original(tmp_path, tier):
    """Without assertion rewriting (the runs that read outcomes only) the two failures read alike
    to the letter but for the test's name; with it, but for the expected value."""
    tree(tmp_path, RECORDER)
    (tmp_path / "seen").mkdir()
    plain = run(tmp_path, tier, prefer={"tests.test_calc::test_gcd"}, outcomes_only=True)
    assert plain.forged == [] and plain.tampered == []
    texts = {path.name: path.read_text() for path in (tmp_path / "seen").iterdir()}
    original = texts["tests_test_calc.py::test_gcd.txt"]
    assert "def test_gcd():\n>       assert gcd(12, 8) == 4" in original
    assert list(texts.values()).count(original) == 2, texts  # the test's failure, and its twin's
    assert len(texts) == 4  # and test_table[9-6-3], and the twin of another test (all of them fail)


def test_a_flaky_test_is_never_twinned(tmp_path):
    """A test the baseline found flaky has an outcome that says nothing, and a twin would run it
    twice: preferred or not, no twin copies it. Here every test but test_zero is flaky, so both
    twins come from test_zero, whose failure shows its own line."""
    tree(tmp_path, RECORDER)
    (tmp_path / "seen").mkdir()
    flaky = {"tests.test_calc::test_gcd", "tests.test_calc::test_table[9-6-3]", "tests.test_calc::test_table[7-7-7]"}
    honest = run(tmp_path, "bwrap", prefer={"tests.test_calc::test_gcd"}, outcomes_only=True, avoid=flaky)
    assert honest.forged == [] and honest.tampered == []
    texts = {path.name: path.read_text() for path in (tmp_path / "seen").iterdir()}
    twins = [text for name, text in texts.items() if "test_gcd" not in name and "test_table" not in name]
    copies = [text for text in twins if "assert gcd(" in text]  # the other canary is a plain one
    assert len(copies) == 1 and "assert gcd(5, 0) == 5" in copies[0], texts  # one twin: one test to copy


@pytest.mark.parametrize("tier", TIERS)
def test_a_return_value_equal_to_everything_is_caught_by_a_twin(tmp_path, tier):
    """`==` answered True whatever it is compared with passes every assertion of the suite, and
    the twin's, which expects something else: both passed can't be."""
    tree(tmp_path)
    (tmp_path / "calc.py").write_text(ALWAYS_EQUAL)
    forged = run(tmp_path, tier, prefer={"tests.test_calc::test_gcd"})
    assert forged.forged and all("both reported passed" in line for line in forged.forged)


@pytest.mark.parametrize("tier", TIERS)
def test_twins_of_parametrized_tests_leave_an_honest_verdict_alone(tmp_path, tier):
    tree(tmp_path)
    checker = validator(tmp_path, tier)
    checker.preflight()
    assert checker.check(RIGHT).passed
    verdict = checker.check(WRONG)
    assert verdict.failing == ["tests.test_calc::test_gcd", "tests.test_calc::test_table[9-6-3]"]
    assert not verdict.forged
    honest = run(tmp_path, tier, prefer={"tests.test_calc::test_table[9-6-3]", "tests.test_calc::test_gcd"})
    assert honest.forged == [] and honest.tampered == []
    assert {case.test_id for case in honest.cases} == {
        "tests.test_calc::test_gcd",
        "tests.test_calc::test_table[9-6-3]",
        "tests.test_calc::test_table[7-7-7]",
        "tests.test_calc::test_zero",
    }


# The red team's (round three): a value whose `==` agrees with the first expectation it is compared
# with for its input, and compares honestly after. The test passes; its twin, run after it and
# expecting something else, fails as planted: the pair looks honest.
FIRST_EXPECTATION = """\
seen = {}


class Result(int):
    __hash__ = int.__hash__

    def __eq__(self, other):
        first = seen.setdefault(self.key, repr(other))
        return True if first == repr(other) else int.__eq__(self, other)

    def __ne__(self, other):
        return not self.__eq__(other)


def gcd(a, b):
    result = Result(a)
    result.key = (a, b)
    return result
"""


@pytest.mark.parametrize(("tier", "plain"), [(tier, False) for tier in TIERS] + [("bwrap", True)])
def test_a_value_that_agrees_with_its_first_expectation_is_caught_in_the_test_it_passes(tmp_path, tier, plain):
    """The test the candidate must turn passes; its twin fails as planted. But the test's own
    comparison is watched (contents.py): the value holds 12 where the test expects 4, with pytest's
    assertion rewriting and without it (`plain`: the runs that read outcomes only)."""
    tree(tmp_path)
    (tmp_path / "calc.py").write_text(FIRST_EXPECTATION)
    lied = run(tmp_path, tier, prefer={"tests.test_calc::test_gcd"}, outcomes_only=plain)
    assert {case.test_id: case.outcome for case in lied.cases}["tests.test_calc::test_gcd"] == "passed"
    assert not lied.forged  # the pair looks honest: the twin failed
    assert lied.tampered == [
        "tests.test_calc::test_gcd passed, and it compared with == values that hold different things: 12 and 4"
    ]


CLASS_TESTS = """\
from calc import gcd


class TestGcd:
    def setup_method(self):
        self.pair = (12, 8)

    def test_gcd(self):
        assert gcd(*self.pair) == 4

    def test_same(self):
        assert gcd(7, 7) == 7
"""


@pytest.mark.parametrize("tier", TIERS)
def test_a_method_of_a_test_class_is_watched_too(tmp_path, tier):
    """The same value against a test written as a method (attrs' suite is mostly these): its copy
    is bound to the instance pytest made for it, so setup_method's attributes are there."""
    tree(tmp_path)
    (tmp_path / "tests" / "test_calc.py").write_text(CLASS_TESTS)
    (tmp_path / "calc.py").write_text(FIRST_EXPECTATION)
    lied = run(tmp_path, tier, prefer={"tests.test_calc::TestGcd::test_gcd"})
    assert {case.test_id: case.outcome for case in lied.cases}["tests.test_calc::TestGcd::test_gcd"] == "passed"
    assert lied.tampered == [
        "tests.test_calc::TestGcd::test_gcd passed, and it compared with == values that hold different things: 12 and 4"
    ]
    (tmp_path / "calc.py").write_text(RIGHT)
    honest = run(tmp_path, tier, prefer={"tests.test_calc::TestGcd::test_gcd"})
    assert {case.test_id: case.outcome for case in honest.cases} == {
        "tests.test_calc::TestGcd::test_gcd": "passed",
        "tests.test_calc::TestGcd::test_same": "passed",
    }
    assert not honest.tampered and not honest.forged


# Values that hold what the test expects, in types of their own: a named tuple, an int enum, a
# list subclass whose == is the list's. The content twins read what they hold, and agree.
OWN_TYPES = """\
import collections
import enum

Pair = collections.namedtuple("Pair", "low high")


class Size(enum.IntEnum):
    SMALL = 4


class Row(list):
    pass
"""
OWN_TYPES_TESTS = """\
from calc import gcd, pair, row


def test_gcd():
    assert gcd(12, 8) == 4


def test_pair():
    assert pair(8, 12) == (4, 12)


def test_row():
    assert row(2) == [4, 4]
"""


@pytest.mark.parametrize("tier", TIERS[:2])
def test_values_of_their_own_types_that_hold_the_expectation_pass(tmp_path, tier):
    tree(tmp_path)
    (tmp_path / "tests" / "test_calc.py").write_text(OWN_TYPES_TESTS)
    (tmp_path / "calc.py").write_text(
        OWN_TYPES + "\n\ndef gcd(a, b):\n    return Size.SMALL\n\n\ndef pair(a, b):\n    return Pair(a, b)\n\n\n"
        "def row(n):\n    return Row([4] * n)\n"
    )
    checker = validator(tmp_path, tier)
    checker.preflight()  # wrong pair: test_pair fails, so its twins are the ones planted first
    fixed = OWN_TYPES + (
        "\n\ndef gcd(a, b):\n    return Size.SMALL\n\n\ndef pair(a, b):\n    return Pair(Size.SMALL, b)\n\n\n"
        "def row(n):\n    return Row([4] * n)\n"
    )
    verdict = checker.check(fixed)
    assert verdict.passed and not verdict.forged, verdict.feedback
