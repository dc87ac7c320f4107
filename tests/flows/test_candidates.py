"""Candidates side by side (#45): `candidates: N` asks N replies of one prompt at once, each with a
seed of its own, judges them side by side, keeps the first that passes and repairs from the one
with the fewest failures; `max_attempts` and the token budget count every call. Through `autofix
run`, the real openai SDK against the scripted server (whose barrier proves the calls are in
flight together: made one after the other, the first would wait alone until the barrier broke)
and the real sandbox."""

import json
import threading

from conftest import RIGHT, WRONG
from fake_openai import Reply, ScriptedOpenAI

from bot.cli import main

CURRENT = "def unique_items(items):\n    return items\n"
ONE_WRONG = "```python\ndef unique_items(items):\n    return list(dict.fromkeys(items)) or [0]\n```"  # "empty" fails
ALSO_RIGHT = (
    "```python\ndef unique_items(items):\n    seen = set()\n"
    "    return [x for x in items if not (x in seen or seen.add(x))]\n```"
)


def together(replies: dict[int, Reply]):
    """A script item for each call of a round: it waits until all of them are in flight, then
    answers by the seed the call sent."""
    barrier = threading.Barrier(len(replies), timeout=30)

    def answer(body: dict) -> Reply:
        barrier.wait()
        return replies[body["seed"]]

    return [answer] * len(replies)


def run(task, fake, *extra):
    report = task.parent / "report.json"
    argv = ["run", str(task), "--base-url", fake.base_url, "--model", "m", "--api", "chat", "--report", str(report)]
    return main([*argv, *extra]), json.loads(report.read_text())


def test_three_candidates_are_asked_at_once_judged_and_the_first_that_passes_is_kept(task, capsys):
    task.write_text(task.read_text() + "candidates: 3\n")
    script = together({0: Reply(WRONG, 10, 1), 1: Reply(RIGHT, 20, 2), 2: Reply(ALSO_RIGHT, 40, 4)})
    with ScriptedOpenAI(script) as fake:
        code, report = run(task, fake)
    out = capsys.readouterr().out
    assert code == 0, out
    assert sorted(request.json["seed"] for request in fake.requests) == [0, 1, 2]
    assert len({json.dumps(request.json["messages"]) for request in fake.requests}) == 1  # one prompt, three seeds
    # Every candidate judged (none is a repeat of another), in the order asked; the first pass is kept.
    attempts = report["attempts"]
    assert [(a["number"], a["kind"]) for a in attempts] == [(1, "failed"), (2, "passed"), (3, "passed")]
    assert all(a["test_seconds"] > 0 for a in attempts)
    assert report["stop_reason"] == "passed on attempt 2"
    assert (
        task.parent / "unique.py"
    ).read_text() == "def unique_items(items):\n    return list(dict.fromkeys(items))\n"
    assert "passed on attempt 2: wrote" in out
    # Every call counts: its tokens, and one of max_attempts each (one round of three spent all 3).
    assert report["tokens"] == {"input": 70, "output": 7}


def test_the_next_round_repairs_the_candidate_with_the_fewest_failures(task, capsys):
    (task.parent / "unique.py").write_text(CURRENT)
    first = together({0: Reply(WRONG), 1: Reply(ONE_WRONG)})  # two failures; one
    second = together({2: Reply(WRONG.replace("set", "sorted")), 3: Reply(RIGHT)})
    with ScriptedOpenAI(first + second) as fake:
        code, report = run(task, fake, "--candidates", "2", "--max-attempts", "4")
    assert code == 0, capsys.readouterr().out
    assert [len(a["failing_tests"]) for a in report["attempts"][:2]] == [2, 1]
    repairs = [request.json["messages"] for request in fake.requests if request.json["seed"] in (2, 3)]
    assert len(repairs) == 2 and repairs[0] == repairs[1]
    assert repairs[0][2] == {"role": "assistant", "content": ONE_WRONG}  # the conversation goes on from it
    assert "empty: expected [], got [0]" in repairs[0][3]["content"]


def test_a_call_budget_smaller_than_a_round_asks_only_what_it_allows(task, capsys):
    with ScriptedOpenAI(together({0: Reply(WRONG), 1: Reply(WRONG.replace("set", "frozenset"))})) as fake:
        code, report = run(task, fake, "--candidates", "3", "--max-attempts", "2")
    assert code == 1
    assert len(fake.requests) == 2 and len(report["attempts"]) == 2
    assert report["stop_reason"] == "all 2 attempts failed"


def test_too_many_candidates_is_a_one_line_error(task, capsys):
    with ScriptedOpenAI([]) as fake:
        assert main(["run", str(task), "--base-url", fake.base_url, "--model", "m", "--candidates", "9"]) == 2
    assert capsys.readouterr().err == "autofix: error: --candidates: must be a whole number from 1 to 8\n"
