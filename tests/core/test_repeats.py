"""No wasted attempt, in the loop's own decisions (a replayed model, a scripted validator): code
judged before is not judged again and the model is told so, a little hotter; a repair that fails
as the attempt before it did is followed by a fresh sample from the task; existing code is judged
in the preflight and its failures open the first prompt."""

from pathlib import Path

from fake_openai import ScriptedOpenAI
from test_loop import CODE, Replies, Verdicts, report, spec

from bot.core.loop import solve
from bot.core.repeats import normalized
from bot.judge.validate import Verdict
from bot.models.base import ModelSettings, Reply
from bot.models.openai_api import OpenAIModel

OTHER = CODE.replace("return 1", "return 2")
FAILED = Verdict(False, ["t"], "Failing checks:\n- t: expected 1, got 3")


def test_whitespace_aside_means_trailing_spaces_and_blank_lines():
    assert normalized("\n\ndef f():   \n\n\n\n    return 1\t\n  \n") == "def f():\n    return 1"
    assert normalized("a\n    b") != normalized("a\nb")  # indentation is code


def test_code_judged_before_is_not_judged_again_and_the_model_is_told(tmp_path: Path):
    again = "```python\ndef f():   \n\n\n    return 1\n\n```"  # CODE with trailing spaces and blank lines
    model = Replies(Reply(CODE, 40, 8), Reply(again, 60, 9), Reply(OTHER, 80, 7))
    validator = Verdicts(FAILED, Verdict(True), Verdict(True))
    result = solve(spec(tmp_path), model, validator, report(), clock=lambda: 10.0 * validator.checked)

    assert validator.checked == 3  # the first attempt once, the last twice (its confirmation); none for the repeat
    assert [a.kind for a in result.attempts] == ["failed", "same code", "passed"]
    repeat = result.attempts[1]
    # A call with its tokens, and no test run: the clock moves only when the validator runs.
    assert (repeat.tokens, repeat.test_seconds, result.attempts[2].test_seconds) == (
        {"input": 60, "output": 9},
        0.0,
        20.0,
    )
    assert repeat.failing_tests == ["(same code as attempt 1)"]
    assert repeat.headline(3).startswith("attempt 2/3  SAME  ")
    told = (
        "This is the same code as attempt 1 (whitespace aside), so it was not run again: it fails the tests as it did "
        "then. Write a different fix.\n\nFailing checks:\n- t: expected 1, got 3"
    )
    assert repeat.feedback == told
    # The next call is a fresh sample: the task restated with how attempt 1 failed, not its code.
    assert model.calls[2][-1]["content"] == (
        "Task: t\nWrite the file `f.py`. It must define `f`.\n\nEarlier answers failed the tests. Their code is "
        "not shown: write the file anew, so that these checks pass too.\n\nAnswer 1:\nFailing checks:\n"
        "- t: expected 1, got 3"
    )
    assert result.notes == [
        "attempt 2 sent back the code of attempt 1: the next call is a fresh sample from the task, restated with "
        "1 failure so far, 1 step hotter"
    ]
    assert result.passed and result.stop_reason == "passed on attempt 3"


def test_each_repeat_is_answered_by_a_fresh_sample_a_step_hotter(tmp_path: Path):
    """Through the real SDK: the temperature each request sends."""
    with ScriptedOpenAI([CODE, CODE, CODE, OTHER]) as fake:
        model = OpenAIModel(ModelSettings(name="m", api="chat", base_url=fake.base_url, temperature=0.5))
        validator = Verdicts(FAILED, Verdict(True), Verdict(True))
        result = solve(spec(tmp_path, max_attempts=4), model, validator, report())
    bodies = [request.json for request in fake.requests]
    assert [body["temperature"] for body in bodies] == [0.5, 0.5, 0.8, 1.1]
    assert [a.kind for a in result.attempts] == ["failed", "same code", "same code", "passed"]
    # Each repeat is followed by the same fresh sample: the task restated with the one failure so far.
    assert bodies[3]["messages"] == bodies[2]["messages"] != bodies[0]["messages"]
    assert "Answer 1:\nFailing checks:\n- t: expected 1, got 3" in bodies[3]["messages"][-1]["content"]
    assert [note.split(": ")[0] for note in result.notes] == [
        "attempt 2 sent back the code of attempt 1",
        "attempt 3 sent back the code of attempt 1",
    ]
    assert result.notes[1].endswith("restated with 1 failure so far, 2 steps hotter")


def test_a_temperature_raised_stops_at_the_warmest_and_none_set_sends_none(tmp_path: Path):
    with ScriptedOpenAI([CODE] * 4 + [CODE] * 3) as fake:
        hot = OpenAIModel(ModelSettings(name="m", api="chat", base_url=fake.base_url, temperature=1.0))
        solve(spec(tmp_path, max_attempts=4), hot, Verdicts(FAILED), report(), strategy="repair")
        unset = OpenAIModel(ModelSettings(name="m", api="chat", base_url=fake.base_url))
        solve(spec(tmp_path), unset, Verdicts(FAILED), report())
    sent = [request.json.get("temperature") for request in fake.requests]
    assert sent == [1.0, 1.0, 1.2, 1.2] + [None] * 3


def test_a_repair_failing_the_same_checks_the_same_way_is_followed_by_a_fresh_sample(tmp_path: Path):
    third = CODE.replace("return 1", "return 4")
    model = Replies(Reply(CODE), Reply(OTHER), Reply(third))
    same = Verdict(False, ["t"], "Failing checks:\n- t: expected 1, got 3\n\nDetails:\nline 2")
    moved = Verdict(False, ["t"], "Failing checks:\n- t: expected 1, got 3\n\nDetails:\nline 7")  # details aside
    notes: list[str] = []
    verdicts = Verdicts(same, moved, Verdict(True), Verdict(True))
    result = solve(spec(tmp_path), model, verdicts, report(), on_note=notes.append)
    first, repair, fresh = model.calls
    assert "Earlier answers failed the tests" in repair[-1]["content"]
    assert fresh == first  # the task alone: the first prompt, no trace of the conversation
    note = "attempt 2 failed the same checks the same way as attempt 1: the next call starts afresh from the task"
    assert notes == result.notes == [note]
    assert result.passed


def test_without_the_switch_the_stuck_repair_is_repaired_again(tmp_path: Path):
    model = Replies(Reply(CODE), Reply(OTHER), Reply(CODE.replace("return 1", "return 4")))
    verdicts = Verdicts(FAILED, FAILED, Verdict(True), Verdict(True))
    result = solve(spec(tmp_path), model, verdicts, report(), strategy="repair")
    assert "Earlier answers failed the tests" in model.calls[2][-1]["content"] and result.notes == []


def test_other_failures_are_repaired_not_resampled(tmp_path: Path):
    model = Replies(Reply(CODE), Reply(OTHER), Reply(CODE.replace("return 1", "return 4")))
    other = Verdict(False, ["t"], "Failing checks:\n- t: expected 1, got 2")
    solve(spec(tmp_path), model, Verdicts(FAILED, other, Verdict(True), Verdict(True)), report())
    assert "Earlier answers failed the tests" in model.calls[2][-1]["content"]


class Judging(Verdicts):
    """Scripted verdicts that remember the code each check was given."""

    def __init__(self, *verdicts: Verdict):
        super().__init__(*verdicts)
        self.codes: list[str] = []
        self.failures_seen = ""

    def check(self, code: str) -> Verdict:
        self.codes.append(code)
        return super().check(code)


def test_existing_code_is_judged_before_the_first_call_and_its_failures_open_the_first_prompt(tmp_path: Path):
    current = "def f():\n    return 3\n"
    (tmp_path / "f.py").write_text(current)
    unchanged = f"```python\n{current}```"
    model = Replies(Reply(unchanged), Reply(CODE))
    validator = Judging(FAILED, Verdict(True), Verdict(True))
    result = solve(spec(tmp_path), model, validator, report())

    assert validator.codes == [current, "def f():\n    return 1\n", "def f():\n    return 1\n"]
    first = model.calls[0][1]["content"]
    told = "It fails the tests now:\nFailing checks:\n- t: expected 1, got 3"
    assert first.endswith(f"```python\n{current}```\n\n{told}")
    # The current code sent back is known for what it is: no test run.
    assert [a.kind for a in result.attempts] == ["same code", "passed"]
    assert result.attempts[0].failing_tests == ["(same code as the current code)"]


def test_existing_code_that_passes_adds_nothing_to_the_first_prompt(tmp_path: Path):
    (tmp_path / "f.py").write_text("def f():\n    return 1\n")
    model = Replies(Reply(CODE))
    validator = Judging(Verdict(True), Verdict(True), Verdict(True))
    result = solve(spec(tmp_path), model, validator, report())
    assert "It fails the tests now" not in model.calls[0][1]["content"]
    assert [a.kind for a in result.attempts] == ["passed"]  # the same code, judged: it passes
