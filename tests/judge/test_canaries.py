"""Canaries (bot/judge/canaries.py): drawn fresh for every run, named like the suite's tests, and
a report that gets one wrong is forged."""

from bot.judge.canaries import PAIRS, Canary, draw, plantable, scrub, sift
from bot.judge.integrity import Case


def test_each_draw_is_two_pairs_of_new_names_that_fail_and_pass_by_construction():
    known = {"tests.test_shop::test_total_with_discount", "tests.test_shop::test_empty_cart"}
    drawn = draw(known, "tests.test_shop")
    assert len(drawn) == 2 * PAIRS
    assert [c.must_fail for c in drawn] == [True, False, True, False]
    assert all(c.left != c.right for c in drawn if c.must_fail)
    assert all(c.left == c.right for c in drawn if not c.must_fail)
    assert all(c.name.startswith("test_") and c.name.isidentifier() for c in drawn)
    assert len({c.name for c in drawn}) == 4
    assert not {c.name for c in drawn} & {"test_total_with_discount", "test_empty_cart"}
    assert {c.hint for c in drawn} == {"tests.test_shop"}
    # each pair lands in one module: the twin's skip tells a module's own skip from a forged one
    assert drawn[0].module_pick == drawn[1].module_pick and drawn[2].module_pick == drawn[3].module_pick
    assert {c.name for c in draw(known)} != {c.name for c in drawn}


def canaries():
    return [
        Canary("test_order_empty_11", True, 1, 2, "", 0, 0),
        Canary("test_order_empty_12", False, 3, 3, "", 0, 1),
    ]


def test_a_report_that_keeps_the_canaries_right_is_trusted_and_loses_them():
    cases = [
        Case("tests.test_a::test_one", "passed"),
        Case("tests.test_a::test_order_empty_11", "failed", "AssertionError"),
        Case("tests.test_a::test_order_empty_12", "passed"),
    ]
    assert sift(cases, canaries()) == ([Case("tests.test_a::test_one", "passed")], [])


def test_a_canary_that_must_fail_reported_passed_is_a_forgery():
    cases = [
        Case("tests.test_a::test_one", "passed"),
        Case("tests.test_a::test_order_empty_11", "passed"),
        Case("tests.test_a::test_order_empty_12", "passed"),
    ]
    kept, forged = sift(cases, canaries())
    assert kept == [Case("tests.test_a::test_one", "passed")]
    assert forged == ["a canary that fails by construction was reported passed: test_order_empty_11"]


def test_a_canary_left_out_is_a_forgery_once_a_test_module_ran():
    cases = [Case("tests.test_a::test_one", "failed"), Case("tests.test_a::test_order_empty_12", "passed")]
    assert sift(cases, canaries())[1] == [
        "a test autofix planted (a canary) is missing from the report: test_order_empty_11"
    ]
    # a suite that collected nothing (an import error of its module) had nowhere to plant them
    assert sift([Case("tests.test_a", "error")], canaries()) == ([Case("tests.test_a", "error")], [])


def test_a_skipped_canary_is_forged_unless_its_twin_was_skipped_too():
    skipped = [
        Case("tests.test_a::test_order_empty_11", "skipped"),
        Case("tests.test_a::test_order_empty_12", "skipped"),
    ]
    assert sift(skipped, canaries())[1] == []
    alone = [Case("tests.test_a::test_order_empty_11", "skipped"), Case("tests.test_a::test_order_empty_12", "passed")]
    assert sift(alone, canaries())[1] == [
        "a canary that fails by construction was reported skipped: test_order_empty_11"
    ]


def test_a_twin_whose_parameter_ids_hold_double_colons_is_still_found():
    """A twin carries its original's parameter ids, any text: `::` in them doesn't hide the name."""
    ids = "[a\n::error::x\n::set-output name=a::b]"
    cases = [
        Case("tests.test_a::test_one" + ids, "failed"),
        Case("tests.test_a::test_order_empty_11" + ids, "failed", "AssertionError"),
        Case("tests.test_a::test_order_empty_12", "passed"),
    ]
    twins = {"test_order_empty_11": "tests.test_a::test_one" + ids}
    assert sift(cases, canaries(), twins) == ([Case("tests.test_a::test_one" + ids, "failed")], [])


def test_plantable_modules_are_the_suites_test_modules():
    assert plantable("tests.test_a") and plantable("pkg.shop_test") and plantable("tests.sub.helpers")
    assert not plantable("src.pkg.shop") and not plantable("tests")


def test_no_line_of_output_names_a_canary():
    output = "tests/test_a.py::test_one PASSED\ntests/test_a.py::test_order_empty_11 \n2 passed\n"
    assert scrub(output, canaries()) == "tests/test_a.py::test_one PASSED\n2 passed\n"
