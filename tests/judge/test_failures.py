"""Feedback per failing test: with many failures, the model still sees every distinct one, with
its node id and its own frames, the target's first, and not 40 copies of an environment error."""

from suite_env import PYTHON as SUITE_PYTHON
from test_verdict import suite

from bot.judge.failures import node_id, own_frames, per_test
from bot.judge.integrity import Case

LIBRARY_FRAME = "/usr/lib/python3/dist-packages/dateutil/tz.py:88: in gettz\n    raise OSError('no tzdata')"
SEPARATOR = "\n_ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _ _\n"


def test_node_ids_are_what_pytest_takes():
    assert node_id("tests.test_calc::test_add") == "tests/test_calc.py::test_add"
    assert node_id("tests.test_calc::TestAdd::test_add[1-2]") == "tests/test_calc.py::TestAdd::test_add[1-2]"
    assert node_id("tests.test_calc") == "tests/test_calc.py"


def test_library_frames_go_and_the_error_stays():
    details = (
        "tests/test_tz.py:5: in test_tz\n    gettz('UTC')" + SEPARATOR + LIBRARY_FRAME + "\nE   OSError: no tzdata"
    )
    assert own_frames(details, "/tmp/w") == "tests/test_tz.py:5: in test_tz\n    gettz('UTC')\n_ _ _\n" + (
        LIBRARY_FRAME + "\nE   OSError: no tzdata"
    )
    deeper = "tests/t.py:1: in test\n    f()" + SEPARATOR + LIBRARY_FRAME + SEPARATOR + "calc.py:2: in g\nE   boom"
    assert own_frames(deeper, "") == "tests/t.py:1: in test\n    f()\n_ _ _\ncalc.py:2: in g\nE   boom"


def test_the_same_error_counts_once_and_the_targets_come_first():
    env = [
        Case(f"tests.test_tz::test_zone_{i}", "failed", "OSError: no tzdata", f"{LIBRARY_FRAME}\nE   OSError")
        for i in range(38)
    ]
    real = [
        Case("tests.test_calc::test_add", "failed", "assert -1 == 5", "calc.py:2: AssertionError\nE   assert -1 == 5"),
        Case("tests.test_calc::test_sub", "failed", "assert 5 == -1", "calc.py:5: AssertionError\nE   assert 5 == -1"),
    ]
    text = per_test(env + real, "calc.py", "")
    assert text.startswith("### tests/test_calc.py::test_add\nfailed: assert -1 == 5\n")
    assert text.index("### tests/test_calc.py::test_sub") < text.index("### tests/test_tz.py::test_zone_0")
    assert text.count("### ") == 3
    assert (
        "(and 37 more tests like this: tests/test_tz.py::test_zone_1, tests/test_tz.py::test_zone_2, "
        "tests/test_tz.py::test_zone_3, ...)" in text
    )


ENV_TESTS = "".join(
    f"def test_zone_{i}():\n    import zoneinfo\n    zoneinfo.ZoneInfo('No/Such_Zone_{i}')\n\n\n" for i in range(30)
)


def test_through_the_validator_many_failures_still_show_the_real_one(tmp_path):
    checker = suite(tmp_path, "bwrap", f"{SUITE_PYTHON} -m pytest -q -p no:cacheprovider tests")
    (tmp_path / "tests" / "test_zones.py").write_text(ENV_TESTS)
    verdict = checker.check("def unique_items(items):\n    return list(set(items))\n")
    assert not verdict.passed
    details = verdict.feedback.split("Details:\n", 1)[1]
    assert details.startswith("### tests/test_unique.py::test_order\nfailed: assert [1, 2, 3] == [3, 1, 2]")
    # Thirty tests failing the same way, at the same line, are one entry and a count.
    assert details.count("### tests/test_zones.py::test_zone_") == 1
    assert "(and 29 more tests like this: tests/test_" in details
