"""A reply that runs its own tests when its module is imported: the checks import it without those
lines, so the task's checks decide, and the feedback says which lines were left out and where."""

from test_verdict import validator

from bot.judge.selftests import find, skipping

GCD = "def gcd(a, b):\n    while b:\n        a, b = b, a % b\n    return a\n"
# The model's own test, with an expectation of its own that is wrong: importing this module fails.
OWN_TESTS = (
    "\n\ndef check_solution():\n    assert gcd(0, 5) == 0, 'mine'\n    print('all passed')\n\n\n"
    "check_solution()\nprint(gcd(12, 8))\nassert gcd(3, 0) == 0\n"
)
CHECKS = 'assert gcd(0, 5) == 5, "zero"\nassert gcd(12, 8) == 4, "twelve"\n'


def test_what_runs_tests_on_import_is_found_and_what_doesnt_is_not():
    code = (
        "import sys, unittest\n"
        + GCD
        + "def test_gcd():\n    assert gcd(2, 4) == 2\n"
        + "assert sys.version_info >= (3, 8)\n"  # a guard of the module's own, calling nothing of it
        + "print('loaded')\n"
        + "test_gcd()\n"
        + "print(\n    gcd(1, 1),\n)\n"
        + "unittest.main()\n"
        + "print(gcd(2, 2))\n"  # kept: the module had it before this reply
    )
    found = find(code, original=GCD + "print(gcd(2, 2))\n")
    assert [(t.line, t.end_line, t.why) for t in found] == [
        (10, 10, "calls its own test function test_gcd"),
        (11, 13, "prints"),
        (14, 14, "runs unittest.main()"),
    ]
    skipped = skipping(code, found)
    assert skipped.splitlines()[9:14] == ["pass", "pass", "", "", "pass"]
    assert len(skipped.splitlines()) == len(code.splitlines())  # every line where it was


def test_a_reply_whose_own_test_fails_on_import_is_judged_by_the_checks(tmp_path):
    verdict = validator(tmp_path, "bwrap", {"code": CHECKS}, target="gcd.py").check(GCD + OWN_TESTS)
    assert verdict.passed


def test_the_feedback_says_which_lines_were_left_out_and_where(tmp_path):
    wrong = GCD.replace("return a", "return b")
    verdict = validator(tmp_path, "bwrap", {"code": CHECKS}, target="gcd.py").check(wrong + OWN_TESTS)
    assert verdict.failing == ["zero", "twelve"]
    details = verdict.feedback.split("\n\nDetails:\n", 1)[1]
    assert details.startswith(
        "### lines that run when the module is imported (not judged)\n"
        "line 12: check_solution()  (calls its own test function check_solution)\n"
        "line 13: print(gcd(12, 8))  (prints)\n"
        "line 14: assert gcd(3, 0) == 0  (asserts)\n"
        "The module runs these itself when it is imported. The checks imported it without them, so "
        "they decided nothing: the failing checks listed are the task's. Leave your own tests and prints "
        "out of the module.\n\n"
        '### zero (line 1)\nassert gcd(0, 5) == 5, "zero"\ngcd(0, 5) returned 0, expected 5\n\n'
    )
