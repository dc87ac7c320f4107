"""A reply that runs its own tests when its module is imported: those lines are left out of the
candidate, so the task's checks decide on the file that is kept, and the feedback says which lines
were left out and where."""

from test_verdict import validator

from bot.core.whole_file import WholeFile
from bot.judge.selftests import dropped, find, left_out
from bot.spec import Spec

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
        (6, 7, "defines its own test function test_gcd"),  # #45: its own test functions go too
        (10, 10, "calls its own test function test_gcd"),
        (11, 13, "prints"),
        (14, 14, "runs unittest.main()"),
    ]
    assert dropped(code, found) == code.replace("test_gcd()\nprint(\n    gcd(1, 1),\n)\nunittest.main()\n", "").replace(
        "def test_gcd():\n    assert gcd(2, 4) == 2\n", ""
    )


def test_a_self_test_sharing_a_line_becomes_pass_and_the_blank_lines_left_at_the_end_go():
    own = GCD + "def check_gcd():\n    assert gcd(1, 1) == 1\n"
    code = own + "x = 1; check_gcd()\n\n\ncheck_gcd()\n\n"
    assert dropped(code, find(code)) == own + "x = 1; pass\n"


def answer(own_tests: str = OWN_TESTS) -> tuple[WholeFile, list[str]]:
    spec = Spec.model_validate({"task": "gcd", "target": "gcd.py", "tests": {"code": CHECKS}})
    notes: list[str] = []
    return WholeFile(spec, None, on_note=notes.append), notes


def test_a_reply_whose_own_test_fails_on_import_is_kept_and_judged_without_it(tmp_path):
    whole, notes = answer()
    candidate = whole.apply(f"```python\n{GCD}{OWN_TESTS}```")
    kept = GCD + "\n\ndef check_solution():\n    assert gcd(0, 5) == 0, 'mine'\n    print('all passed')\n"
    assert candidate.code == candidate.files["gcd.py"] == kept  # its definition stays; nothing calls it
    assert notes == ["left out of `gcd.py`: lines 12, 13, 14 of the reply's code, which ran its own tests on import"]
    assert validator(tmp_path, "bwrap", {"code": CHECKS}, target="gcd.py").check(candidate.code).passed
    # Without the drop, the file a user would get fails on import: the verdict on it is a failure.
    assert not validator(tmp_path, "bwrap", {"code": CHECKS}, target="gcd.py").check(GCD + OWN_TESTS).passed


def test_the_feedback_says_which_lines_were_left_out_and_where(tmp_path):
    wrong = GCD.replace("return a", "return b")
    whole, _ = answer()
    whole.first()
    candidate = whole.apply(f"```python\n{wrong}{OWN_TESTS}```")
    verdict = validator(tmp_path, "bwrap", {"code": CHECKS}, target="gcd.py").check(candidate.code)
    assert verdict.failing == ["zero", "twelve"]
    prompt = whole.next(verdict.feedback)[-1]["content"]
    assert '### zero (line 1)\nassert gcd(0, 5) == 5, "zero"\ngcd(0, 5) returned 0, expected 5\n\n' in prompt
    assert prompt.endswith(
        "### lines of your code left out (they run when the module is imported)\n"
        "line 12: check_solution()  (calls its own test function check_solution)\n"
        "line 13: print(gcd(12, 8))  (prints)\n"
        "line 14: assert gcd(3, 0) == 0  (asserts)\n"
        "These lines ran your own tests or printed when the module was imported, so they were left out "
        "of `gcd.py`: the tests judged it without them, and it is kept without them. Leave your own "
        "tests and prints out of the module."
    )


# #45: a reply's own test functions, and their decorators: a `@pytest.mark.parametrize` whose
# pytest the reply never imported fails the import, and the file would keep a dead test.
PARAMETRIZED = (
    "\n\n@pytest.mark.parametrize('a, b, want', [(0, 5, 5), (12, 8, 4)])\n"
    "@pytest.mark.slow\n"
    "def test_gcd(a, b, want):\n    assert gcd(a, b) == want\n\n\n"
    "async def test_more():\n    assert gcd(1, 1) == 1\n"
)


def test_a_reply_s_test_functions_and_their_decorators_are_left_out_and_it_passes(tmp_path):
    whole, notes = answer()
    whole.first()
    candidate = whole.apply(f"```python\n{GCD}{PARAMETRIZED}```")
    assert candidate.code == candidate.files["gcd.py"] == GCD
    assert notes == ["left out of `gcd.py`: lines 7-10, 13-14 of the reply's code, which defined or ran its own tests"]
    assert validator(tmp_path, "bwrap", {"code": CHECKS}, target="gcd.py").check(candidate.code).passed
    # Kept, the decorator's pytest, never imported, fails the module on import.
    assert not validator(tmp_path, "bwrap", {"code": CHECKS}, target="gcd.py").check(GCD + PARAMETRIZED).passed
    assert whole.next("(failed)")[-1]["content"].endswith(
        "### lines of your code left out (your own tests)\n"
        "line 7: @pytest.mark.parametrize('a, b, want', [(0, 5, 5), (12, 8, 4)])  "
        "(defines its own test function test_gcd)\n"
        "line 13: async def test_more():  (defines its own test function test_more)\n"
        "These lines defined or ran your own tests, or printed when the module was imported, so they were "
        "left out of `gcd.py`: the tests judged it without them, and it is kept without them. Leave your "
        "own tests and prints out of the module."
    )


def test_test_functions_the_module_has_or_uses_and_those_of_a_test_module_stay():
    own = "def test_helper():\n    return 1\n"
    code = GCD + own + "def testing_mode():\n    return 2\n" + "def test_x():\n    pass\n\n\nX = test_x\n"
    # test_helper is the target's own; testing_mode is no test name; test_x is used by the code.
    assert find(code, original=own) == []
    code = GCD + "def test_gcd():\n    assert gcd(2, 4) == 2\n"
    assert [t.line for t in find(code)] == [5]
    assert find(code, test_functions=False) == []
    assert left_out(code, None, "tests/test_gcd.py") == (code, "", "")
    assert left_out(code, None, "gcd_test.py") == (code, "", "")
    assert left_out(code, None, "pkg/gcd.py")[0] == GCD
