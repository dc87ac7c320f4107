"""The summary of a repository task set (humaneval-repo), per strategy of REPO_STRATEGIES: how
often each stage did its part, and what each stage cost.

- localization hit rate: the broken file among the files localization chose (and, the ranking's
  share, among those the outline showed the model);
- reproduction validity rate: a reproduction test was accepted (it failed on the broken code);
- gate pass rate, and resolve rate: the gate passed and the problem's hidden check passes;
- tokens and seconds per stage.

Skipped tasks (no mutation breaks their check) are counted, and left out of every rate.
"""

from __future__ import annotations

from pathlib import Path

from bot.eval.freeform import STAGES
from bot.eval.results import Result, ordered, percentile, ratio, write_summary
from bot.eval.tables import Table, number, percent, seconds, verdict, wrapped
from bot.text import count

RATES = (  # a Result's field, the summary's key for the count and for the rate
    ("located", "localized", "localization_hit_rate"),
    ("shown", "shown", "shown_hit_rate"),
    ("reproduced", "reproduced", "reproduction_valid_rate"),
    ("gate_passed", "gate_passed", "gate_pass_rate"),
)


def write_reports(out: Path, meta: dict, results: list[Result], strategies: list[str]) -> dict:
    """eval.json and eval.md; returns the summary."""
    results = ordered(results)
    summary = summarize(results, strategies)
    write_summary(out, meta, results, strategies, summary, markdown(meta, summary, results))
    return summary


def summarize(results: list[Result], strategies: list[str]) -> dict[str, dict]:
    summary: dict[str, dict] = {}
    for strategy in strategies:
        mine = [r for r in results if r.strategy == strategy]
        ran = [r for r in mine if not r.skipped]
        resolved = sum(r.passed for r in ran)
        figures: dict = {"tasks": len(ran), "skipped": len(mine) - len(ran), "resolved": resolved}
        figures["resolve_rate"] = ratio(resolved, len(ran))
        for field, key, rate in RATES:
            hits = sum(bool(getattr(r, field)) for r in ran)
            figures |= {key: hits, rate: ratio(hits, len(ran))}
        tokens_in, tokens_out = sum(r.tokens_in for r in ran), sum(r.tokens_out for r in ran)
        summary[strategy] = figures | {
            "calls": sum(r.calls for r in ran),
            "tokens_in": tokens_in,
            "tokens_out": tokens_out,
            "tokens_per_resolved": ratio(tokens_in + tokens_out, resolved),
            "latency_p50": percentile([r.seconds for r in ran], 50),
            "latency_p95": percentile([r.seconds for r in ran], 95),
            "seconds": round(sum(r.seconds for r in ran), 3),
            "validation_seconds": round(sum(r.validation_seconds for r in ran), 3),
            "stages": {stage: stage_summary([r.stages.get(stage, {}) for r in ran]) for stage in STAGES},
        }
    return summary


def stage_summary(uses: list[dict[str, float]]) -> dict:
    total = {key: sum(use.get(key, 0) for use in uses) for key in ("calls", "tokens_in", "tokens_out", "seconds")}
    tokens = int(total["tokens_in"] + total["tokens_out"])
    return {
        "calls": int(total["calls"]),
        "tokens_in": int(total["tokens_in"]),
        "tokens_out": int(total["tokens_out"]),
        "seconds": round(total["seconds"], 3),
        "seconds_per_task": round(total["seconds"] / len(uses), 3) if uses else None,
        "tokens_per_task": ratio(tokens, len(uses)),
    }


def summary_text(summary: dict) -> str:
    """The terminal's summary: the sentence, then the tables as aligned columns."""
    parts = [wrapped(headline(summary))] + [f"{title}:\n{table.text()}" for title, table in tables(summary)]
    return "\n\n".join(parts)


def headline(summary: dict) -> str:
    """The answer first: how many tasks each strategy resolved, and where the rest stopped."""
    sentences = []
    for strategy, s in summary.items():
        if not s["tasks"]:
            sentences.append(
                f"{title(strategy)} ran no task" + (f" ({s['skipped']} skipped)." if s["skipped"] else ".")
            )
            continue
        skipped = f"; {s['skipped']} skipped, no mutation breaking its check" if s["skipped"] else ""
        sentences.append(
            f"{title(strategy)} resolved {s['resolved']} of {count(s['tasks'], 'task')} "
            f"({percent(s['resolve_rate'])}): the broken file localized in {s['localized']}, a reproduction "
            f"accepted in {s['reproduced']}, the gate passed in {s['gate_passed']}{skipped}."
        )
    return " ".join(sentences) or "No task ran."


def title(strategy: str) -> str:
    return strategy[:1].upper() + strategy[1:]


def tables(summary: dict) -> list[tuple[str, Table]]:
    resolved = [
        [
            strategy,
            str(s["tasks"]),
            str(s["skipped"]),
            share(s["resolved"], s["resolve_rate"]),
            share(s["gate_passed"], s["gate_pass_rate"]),
            seconds(s["latency_p50"]),
            seconds(s["latency_p95"]),
        ]
        for strategy, s in summary.items()
    ]
    stages = [
        [strategy, *(share(s[key], s[rate]) for field, key, rate in RATES if field != "gate_passed")]
        for strategy, s in summary.items()
    ]
    tokens = [
        [strategy, str(s["tokens_in"]), str(s["tokens_out"]), number(s["tokens_per_resolved"], 0)]
        for strategy, s in summary.items()
    ]
    return [
        (
            "Resolved",
            Table(["strategy", "tasks", "skipped", "resolved", "gate passed", "p50 latency", "p95 latency"], resolved),
        ),
        (
            "Stages",
            Table(["strategy", "localization hit (chosen)", "localization hit (shown)", "reproduction valid"], stages),
        ),
        ("Tokens", Table(["strategy", "tokens in", "tokens out", "tokens per resolved task"], tokens)),
    ]


def stage_table(summary: dict) -> Table:
    head = [
        "strategy",
        "stage",
        "model calls",
        "tokens in",
        "tokens out",
        "seconds",
        "seconds per task",
        "tokens per task",
    ]
    rows = [
        [
            strategy,
            stage,
            str(use["calls"]),
            str(use["tokens_in"]),
            str(use["tokens_out"]),
            f"{use['seconds']:.2f}",
            number(use["seconds_per_task"], 2),
            number(use["tokens_per_task"], 0),
        ]
        for strategy, s in summary.items()
        for stage, use in s["stages"].items()
    ]
    return Table(head, rows, left=2)


def share(hits: int, rate: float | None) -> str:
    return f"{hits} ({percent(rate)})"


def markdown(meta: dict, summary: dict, results: list[Result]) -> str:
    tasks = len({r.task for r in results})
    parts = [
        f"# autofix eval: {meta['taskset']}",
        headline(summary),
        f"Model `{meta['model']}`, {count(tasks, 'task')}: each a repository of HumanEval's canonical solutions "
        "with one injected bug and the issue written from one failing example; up to "
        f"{count(meta['attempts'], 'repair call')} per task after localization and reproduction.",
        *(f"## {name}\n\n{table.markdown()}" for name, table in tables(summary)),
        "Resolved: the gate passed (the reproduction passes, nothing that passed breaks) and the problem's own "
        "check, hidden from the pipeline, passes. Localization hit: the broken file among the files chosen "
        "(shown: in the outline the model was shown). Reproduction valid: a test that failed on the broken "
        "code was accepted. Latency: wall time per task. Skipped tasks (no mutation breaks their check) are "
        "left out of every rate.",
        "## Per stage",
        "Stages: setup (the bug chosen in the sandbox, the repository written), baseline (the suite as it is), "
        "localize, reproduce and repair (the pipeline's), hidden (the problem's own check, run when the gate "
        "passed).",
        stage_table(summary).markdown(),
        "## Tasks",
        task_table(results).markdown(),
    ]
    return "\n\n".join(parts) + "\n"


def task_table(results: list[Result]) -> Table:
    rows = []
    for r in results:
        if r.skipped:
            rows.append([r.task, r.strategy, f"skipped: {r.skipped}", "—", "—", "—", "—", "—", f"{r.seconds:.2f}"])
            continue
        marks = [verdict(r.shown), verdict(r.located), verdict(r.reproduced), verdict(r.gate_passed), verdict(r.passed)]
        rows.append([r.task, r.strategy, r.bug, *marks, f"{r.seconds:.2f}"])
    head = ["task", "strategy", "bug", "shown", "chosen", "reproduced", "gate", "resolved", "seconds"]
    return Table(head, rows, left=3)
