"""Failing tests first: a candidate is run against the tests that failed last time before the
whole suite, and rejected in the time those take when it still fails them; a quick run never
passes anyone, and what it hides from the judgement is never a reason to pass."""

from suite_env import PYTHON as SUITE_PYTHON
from test_verdict import RIGHT, WRONG, suite

OTHER_TESTS = "".join(f"def test_other_{i}():\n    assert True\n\n\n" for i in range(8))


def quick_suite(tmp_path, *more_tests: str):
    checker = suite(tmp_path, "bwrap", f"{SUITE_PYTHON} -m pytest -p no:cacheprovider tests")
    (tmp_path / "tests" / "test_other.py").write_text(OTHER_TESTS)
    for number, test in enumerate(more_tests):
        (tmp_path / "tests" / f"test_more_{number}.py").write_text(test)
    (tmp_path / "unique.py").write_text(WRONG)  # the current code fails test_order
    assert checker.preflight() == []
    return checker


def test_a_candidate_that_still_fails_runs_only_the_failing_tests(tmp_path):
    checker = quick_suite(tmp_path)
    assert checker.last_failing == {"tests.test_unique::test_order"}
    verdict = checker.check(WRONG)
    assert (verdict.passed, verdict.failing) == (False, ["tests.test_unique::test_order"])
    assert "1 failed, 9 deselected" in verdict.feedback  # the other nine never ran


def test_a_candidate_that_fixes_them_is_judged_by_the_whole_suite(tmp_path):
    checker = quick_suite(tmp_path)
    assert checker.check(RIGHT).passed
    assert checker.last_failing == set()


def test_breaking_another_test_is_caught_by_the_whole_suite_after_the_quick_run(tmp_path):
    single = "def test_single():\n    from unique import unique_items\n    assert unique_items([7]) == [7]\n"
    checker = quick_suite(tmp_path, single)  # test_single passes on the current code
    breaks_single = (
        "def unique_items(items):\n    out = list(dict.fromkeys(items))\n    return out if len(out) > 1 else []\n"
    )
    verdict = checker.check(breaks_single)  # it passes test_order, the quick run's only test
    assert (verdict.passed, verdict.failing) == (False, ["tests.test_more_0::test_single"])
    assert "deselected" not in verdict.feedback  # the whole suite decided
