"""Eval results: the resumable log of finished pairs, the per-strategy summary, JSON and Markdown.

An output folder holds:
  run.json       what was evaluated (taskset, model, calls per task, shard): a re-run or a
                 merge must match it, so results of different runs never mix;
  results.jsonl  one line per finished (task, strategy) pair, appended as each finishes:
                 a re-run skips these pairs;
  eval.json, eval.md, eval.png   the summary and every result, written at the end.
"""

from __future__ import annotations

import json
import math
import re
import threading
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path

from bot.core.report import write_atomically
from bot.errors import UserError
from bot.text import count

META = "run.json"
LOG = "results.jsonl"
# What makes two runs comparable. The shard is metadata too, but slices of one run differ in it.
IDENTITY = ("taskset", "model", "attempts")
STRATEGIES = ("one-shot", "repair", "resample")  # the loop's, on spec tasks
REPO_STRATEGIES = ("freeform",)  # on a repository with an injected bug (humaneval-repo): bot/eval/freeform.py


@dataclass
class Result:
    """One (task, strategy) pair's outcome."""

    task: str
    strategy: str
    passed: bool
    calls: int  # model calls made
    attempts: int  # candidates validated: calls whose reply held code
    tokens_in: int
    tokens_out: int
    seconds: float  # wall time of the pair
    validation_seconds: float  # of which spent judging candidates in the sandbox
    failure: str | None  # the final attempt's first failing check, or why the run stopped
    error: str = ""  # a failure's evidence: the final attempt's feedback, tracebacks included (bounded)
    code: str = ""  # a failure's final candidate, to read what the model wrote (bounded)
    # A repository task's (REPO_STRATEGIES), where `passed` means resolved: the gate passed and
    # the problem's own hidden check passes on the fixed tree.
    bug: str = ""  # the injected bug: file, line, the change
    shown: bool | None = None  # the broken file was in the outline localization showed the model
    located: bool | None = None  # the broken file was among the files localization chose
    reproduced: bool | None = None  # a reproduction test was accepted
    gate_passed: bool | None = None
    stages: dict[str, dict[str, float]] = field(default_factory=dict)  # by stage: calls, tokens, seconds
    skipped: str = ""  # why the task didn't run (no mutation breaks its check): left out of the rates


def budget(strategy: str, attempts: int) -> int:
    """Model calls a strategy may make per task."""
    return 1 if strategy == "one-shot" else attempts


def natural_key(task_id: str) -> tuple:
    """HumanEval/2 before HumanEval/10."""
    return tuple(int(part) if part.isdigit() else part for part in re.split(r"(\d+)", task_id))


def parse_shard(text: str) -> tuple[int, int]:
    match = re.fullmatch(r"(\d+)/(\d+)", text)
    if not match or not 1 <= int(match[1]) <= int(match[2]):
        raise UserError(f"--shard: expected I/N with 1 <= I <= N, e.g. 2/4, got {text!r}")
    return int(match[1]), int(match[2])


def start_run(out: Path, meta: dict) -> None:
    """Create the folder, or check that the run already in it is the same run."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / META
    if path.exists():
        old = read_meta(out)
        for key in IDENTITY + ("shard",):
            if old.get(key) != meta[key]:
                raise UserError(
                    f"--out: {out} holds another run ({key}: {old.get(key)!r}, now {meta[key]!r}); "
                    "use another --out folder"
                )
        return
    write_atomically(path, json.dumps(meta, indent=2) + "\n")


def read_meta(folder: Path) -> dict:
    try:
        return json.loads((folder / META).read_text(encoding="utf-8"))
    except OSError:
        raise UserError(f"{folder}: not an eval output folder (no {META})") from None
    except ValueError:
        raise UserError(f"{folder / META}: not valid JSON") from None


class Log:
    """Finished pairs, appended one JSON line at a time from the worker threads."""

    def __init__(self, out: Path):
        self.path = out / LOG
        self.lock = threading.Lock()

    def append(self, result: Result) -> None:
        line = json.dumps(asdict(result), ensure_ascii=False) + "\n"
        with self.lock, self.path.open("a", encoding="utf-8") as log:
            log.write(line)


def read_results(folder: Path) -> list[Result]:
    """Every finished pair; a torn last line (the run was killed mid-write) is dropped, as
    that pair simply runs again."""
    path = folder / LOG
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    names = {f.name for f in fields(Result)}
    required = {f.name for f in fields(Result) if f.default is MISSING}  # older logs lack the rest
    results = []
    for number, line in enumerate(lines, 1):
        try:
            data = json.loads(line)
            if not required <= set(data) <= names:
                raise ValueError
            results.append(Result(**data))
        except ValueError:
            if number == len(lines):
                break
            raise UserError(f"{path}:{number}: not a result line; the file is damaged") from None
    return results


def summarize(results: list[Result], strategies: list[str], attempts: int) -> dict[str, dict]:
    """Per strategy. Latency is per (task, strategy) pair; percentiles are nearest-rank, so
    each is one of the measured values. `tokens_per_solved` counts every token spent,
    failures included, divided by the tasks solved: the price of one solution."""
    summary = {}
    for strategy in strategies:
        mine = [r for r in results if r.strategy == strategy]
        solved = [r for r in mine if r.passed]
        tokens = sum(r.tokens_in + r.tokens_out for r in mine)
        calls = budget(strategy, attempts)
        summary[strategy] = {
            "tasks": len(mine),
            "passed": len(solved),
            "pass_rate": ratio(len(solved), len(mine)),
            # index c-1: solved within c calls; None past the strategy's own budget
            "pass_rate_within": [
                ratio(sum(r.calls <= c for r in solved), len(mine)) if c <= calls else None
                for c in range(1, attempts + 1)
            ],
            "calls": sum(r.calls for r in mine),
            "mean_calls_per_solved": ratio(sum(r.calls for r in solved), len(solved)),
            "latency_p50": percentile([r.seconds for r in mine], 50),
            "latency_p95": percentile([r.seconds for r in mine], 95),
            "tokens_in": sum(r.tokens_in for r in mine),
            "tokens_out": sum(r.tokens_out for r in mine),
            "tokens_per_solved": ratio(tokens, len(solved)),
            "seconds": round(sum(r.seconds for r in mine), 3),
            "validation_seconds": round(sum(r.validation_seconds for r in mine), 3),
        }
    return summary


def ratio(part: float, whole: int) -> float | None:
    return part / whole if whole else None


def percentile(values: list[float], p: int) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(1, math.ceil(p / 100 * len(ordered))) - 1]


def ordered(results: list[Result]) -> list[Result]:
    known = STRATEGIES + REPO_STRATEGIES
    return sorted(results, key=lambda r: (natural_key(r.task), known.index(r.strategy)))


def write_reports(out: Path, meta: dict, results: list[Result], strategies: list[str]) -> dict:
    """eval.json, eval.md and eval.png; returns the summary."""
    results = ordered(results)
    summary = summarize(results, strategies, meta["attempts"])
    write_summary(out, meta, results, strategies, summary, markdown(meta, summary, results, strategies))
    from bot.eval.plot import plot  # matplotlib is imported only when a plot is drawn

    plot(out / "eval.png", meta, summary)
    return summary


def write_summary(
    out: Path, meta: dict, results: list[Result], strategies: list[str], summary: dict, text: str
) -> None:
    """eval.json (the run, the summary, every result in order) and eval.md (`text`)."""
    document = {
        **meta,
        "strategies": strategies,
        "tasks": len({r.task for r in results}),
        "summary": summary,
        "results": [asdict(r) for r in results],
    }
    write_atomically(out / "eval.json", json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    write_atomically(out / "eval.md", text)


def markdown(meta: dict, summary: dict, results: list[Result], strategies: list[str]) -> str:
    k = meta["attempts"]
    tasks = len({r.task for r in results})
    lines = [
        f"# autofix eval: {meta['taskset']}",
        "",
        f"Model `{meta['model']}`, {count(tasks, 'task')}, up to {count(k, 'model call')} per task "
        "(one-shot: 1), every candidate validated in the sandbox.",
        "",
        summary_table(summary, k),
        "",
        "Pass rate within c calls: tasks solved by the c-th call. Latency: wall time per task. "
        "Tokens per solved task: all tokens spent, failures included, divided by the tasks solved.",
        "",
        "## Tasks",
        "",
        "| task | " + " | ".join(strategies) + " |",
        "|---|" + "---|" * len(strategies),
    ]
    by_pair = {(r.task, r.strategy): r for r in results}
    for task in dict.fromkeys(r.task for r in results):
        cells = [cell(by_pair.get((task, s))) for s in strategies]
        lines.append(f"| {task} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def summary_table(summary: dict, k: int) -> str:
    within = [f"within {c} call{'s' if c > 1 else ''}" for c in range(1, k + 1)]
    head = [
        "strategy",
        "tasks",
        "passed",
        "pass rate",
        *within,
        "mean calls per solved task",
        "p50 latency",
        "p95 latency",
        "tokens in / out",
        "tokens per solved task",
    ]
    rows = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
    for strategy, s in summary.items():
        rows.append(
            "| "
            + " | ".join(
                [
                    strategy,
                    str(s["tasks"]),
                    str(s["passed"]),
                    percent(s["pass_rate"]),
                    *(percent(rate) for rate in s["pass_rate_within"]),
                    number(s["mean_calls_per_solved"], 2),
                    seconds(s["latency_p50"]),
                    seconds(s["latency_p95"]),
                    f"{s['tokens_in']} / {s['tokens_out']}",
                    number(s["tokens_per_solved"], 0),
                ]
            )
            + " |"
        )
    return "\n".join(rows)


def cell(result: Result | None) -> str:
    if result is None:
        return "—"
    plural = "s" if result.calls > 1 else ""
    return f"pass ({result.calls} call{plural})" if result.passed else f"fail ({result.calls} call{plural})"


def percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}%"


def number(value: float | None, digits: int) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f} s"
