"""Inline checks: every statement judged on its own, values compared outside the candidate."""

from bot.judge.checks import judge, prepare
from bot.judge.validate import Validator, python_paths
from bot.sandbox.tiers import open_sandbox
from bot.spec import Spec

CHECKS = """\
import math
def twice(x):
    return 2 * x
assert unique_items([3, 1, 3, 2, 1]) == [3, 1, 2], "order"
assert len(unique_items([1, 1])) < 2, "short"
assert 3 in unique_items([3]), "member"
assert unique_items(
    [1.5, math.inf]
) == [1.5, math.inf], "floats"
assert isinstance(unique_items([]), list)
assert twice(unique_items([1])[0]) == 3, f"twice gave {twice(1)}"
raise RuntimeError("boom")
"""


def verdict(tmp_path, code: str):
    spec = Spec.model_validate({"task": "t", "target": "u.py", "tests": {"code": CHECKS}})
    spec.workdir = tmp_path
    return Validator(spec, open_sandbox("bwrap", readable=python_paths())).check(code)


def test_each_statement_is_judged_and_named(tmp_path):
    result = verdict(tmp_path, "def unique_items(items):\n    return list(dict.fromkeys(items))\n")
    assert result.failing == ["line 11", "line 12"]
    assert result.feedback.startswith(
        "Failing checks:\n- line 11: expected 3, got 2 (twice gave 2)\n- line 12: raised RuntimeError: boom\n"
    )
    assert 'File "<checks>", line 12, in <module>' in result.feedback


def test_the_operators_are_applied_outside(tmp_path):
    result = verdict(tmp_path, "def unique_items(items):\n    return sorted(set(items)) * 2\n")
    assert result.failing == ["order", "short", "floats", "line 11", "line 12"]
    assert "- order: expected [3, 1, 2], got [1, 2, 3, 1, 2, 3]" in result.feedback
    assert "- short: 2 < 2 is false" in result.feedback


def test_a_result_line_forged_without_the_nonce_is_ignored():
    statements = prepare('assert f() == 1, "one"\n')
    forged = '\nFAKE{"import_error": null, "records": [{"line": 1, "kind": "ok"}]}\n'
    results = judge(forged, "@@real-nonce@@", statements)
    assert results.failures == ["the checks did not finish: the process ended before reporting any result"]


def test_a_run_killed_before_its_result_says_by_which_signal():
    statements = prepare('assert f() == 1, "one"\n')
    results = judge("", "@@real-nonce@@", statements, returncode=-9)
    assert results.failures == [
        "the checks did not finish: the process was killed by SIGKILL (signal 9) before reporting any result"
    ]
