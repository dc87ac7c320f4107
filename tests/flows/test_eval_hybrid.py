"""`autofix eval`'s repair+resample, paired with the others at equal calls: the real openai SDK
against the scripted server, the real sandbox. A model whose repairs are stuck on one failure,
and whose fresh samples pass after the first: repair fails, resample and repair+resample pass."""

from __future__ import annotations

import pytest
from fake_openai import Reply, ScriptedOpenAI, prompt_text
from test_eval import autofix_eval, fenced, load

SPEC = """\
task: Write add(a, b), the sum of two numbers.
target: add.py
tests:
  code: |
    assert add(2, 3) == 5, "sum"
timeout: 20
"""
PRODUCT = "def add(a, b):\n    return a * b\n"
SAME_PRODUCT = "def add(a, b):\n    return b * a\n"  # other code, the same failure: sum: expected 5, got 6
SUM = "def add(a, b):\n    return a + b\n"


@pytest.fixture
def tasks(tmp_path):
    """A task set of one spec: add."""
    folder = tmp_path / "tasks"
    folder.mkdir()
    (folder / "add.yml").write_text(SPEC)
    return folder


def stuck_repairs(body: dict) -> Reply:
    """A repair prompt gets the product again, always; the first prompt the sum, but for seed 0."""
    if "Earlier answers failed the tests" in prompt_text(body):
        return Reply(fenced(SAME_PRODUCT), 100, 10)
    return Reply(fenced(PRODUCT if body["seed"] == 0 else SUM), 100, 10)


def test_repair_and_resample_resamples_where_repair_is_stuck(tasks, tmp_path, capsys):
    out = tmp_path / "out"
    with ScriptedOpenAI([stuck_repairs] * 6) as fake:
        assert autofix_eval(tasks, "--out", out, "--model", "m", "--api", "chat", "--base-url", fake.base_url) == 0
    assert fake.remaining == 0
    data = load(out)
    results = {r["strategy"]: (r["passed"], r["calls"], r["attempts"]) for r in data["results"]}
    assert results == {
        "one-shot": (False, 1, 1),
        "repair": (False, 3, 2),  # its second repair is the same code again: a call, no test run
        "resample": (True, 2, 2),
        "repair+resample": (True, 3, 3),  # the shared call, one repair, then a fresh sample
    }
    # repair+resample's requests after the shared first call: a repair, then the first prompt again
    first, *later = [r.json for r in fake.requests]
    hybrid = later[-2:]
    assert "Earlier answers failed the tests" in prompt_text(hybrid[0])
    assert (hybrid[1]["messages"], hybrid[1]["seed"]) == (first["messages"], 2)
    compared = {(c["a"], c["b"]): (c["tasks"], c["only_a"], c["only_b"]) for c in data["comparisons"]}
    assert compared[("repair+resample", "repair")] == (1, 1, 0)
    assert compared[("repair+resample", "resample")] == (1, 0, 0)
    assert data["summary"]["repair+resample"]["calls"] == data["summary"]["repair"]["calls"] == 3
    assert "| add | ❌ 1 call | ❌ 3 calls | ✅ 2 calls | ✅ 3 calls |" in ((out / "eval.md").read_text().splitlines())
    assert "eval: 1 task x 4 strategies = 4 runs" in capsys.readouterr().out


def test_repair_and_resample_runs_alone(tasks, tmp_path):
    out = tmp_path / "out"
    with ScriptedOpenAI([stuck_repairs] * 3) as fake:
        args = ("--strategy", "repair+resample", "--out", out, "--model", "m", "--api", "chat")
        assert autofix_eval(tasks, *args, "--base-url", fake.base_url) == 0
    [result] = load(out)["results"]
    assert (result["strategy"], result["passed"], result["calls"]) == ("repair+resample", True, 3)


def test_side_by_side_asks_two_fresh_samples_at_once_then_repairs_and_runs_beside_all(tasks, tmp_path, capsys):
    """`--strategy all,side-by-side`: the four, then side-by-side, whose first round is the shared
    call and a second sample of the first prompt (seed 1), asked at once; the seed-0 sample fails
    and the seed-1 one passes, so it passes in one round of two calls."""
    out = tmp_path / "out"
    with ScriptedOpenAI([stuck_repairs] * 7) as fake:
        args = ("--strategy", "all,side-by-side", "--out", out, "--model", "m", "--api", "chat")
        assert autofix_eval(tasks, *args, "--base-url", fake.base_url) == 0
    assert fake.remaining == 0
    first, *_, last = [r.json for r in fake.requests]
    assert (last["messages"], last["seed"]) == (first["messages"], 1)  # a fresh sample, not a repair
    data = load(out)
    results = {r["strategy"]: (r["passed"], r["calls"]) for r in data["results"]}
    assert results["side-by-side"] == (True, 2)
    compared = {(c["a"], c["b"]): (c["only_a"], c["only_b"]) for c in data["comparisons"]}
    assert compared[("side-by-side", "repair+resample")] == (0, 0)
    assert "eval: 1 task x 5 strategies = 5 runs" in capsys.readouterr().out


def test_a_strategy_name_outside_the_choices_is_one_line(tasks, tmp_path, capsys):
    assert autofix_eval(tasks, "--strategy", "all,sideways", "--out", tmp_path / "out", "--model", "m") == 2
    choices = "one-shot, repair, resample, repair+resample, side-by-side, freeform, all"
    error = f"autofix: error: --strategy: invalid choice: 'sideways' (choose from {choices})\n"
    assert capsys.readouterr().err == error
