"""The loop's own decisions, with collaborators passed in: a replayed model and a scripted validator."""

from pathlib import Path

from bot.core.loop import solve
from bot.core.report import Report
from bot.judge.validate import Verdict
from bot.models.base import Reply
from bot.spec import Spec

CODE = "```python\ndef f():\n    return 1\n```"


class Replies:
    name = banner = "scripted"

    def __init__(self, *replies: Reply):
        self.replies = list(replies)
        self.calls: list[list[dict]] = []

    def complete(self, messages):
        self.calls.append(messages)
        return self.replies.pop(0)


class Verdicts:
    """Hands out verdicts in order, one per `check` call."""

    def __init__(self, *verdicts: Verdict):
        self.verdicts = list(verdicts)
        self.checked = 0

    def preflight(self) -> list[str]:
        return []

    def check(self, code: str) -> Verdict:
        self.checked += 1
        return self.verdicts.pop(0)


def spec(tmp_path: Path, **fields) -> Spec:
    # Test strength off: its mutants would take the verdicts scripted for candidates (test_strength_judge.py).
    # The loop these tests follow repairs (the default, resample, is test_the_resample_strategy_...).
    fields = {"strategy": "repair+resample", **fields}
    made = Spec.model_validate(
        {"task": "t", "target": "f.py", "entry": "f", "tests": {"code": "assert f() == 1"}, "strength": "off", **fields}
    )
    made.workdir = tmp_path
    return made


def report() -> Report:
    return Report(model="scripted", sandbox="test", target="f.py", max_attempts=3)


def test_a_pass_that_fails_when_repeated_is_not_a_pass(tmp_path):
    validator = Verdicts(Verdict(True), Verdict(False, ["t"], "- t: failed"), Verdict(True), Verdict(True))
    again = CODE.replace("return 1", "return 1  # again")  # the same code would not be judged again
    result = solve(spec(tmp_path), Replies(Reply(CODE), Reply(again)), validator, report())
    assert [a.passed for a in result.attempts] == [False, True]
    assert (
        result.attempts[0].feedback == "The tests passed once, then failed when repeated in a clean copy:\n- t: failed"
    )
    assert validator.checked == 4
    assert (tmp_path / "f.py").read_text() == "def f():\n    return 1  # again\n"


def test_the_token_budget_stops_the_loop(tmp_path):
    model = Replies(Reply(CODE, 90, 40), Reply(CODE))
    result = solve(spec(tmp_path, max_tokens=100), model, Verdicts(Verdict(False, ["t"], "- t")), report())
    assert len(result.attempts) == 1 and len(model.calls) == 1
    assert result.stop_reason == "token budget spent (130 of 100)"
    assert not (tmp_path / "f.py").exists()


def test_the_time_budget_stops_the_loop(tmp_path):
    ticks = iter([0.0, 0.0, 2.0, 5.0, 11.0])  # start; the attempt: asked, answered, judged; the budget
    result = solve(
        spec(tmp_path, max_seconds=10),
        Replies(Reply(CODE)),
        Verdicts(Verdict(False, ["t"], "- t")),
        report(),
        clock=lambda: next(ticks),
    )
    assert result.stop_reason == "time budget spent (11.0 s of 10 s)"
    attempt = result.attempts[0]
    assert (attempt.seconds, attempt.model_seconds, attempt.test_seconds) == (5.0, 2.0, 3.0)


def test_a_repair_of_code_written_anew_restates_the_task_with_each_distinct_failure_not_the_code(tmp_path):
    """Shown its own code, a small model sends it back; the repair prompt is the first one with how
    each earlier answer failed (the same failure told once), and none of their code."""
    replies = [Reply(CODE.replace("1", str(n))) for n in (5, 2, 3)]
    model = Replies(*replies, Reply(CODE))
    failures = [f"Failing checks:\n- t: expected 1, got {n}" for n in (5, 2, 2)]
    validator = Verdicts(*(Verdict(False, ["t"], f) for f in failures), Verdict(True), Verdict(True))
    solve(spec(tmp_path, max_attempts=4), model, validator, report(), strategy="repair")
    opening = model.calls[0]
    assert [m["role"] for m in opening] == ["system", "user"]
    intro = (
        "Earlier answers failed the tests. Their code is not shown: write the file anew, so that these checks pass too."
    )
    told = [failures[:1], failures[:2], failures[:2]]
    for call, seen in zip(model.calls[1:], told, strict=True):
        listed = "\n\n".join(f"Answer {n}:\n{f}" for n, f in enumerate(seen, 1))
        assert call == [opening[0], {"role": "user", "content": f"{opening[1]['content']}\n\n{intro}\n\n{listed}"}]
        assert not any("return 5" in message["content"] for message in call)


def test_a_repair_of_existing_code_continues_the_conversation_from_the_last_reply(tmp_path):
    """The first prompt as sent, the model's last reply as its own turn, the verdict next: nothing
    restated, so a server caching prefixes reads only the new turns; earlier replies left out."""
    (tmp_path / "f.py").write_text("def f():\n    return 0\n")
    replies = [Reply(CODE.replace("1", str(n))) for n in (5, 2, 3)]
    model = Replies(*replies, Reply(CODE))
    verdicts = [Verdict(False, ["t"], f"Failing checks:\n- t: expected 1, got {n}") for n in (0, 5, 2, 3)]
    validator = Verdicts(*verdicts, Verdict(True), Verdict(True))
    solve(spec(tmp_path, max_attempts=4), model, validator, report(), strategy="repair")
    opening = model.calls[0]
    assert [m["role"] for m in opening] == ["system", "user"] and "return 0" in opening[1]["content"]
    told = [
        f"Your previous version of `f.py`, above, failed the tests:\n{v.feedback}\n\n"
        "Fix the code. Reply with the whole corrected file `f.py`."
        for v in verdicts[1:]
    ]
    turns = [
        [{"role": "assistant", "content": reply.text}, {"role": "user", "content": verdict}]
        for reply, verdict in zip(replies, told, strict=True)
    ]
    assert model.calls[1:] == [[*opening, *turn] for turn in turns]


def test_the_resample_strategy_sends_the_first_prompt_at_every_call(tmp_path):
    """`strategy: resample` (the spec's, `--strategy`): the model never sees a verdict; each call is
    the task's first prompt again, with a seed of its own, and the first candidate to pass wins."""
    (tmp_path / "f.py").write_text("def f():\n    return 0\n")
    replies = [Reply(CODE.replace("1", str(n))) for n in (5, 2)]
    model = Replies(*replies, Reply(CODE))
    verdicts = [Verdict(False, ["t"], f"Failing checks:\n- t: expected 1, got {n}") for n in (0, 5, 2)]
    validator = Verdicts(*verdicts, Verdict(True), Verdict(True))
    result = solve(spec(tmp_path, max_attempts=4, strategy="resample"), model, validator, report())
    assert result.passed and result.stop_reason == "passed on attempt 3"
    assert model.calls == [model.calls[0]] * 3
    assert not any("expected 1, got 5" in message["content"] for message in model.calls[2])


def test_the_repair_strategy_never_starts_afresh(tmp_path):
    """`strategy: repair`: a repair that fails as the one before it did is repaired again, where
    repair+resample (the default) would start afresh from the task."""
    (tmp_path / "f.py").write_text("def f():\n    return 0\n")
    same = "Failing checks:\n- t: expected 1, got 0"
    replies = [Reply(CODE.replace("1", str(n))) for n in (5, 6, 7)]
    for strategy, restarted in (("repair", False), ("repair+resample", True)):
        model = Replies(*replies)
        validator = Verdicts(*(Verdict(False, ["t"], same) for _ in range(4)))
        result = solve(spec(tmp_path, max_attempts=3, strategy=strategy), model, validator, report())
        assert any("starts afresh" in note for note in result.notes) is restarted, (strategy, result.notes)
