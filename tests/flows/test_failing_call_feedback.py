"""`autofix run` end to end with inline checks: the repair prompt carries the failing call and
what it returned, and a reply that runs its own wrong test at import is judged by the checks, and
kept, without those lines."""

import json

from fake_openai import ScriptedOpenAI

from bot.cli import main

SPEC = """\
task: Write gcd(a, b), the greatest common divisor of two non-negative integers.
target: gcd.py
tests:
  code: |
    assert gcd(0, 5) == 5, "zero"
    def check(candidate):
        assert candidate(12, 8) == 4
    check(gcd)
strategy: repair+resample
"""
WRONG = "```python\ndef gcd(a, b):\n    if a == 0 or b == 0:\n        return 0\n    return gcd(b, a % b)\n```"
RIGHT = "```python\ndef gcd(a, b):\n    while b:\n        a, b = b, a % b\n    return a\n```"
# The right function, then the model's own test with a wrong expectation, called at import.
OWN_TEST = (
    "```python\ndef gcd(a, b):\n    while b:\n        a, b = b, a % b\n    return a\n\n\n"
    "def check_solution():\n    assert gcd(0, 5) == 0\n\n\ncheck_solution()\n```"
)


def run(tmp_path, replies):
    spec = tmp_path / "gcd.yml"
    spec.write_text(SPEC)
    report = tmp_path / "report.json"
    with ScriptedOpenAI(replies) as fake:
        code = main(["run", str(spec), "--model", "m", "--base-url", fake.base_url, "--report", str(report)])
    return code, json.loads(report.read_text()), fake.prompts()


def test_the_repair_prompt_shows_the_failing_calls_and_their_values(tmp_path):
    code, report, prompts = run(tmp_path, [WRONG, RIGHT])
    assert code == 0 and [a["passed"] for a in report["attempts"]] == [False, True]
    repair = prompts[1]
    assert '### zero (line 1)\nassert gcd(0, 5) == 5, "zero"\ngcd(0, 5) returned 0, expected 5' in repair
    assert (
        '  File "<checks>", line 3, in check\n    assert candidate(12, 8) == 4\n'
        "AssertionError\ncandidate(12, 8) returned 0, expected 4"
    ) in repair
    assert "checks_runner" not in repair


def test_a_reply_that_runs_its_own_failing_test_at_import_passes_on_the_checks_and_is_kept_without_it(tmp_path, capsys):
    """Before, the checks imported the module without the call and autofix wrote it with the call:
    a gcd.py that raised AssertionError on import, after "passed"."""
    code, report, _ = run(tmp_path, [OWN_TEST])
    assert code == 0 and report["attempts"][0]["passed"]
    written = (tmp_path / "gcd.py").read_text()
    assert written.endswith("def check_solution():\n    assert gcd(0, 5) == 0\n")  # not called
    note = "attempt 1: left out of `gcd.py`: line 11 of the reply's code, which ran its own tests on import"
    assert f"autofix: note: {note}" in capsys.readouterr().out.splitlines() and note in report["notes"]
