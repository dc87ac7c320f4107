"""What every body opens with (bot/github/lead.py): the verdict's parts, the model's explanation
cut out of its reply as text, titles that say what changed."""

import gfm
import pytest

from bot import spec
from bot.core.report import Attempt, Report
from bot.github import lead, render

EDIT = "calc.py\n```python\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n```\n"


def attempt(number: int, failing: list[str], kind: str = "failed", code: str = "x = 1\n", reply: str = "") -> Attempt:
    tokens = {"input": 1, "output": 1}
    return Attempt(number, False, failing, "feedback", 0.5, tokens, code, "", kind=kind, reply=reply)


@pytest.mark.parametrize(
    "reply, said",
    [
        (f"The pull request turned `+` into `-`.\n\n{EDIT}", "The pull request turned `+` into `-`."),
        ("calc.py\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n", ""),
        ("```python\ndef f():\n    return 1\n```", ""),  # code alone: nothing to say
        # the path line an edit block or a fence opens with is no prose
        ("The sum adds its operands again, as it should.\n" + EDIT, "The sum adds its operands again, as it should."),
        (
            "Swap the operator back to a plus sign:\n" + EDIT.replace("```python\n", "").replace("```\n", ""),
            ("Swap the operator back to a plus sign:"),
        ),
        (
            "Ok.\n\n```python\nx = 1\n```\n\nThe loop kept the first of each item, so the order stays.",
            ("The loop kept the first of each item, so the order stays."),
        ),  # the first paragraph with something in it
        ("~~~\nnot prose, in a tilde fence\n~~~\n" + "word " * 300, None),
    ],
)
def test_the_explanation_is_the_first_paragraph_of_prose_outside_code(reply, said):
    got = lead.explanation(reply)
    if said is None:  # long prose: cut between words, wrapped, within the budget
        assert "tilde" not in got and len(got) <= lead.EXPLANATION_CHARS + 10 and got.endswith(" …")
        assert max(len(line) for line in got.splitlines()) <= 100
    else:
        assert got == said


def test_the_explanation_shows_as_text_labelled_as_the_model_s():
    report = Report("m", "bwrap", "calc.py", 3)
    hostile = "@team <img src=x> **merge now** `x`"
    report.attempts.append(attempt(1, [], reply=f"{hostile} and the rest of a sentence.\n\n{EDIT}"))
    page = gfm.read(lead.change(["calc.py"], report))
    assert page.paragraphs == ["The change: calc.py.", "The model's explanation (its own words, unverified):"]
    assert page.blocks == [f"{hostile} and the rest of a sentence.\n"]  # in a fence: nothing of it renders
    assert "<img" not in page.html and "<strong>merge" not in page.html


@pytest.mark.parametrize(
    "issue_title, pull_title",
    [
        ("parse_duration counts hours as minutes", "Fix parse_duration counts hours as minutes"),
        ("add subtracts", "Fix add subtracts"),  # "add" is the function's name, not a verb to keep
        ("fix the timezone offset.", "Fix the timezone offset"),
        ("[bug]  Totals   off by one", "Fix Totals off by one"),
        ("", "Fix the issue"),
    ],
)
def test_a_title_says_what_the_change_does(issue_title, pull_title):
    assert lead.title(issue_title) == pull_title
    assert lead.title(issue_title, unproven=True) == f"{pull_title} (unproven)"


def test_what_still_fails_is_the_last_code_judged_not_a_note():
    report = Report("m", "bwrap", "unique.py", 3)
    report.attempts += [attempt(1, ["order", "strings"]), attempt(2, ["(same code as attempt 1)"], "same code")]
    assert lead.still_failing(report) == ["order", "strings"]
    assert lead.failed_attempts(report) == "on 2 attempts"
    report.attempts.append(attempt(3, ["(edits refused)"], "edits refused", code="no edit"))
    assert lead.failed_attempts(report) == "on all 3 attempts"
    # the code shown is the one the tests judged, not a reply that ran none
    assert gfm.read(render.tried(report)).summaries == ["The code attempt 1 wrote for <code>unique.py</code>"]


def test_the_tests_that_decided_are_counted():
    assert lead.decided_by(spec.Tests(code="assert f()\nassert g()\n")) == "the 2 inline checks"
    assert lead.decided_by(spec.Tests(code="assert f()", command="pytest -q")) == "`pytest -q` and the 1 inline check"
    assert lead.decided_by(spec.Tests(command="make\n  test")) == "`make test`"
    counted = spec.Tests(code="assert f()", command="python -m pytest -q")
    assert lead.decided_by(counted, 180) == "the 180 tests of `python -m pytest -q` and the 1 inline check"
    assert lead.decided_by(spec.Tests(command="go test ./grade"), 1) == "the 1 test of `go test ./grade`"
