"""The strength judge in the loop, with the real validator in the bwrap sandbox: the mutants of a
pass run once, though the loop judges a pass twice."""

import hashlib
from pathlib import Path

from null_places import Last

from bot.core.loop import solve
from bot.core.report import Report
from bot.judge import strength as strength_module
from bot.judge.validate import Validator, Verdict, python_paths
from bot.models.base import Reply
from bot.sandbox.tiers import open_sandbox
from bot.spec import Spec

LOOP = (
    "```python\ndef unique_items(items):\n    seen = set()\n    result = []\n    for item in items:\n"
    "        if item not in seen:\n            seen.add(item)\n            result.append(item)\n    return result\n```"
)


class Replies:
    name = "scripted"

    def __init__(self, *replies: str):
        self.replies = [Reply(text) for text in replies]

    def complete(self, messages):
        return self.replies.pop(0)


class CountingValidator(Validator):
    """The real validator, counting what it judges."""

    checked: list[str]

    def check(self, code: str) -> Verdict:
        self.checked.append(code)
        return super().check(code)


def solved(tmp_path: Path, strength: str, *replies: str) -> tuple[Report, CountingValidator]:
    spec = Spec.model_validate(
        {"task": "t", "target": "unique.py", "tests": {"code": 'assert unique_items([3, 1, 3]) == [3, 1], "order"'},
         "strength": strength}
    )  # fmt: skip
    spec.workdir = tmp_path
    validator = CountingValidator(spec, open_sandbox("bwrap", readable=python_paths()))
    validator.checked = []
    report = Report(model="scripted", sandbox="bwrap", target="unique.py", max_attempts=3)
    return solve(spec, Replies(*(replies or [LOOP])), validator, report), validator


def test_a_pass_is_judged_twice_and_its_mutants_once(tmp_path, monkeypatch):
    monkeypatch.setattr(strength_module, "CHOOSE", Last())
    report, validator = solved(tmp_path, "report")
    assert report.passed and report.strength is not None
    assert (report.strength.killed, report.strength.total) == (3, 3)
    candidate = (tmp_path / "unique.py").read_text()
    assert validator.checked.count(candidate) == 2
    assert len(validator.checked) == 2 + 2 + 3  # the pass twice, two null mutants, three mutants


def test_strength_off_judges_the_pass_alone(tmp_path):
    report, validator = solved(tmp_path, "off")
    assert report.passed and report.strength is None
    assert len(validator.checked) == 2


def test_the_gate_fails_code_that_reads_itself_and_tells_the_model_why(tmp_path):
    """Its every mutant breaks itself, so the weak test would score it 1.00; a null mutant breaks
    too, so the score is void and the attempt fails; the plain code that follows passes."""
    body = LOOP.removeprefix("```python\n").removesuffix("```")
    seen = hashlib.sha256(body.encode()).hexdigest()
    reads_itself = (
        f'```python\nimport hashlib\nEXPECTED = "{seen}"\n'
        'SEEN = {EXPECTED: None}[hashlib.sha256(open(__file__, "rb").read().split(b"\\n", 3)[3]).hexdigest()]\n'
        f"{body}```"
    )
    report, validator = solved(tmp_path, "gate", reads_itself, LOOP)
    assert [attempt.kind for attempt in report.attempts] == ["failed", "passed"]
    assert report.attempts[0].feedback.startswith(
        "Your code passes the tests, but not once a line that does nothing is added to it: the tests failed a null "
        "mutant, unique.py:"
    )
    assert report.strength is not None and (report.strength.killed, report.strength.total) == (3, 3)
