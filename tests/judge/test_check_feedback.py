"""What a failing inline check tells the model: the check's statement, the call and the values
its assertion compared (at the top of the checks, and inside a check function as HumanEval
writes them), and tracebacks that hold the checks' and the target's frames, never the runner's."""

import re

from test_verdict import validator

from bot.judge.checks import judge, prepare
from bot.text import FEEDBACK_CHARS

GCD_WRONG = "def gcd(a, b):\n    if a == 0 or b == 0:\n        return 0\n    return gcd(b, a % b)\n"


def feedback(tmp_path, checks: str, code: str, target: str = "gcd.py") -> str:
    return validator(tmp_path, "bwrap", {"code": checks}, target=target).check(code).feedback


def test_a_check_with_a_message_shows_the_call_and_what_it_returned(tmp_path):
    checks = (
        'assert gcd(0, 5) == 5, "zero"\n'
        'assert gcd(12, 8) > 1, "twelve"\n'
        'assert str(gcd(6, 3)) == "3", "text"\n'
        'assert gcd(7, 7) == 7, "same"\n'
    )
    assert feedback(tmp_path, checks, GCD_WRONG) == (
        "Failing checks:\n"
        "- zero: expected 5, got 0\n"
        "- twelve: 0 > 1 is false\n"
        "- text: expected '3', got '0'\n"
        "- same: expected 7, got 0\n"
        "\nDetails:\n"
        '### zero (line 1)\nassert gcd(0, 5) == 5, "zero"\ngcd(0, 5) returned 0, expected 5\n\n'
        '### twelve (line 2)\nassert gcd(12, 8) > 1, "twelve"\ngcd(12, 8) returned 0: 0 > 1 is false\n\n'
        '### text (line 3)\nassert str(gcd(6, 3)) == "3", "text"\n'
        "str(gcd(6, 3)) returned '0', expected '3'\nwhere gcd(6, 3) returned 0\n\n"
        '### same (line 4)\nassert gcd(7, 7) == 7, "same"\ngcd(7, 7) returned 0, expected 7'
    )


PARENS = "def parse_nested_parens(paren_string):\n    return [group.count('(') for group in paren_string.split()]\n"
HUMANEVAL_STYLE = """\
def check(candidate):
    assert candidate('(()()) ((())) () ((())()())') == [2, 3, 1, 3], "counts"
    assert candidate('(()(())((())))') == [4]

check(parse_nested_parens)
"""


def test_an_assert_inside_a_check_function_shows_both_operands(tmp_path):
    text = feedback(tmp_path, HUMANEVAL_STYLE, PARENS, target="parens.py")
    assert text == (
        "Failing checks:\n- line 5: raised AssertionError: counts\n\nDetails:\n"
        "### line 5\ncheck(parse_nested_parens)\n"
        "Traceback (most recent call last):\n"
        '  File "<checks>", line 5, in <module>\n    check(parse_nested_parens)\n'
        '  File "<checks>", line 2, in check\n'
        "    assert candidate('(()()) ((())) () ((())()())') == [2, 3, 1, 3], \"counts\"\n"
        "AssertionError: counts\n"
        "candidate('(()()) ((())) () ((())()())') returned [3, 3, 1, 5], expected [2, 3, 1, 3]"
    )


def test_a_check_that_raised_midway_shows_only_what_this_evaluation_returned(tmp_path):
    # The first round passes and keeps abs(...) = 0.0; the second raises inside it: that 0.0 is
    # not this round's, so only what the second round got to is shown.
    checks = "def check(f):\n    for x in [4.0, 9.0]:\n        assert abs(f(x) - x ** 0.5) < 1e-6\n\ncheck(root)\n"
    code = "def root(x):\n    return 2.0 if x == 4.0 else None\n"
    text = feedback(tmp_path, checks, code, target="root.py")
    assert text.endswith(
        '  File "<checks>", line 3, in check\n'
        "    assert abs(f(x) - x ** 0.5) < 1e-6\n"
        "TypeError: unsupported operand type(s) for -: 'NoneType' and 'float'\n"
        "where f(x) returned None"
    )


TRACEBACK_CHECKS = """\
assert gcd(5, 0) == 5, "remote"
assert apply(lambda x: x // 0, 1) == 1, "in its process"
def check(f):
    assert f(5, 0) == 5
check(gcd)
"""
RAISES = (
    "def gcd(a, b):\n    return rest(a, b)\n\n\ndef rest(a, b):\n    return a % b\n\n\n"
    "def apply(f, x):\n    return f(x)\n"
)


def test_no_traceback_shows_a_frame_of_autofix(tmp_path):
    text = feedback(tmp_path, TRACEBACK_CHECKS, RAISES)
    assert "checks_runner" not in text and "importlib" not in text and '"<string>"' not in text
    files = set(re.findall(r'File "([^"]+)"', text))
    assert files == {"<checks>", "gcd.py"}
    assert (
        '### remote (line 1)\nassert gcd(5, 0) == 5, "remote"\n'
        "Traceback (most recent call last):\n"
        '  File "<checks>", line 1, in <module>\n    assert gcd(5, 0) == 5, "remote"\n'
        '  File "gcd.py", line 2, in gcd\n    return rest(a, b)\n'
        '  File "gcd.py", line 6, in rest\n    return a % b\n'
        "ZeroDivisionError: integer modulo by zero\n\n"
    ) in text
    # A lambda can't cross to the checker: that check ran in the candidate's process, whose
    # frames are the candidate's and the checks' too.
    assert (
        '  File "<checks>", line 2, in <module>\n    assert apply(lambda x: x // 0, 1) == 1, "in its process"\n'
        '  File "gcd.py", line 10, in apply\n    return f(x)\n'
        '  File "<checks>", line 2, in <lambda>\n'
    ) in text
    assert (
        '  File "<checks>", line 5, in <module>\n    check(gcd)\n'
        '  File "<checks>", line 4, in check\n    assert f(5, 0) == 5\n'
        '  File "gcd.py", line 2, in gcd\n'
    ) in text


def test_an_import_that_fails_shows_the_targets_frames_only(tmp_path):
    code = "def gcd(a, b):\n    return a\n\n\nVALUE = gcd(1, 0) // 0\n"
    assert feedback(tmp_path, 'assert gcd(1, 1) == 1, "one"\n', code) == (
        "Failing checks:\n- importing the target failed, so no check ran\n\nDetails:\n"
        "### (import)\nTraceback (most recent call last):\n"
        '  File "gcd.py", line 5, in <module>\n    VALUE = gcd(1, 0) // 0\n'
        "ZeroDivisionError: integer division or modulo by zero"
    )


def test_a_recursion_is_told_in_a_few_lines(tmp_path):
    text = feedback(tmp_path, 'assert gcd(0, 5) == 5, "zero"\n', "def gcd(a, b):\n    return gcd(a, b)\n")
    assert text.count('File "gcd.py", line 2, in gcd') == 3
    assert re.search(r"\[Previous line repeated \d+ more times\]\nRecursionError: maximum recursion depth", text)


def test_long_values_are_cut_where_they_first_differ_within_the_budget(tmp_path):
    # Ten checks, each of two 2,000-character strings that differ at the 1,500th character on.
    checks = "".join(f'assert spelled({i}) == "0123456789" * 200, "n{i}"\n' for i in range(10))
    code = "def spelled(i):\n    text = '0123456789' * 200\n    return text[:1500 + i] + '#' + text[1501 + i :]\n"
    text = feedback(tmp_path, checks, code, target="spelled.py")
    assert len(text) <= FEEDBACK_CHARS
    summary = text.splitlines()[1]
    # Where they differ is kept, a few characters before it: not the 1,500 that agree.
    assert re.fullmatch(r"- n0: expected \.\.\.[0-9]{144}\.\.\., got \.\.\.[0-9]{37}#[0-9]{106}\.\.\.", summary)
    assert re.search(r"\nspelled\(0\) returned \.\.\.[0-9]{60}#[0-9]{173}\.\.\., expected \.\.\.[0-9]{234}\.\.\.", text)
    assert text.count("### n") >= 3  # later checks still shown, each in a block within its share


def test_values_a_record_claims_never_change_its_verdict():
    statements = prepare('assert f(1) == 2, "two"\nassert f(2) == 2, "same"\nassert g(f(3)) == 3, "three"\n')
    # What the candidate's process could send: captures that claim a pass, junk where a line goes.
    records = [
        {"line": 1, "kind": "compare", "op": "Eq", "left": ["int", "1"], "right": ["int", "2"]}
        | {"captured": [["__autofix_0__", "2"]], "at": 1},
        {"line": 2, "kind": "compare", "op": "Eq", "left": ["int", "2"], "right": ["int", "2"], "captured": "x"},
        {"line": 3, "kind": "error", "error": "ValueError: v", "traceback": 7, "at": [3], "captured": [[1, 2, 3]]},
    ]
    results = judge("@@n@@" + repr({"import_error": None, "records": records}), "@@n@@", statements)
    assert results.failures == ["two: expected 2, got 1", "three: raised ValueError: v"]
    assert results.blocks == [
        '### two (line 1)\nassert f(1) == 2, "two"\nf(1) returned 1, expected 2',
        '### three (line 3)\nassert g(f(3)) == 3, "three"\nraised ValueError: v',
    ]


def test_calls_inside_a_comprehension_are_left_as_they_are(tmp_path):
    # A name bound inside a comprehension's iterable is a syntax error: nothing in it is captured.
    checks = 'assert [n for n in range(gcd(4, 6)) if gcd(n, 2) == 1] == [1], "odd"\n'
    assert feedback(tmp_path, checks, GCD_WRONG) == (
        "Failing checks:\n- odd: expected [1], got []\n\nDetails:\n"
        '### odd (line 1)\nassert [n for n in range(gcd(4, 6)) if gcd(n, 2) == 1] == [1], "odd"\n'
        "[n for n in range(gcd(4, 6)) if gcd(n, 2) == 1] is [], expected [1]"
    )
