"""What an eval of spec tasks says: one sentence with the comparison that matters and its p, then
the figures in short tables, as eval.md (the plot embedded, one row per task) and as the
terminal's summary (the same sentence and tables, aligned as columns)."""

from __future__ import annotations

from pathlib import Path

from bot.eval.results import Result, analyze, ordered, write_summary
from bot.eval.tables import (
    Table,
    number,
    p_value,
    percent,
    seconds,
    signed,
    span,
    tasks_difference,
    verdict,
    wrapped,
)
from bot.text import count

# The comparison the first sentence gives, the first of these that ran: repair against
# resampling is the question the eval asks (the same calls, feedback or fresh samples); then
# either against one call.
HEADLINE = (
    ("repair", "resample"),
    ("repair", "one-shot"),
    ("resample", "one-shot"),
    ("repair+resample", "resample"),
    ("repair+resample", "repair"),
)
LEVEL = 0.05  # the significance level the sentence names

Section = tuple[str, list[str | Table]]  # a heading and its paragraphs and tables


def write_reports(out: Path, meta: dict, results: list[Result], strategies: list[str]) -> dict:
    """eval.json, eval.md and eval.png; returns the analysis."""
    results = ordered(results)
    analysis = analyze(results, strategies, meta["attempts"])
    write_summary(out, meta, results, strategies, analysis["summary"], markdown(meta, analysis, results), analysis)
    from bot.eval.plot import plot  # matplotlib is imported only when a plot is drawn

    plot(out / "eval.png", meta, analysis)
    return analysis


def markdown(meta: dict, analysis: dict, results: list[Result]) -> str:
    k, samples = meta["attempts"], analysis["samples"]
    tasks = len({r.task for r in results})
    repeats = f", each evaluated {samples} times (--samples)" if samples > 1 else ""
    bars = "95% Wilson intervals" if samples == 1 else f"the range over {samples} samples"
    parts = [
        f"# autofix eval: {meta['taskset']}",
        headline(analysis),
        *(f"**Warning:** {note}." for note in analysis["warnings"]),
        f"Model `{meta['model']}`, {count(tasks, 'task')}{repeats}, up to {count(k, 'model call')} per task "
        "(one-shot: 1), every candidate validated in the sandbox.",
        f"![Tasks solved against model calls per task, one line per strategy, with {bars}](eval.png)",
    ]
    parts += [as_markdown(section, "##") for section in sections(meta, analysis)]
    parts.append(
        "Pass rate within c calls: tasks solved by the c-th call. Latency: wall time per task. "
        "Tokens per solved task: all tokens spent, failures included, divided by the tasks solved. "
        "Paired: a task's first model call is made once and shared by the strategies, which differ only "
        "in what follows it; the shared call counts in each strategy's calls, tokens and time."
    )
    if samples > 1:
        for sample in analysis["by_sample"]:
            parts.append(f"## Sample {sample['sample']}")
            parts += [as_markdown(section, "###") for section in sample_sections(sample, k)]
    parts += ["## Tasks", task_table(results, analysis["samples"]).markdown()]
    return "\n\n".join(parts) + "\n"


def summary_text(meta: dict, analysis: dict) -> str:
    """The terminal's summary: the sentence, the tables as aligned columns, the notes, each
    paragraph wrapped between words (a terminal would cut a word at its edge)."""
    parts = [wrapped(headline(analysis)), *(wrapped(f"Warning: {note}.") for note in analysis["warnings"])]
    for title, blocks in sections(meta, analysis):
        shown = [block.text() if isinstance(block, Table) else wrapped(block) for block in blocks]
        parts.append("\n".join([f"{title}:", *shown]))
    return "\n\n".join(parts)


def as_markdown(section: Section, level: str) -> str:
    title, blocks = section
    return "\n\n".join(
        [f"{level} {title}", *(block.markdown() if isinstance(block, Table) else block for block in blocks)]
    )


def sections(meta: dict, analysis: dict) -> list[Section]:
    k, samples = meta["attempts"], analysis["samples"]
    if samples == 1:
        found = sample_sections(analysis, k)
    else:
        summary = analysis["summary"]
        found = [
            ("Pass rate over the samples", [spread_table(summary)]),
            ("Pass rate within c calls, mean (sd) over the samples", [spread_within_table(summary, k)]),
            ("Calls and time", [time_table(summary)]),
            ("Tokens", [token_table(summary)]),
        ]
        if analysis["comparisons"]:
            found.append(("Paired comparisons, over the samples", spread_comparisons(analysis)))
    notes = [strength_text(analysis["summary"]), sampling_text(meta, samples)]
    if samples > 1 and analysis["pass_at_k"]:
        notes.insert(0, pass_at_k_text(analysis["pass_at_k"], samples))
    return [*found, ("Notes", [note for note in notes if note])]


def sample_sections(sample: dict, k: int) -> list[Section]:
    """One sample's figures: each strategy's pass rates with their intervals, its cost, the comparisons."""
    summary = sample["summary"]
    found: list[Section] = [
        ("Pass rate", [pass_table(summary)]),
        ("Pass rate within c calls (95% Wilson interval)", [within_table(summary, k)]),
        ("Calls and time", [time_table(summary)]),
        ("Tokens", [token_table(summary)]),
    ]
    if sample["comparisons"]:
        found.append(("Paired comparisons", comparisons(sample["comparisons"])))
    return found


# -- the sentence ---------------------------------------------------------------------------


def headline(analysis: dict) -> str:
    """The answer first: the comparison that matters, with its p; with one strategy, its pass rate."""
    pairs = {(c["a"], c["b"]): c for c in analysis["comparisons"]}
    main = next((pairs[pair] for pair in HEADLINE if pair in pairs), None)
    if analysis["samples"] == 1:
        return compared(main) if main else solo(analysis["summary"])
    return compared_over_samples(main, analysis) if main else solo_over_samples(analysis["summary"], analysis)


def compared(c: dict) -> str:
    p = c["p"]
    judged = f"p = {p_value(p)} by the exact McNemar test, {significance(p < LEVEL)}"
    of = count(c["tasks"], "task")
    if not c["difference"]:
        return f"{title(c['a'])} and {c['b']} solved as many tasks ({c['a_passed']} of {of} each): {judged}."
    more = "more" if c["difference"] > 0 else "fewer"
    return (
        f"{title(c['a'])} solved {count(abs(c['difference']), f'{more} task', f'{more} tasks')} than {c['b']} "
        f"({c['a_passed']} against {c['b_passed']} of {of}): {judged}."
    )


def compared_over_samples(c: dict, analysis: dict) -> str:
    d, samples, ps = c["difference"], analysis["samples"], sample_ps(c, analysis)
    said = (
        f"p = {p_value(ps[0])} in every sample"
        if min(ps) == max(ps)
        else f"p from {p_value(min(ps))} to {p_value(max(ps))}"
    )
    below = sum(p < LEVEL for p in ps)
    judged = (
        f"{said} by each sample's exact McNemar test, {significance(True)} in {below} of {count(len(ps), 'sample')}"
    )
    spread = f"sd {number(d['sd'], 2)}, range {tasks_difference(d['min'])} … {tasks_difference(d['max'])}"
    if not d["mean"]:
        return f"Over {samples} samples, {c['a']} and {c['b']} solved as many tasks on average ({spread}): {judged}."
    more = "more" if d["mean"] > 0 else "fewer"
    solved = f"{tasks_difference(abs(d['mean']), sign=False)} {more} tasks"
    return f"Over {samples} samples, {c['a']} solved {solved} than {c['b']} on average ({spread}): {judged}."


def sample_ps(c: dict, analysis: dict) -> list[float]:
    """The pair's p in each sample."""
    pair = (c["a"], c["b"])
    return [s["p"] for sample in analysis["by_sample"] for s in sample["comparisons"] if (s["a"], s["b"]) == pair]


def solo(summary: dict) -> str:
    for strategy, s in summary.items():
        if s["tasks"]:
            return (
                f"{title(strategy)} solved {s['passed']} of {count(s['tasks'], 'task')} ({percent(s['pass_rate'])}, "
                f"95% interval {span(s['pass_rate_interval'])})."
            )
    return "No task ran."


def solo_over_samples(summary: dict, analysis: dict) -> str:
    for strategy, s in summary.items():
        if rate := s["pass_rate_spread"]:
            return (
                f"Over {analysis['samples']} samples, {strategy} solved {percent(rate['mean'])} of "
                f"{count(s['tasks'], 'task')} on average (sd {sd_points(rate)}, "
                f"range {span([rate['min'], rate['max']])})."
            )
    return "No task ran."


def significance(below: bool) -> str:
    return f"{'' if below else 'not '}significant at the {LEVEL:.0%} level"


def title(strategy: str) -> str:
    return strategy[:1].upper() + strategy[1:]


# -- the tables -----------------------------------------------------------------------------


def within_heads(k: int) -> list[str]:
    return [f"within {count(c, 'call')}" for c in range(1, k + 1)]


def pass_table(summary: dict) -> Table:
    rows = [
        [strategy, str(s["tasks"]), str(s["passed"]), percent(s["pass_rate"]), span(s["pass_rate_interval"])]
        for strategy, s in summary.items()
    ]
    return Table(["strategy", "tasks", "passed", "pass rate", "95% interval (Wilson)"], rows)


def within_table(summary: dict, k: int) -> Table:
    rows = [
        [
            strategy,
            *(
                rated(rate, found)
                for rate, found in zip(s["pass_rate_within"], s["pass_rate_within_interval"], strict=True)
            ),
        ]
        for strategy, s in summary.items()
    ]
    return Table(["strategy", *within_heads(k)], rows)


def rated(rate: float | None, bounds: list[float] | None) -> str:
    return "—" if rate is None else f"{percent(rate)} ({span(bounds)})"


def time_table(summary: dict) -> Table:
    rows = [
        [
            strategy,
            str(s["calls"]),
            number(s["mean_calls_per_solved"], 2),
            seconds(s["latency_p50"]),
            seconds(s["latency_p95"]),
        ]
        for strategy, s in summary.items()
    ]
    return Table(["strategy", "model calls", "calls per solved task", "p50 latency", "p95 latency"], rows)


def token_table(summary: dict) -> Table:
    rows = [
        [strategy, str(s["tokens_in"]), str(s["tokens_out"]), number(s["tokens_per_solved"], 0)]
        for strategy, s in summary.items()
    ]
    return Table(["strategy", "tokens in", "tokens out", "tokens per solved task"], rows)


def comparisons(found: list[dict]) -> list[str | Table]:
    rows = [
        [
            f"{c['a']} − {c['b']}",
            str(c["tasks"]),
            str(c["only_a"]),
            str(c["only_b"]),
            signed(c["difference"]),
            # No task that only one of them solved: nothing to estimate, and 0 … 0 would claim certainty.
            f"{signed(c['interval'][0], 1)} … {signed(c['interval'][1], 1)}" if c["only_a"] + c["only_b"] else "—",
            p_value(c["p"]),
        ]
        for c in found
    ]
    return [
        "Over the tasks both ran: a alone and b alone, the tasks one of the two solved and the other didn't; "
        "p, the exact McNemar test on them; the 95% interval of the difference, the exact binomial one on the "
        "same tasks (— where no task went to one alone).",
        Table(["a − b", "tasks", "a alone", "b alone", "difference", "95% interval", "p"], rows),
    ]


def spread_table(summary: dict) -> Table:
    """With several samples: each strategy's pass rate as its mean across them, its standard deviation and range."""
    rows = [
        [
            strategy,
            str(s["tasks"]),
            str(s["runs"]),
            percent(None if s["pass_rate_spread"] is None else s["pass_rate_spread"]["mean"]),
            sd_points(s["pass_rate_spread"]),
            "—"
            if s["pass_rate_spread"] is None
            else span([s["pass_rate_spread"]["min"], s["pass_rate_spread"]["max"]]),
        ]
        for strategy, s in summary.items()
    ]
    return Table(["strategy", "tasks", "runs", "pass rate (mean)", "sd (points)", "range"], rows)


def spread_within_table(summary: dict, k: int) -> Table:
    rows = [
        [
            strategy,
            *(
                "—" if rate is None else f"{percent(rate['mean'])} (sd {sd_points(rate)})"
                for rate in s["pass_rate_within_spread"]
            ),
        ]
        for strategy, s in summary.items()
    ]
    return Table(["strategy", *within_heads(k)], rows)


def sd_points(figures: dict | None) -> str:
    """A rate's standard deviation in percentage points."""
    return "—" if figures is None else number(None if figures["sd"] is None else 100 * figures["sd"], 1)


def spread_comparisons(analysis: dict) -> list[str | Table]:
    rows = []
    for c in analysis["comparisons"]:
        d, ps = c["difference"], sample_ps(c, analysis)
        rows.append(
            [
                f"{c['a']} − {c['b']}",
                tasks_difference(d["mean"]),
                number(d["sd"], 2),
                f"{tasks_difference(d['min'])} … {tasks_difference(d['max'])}",
                p_value(ps[0]) if min(ps) == max(ps) else f"{p_value(min(ps))} … {p_value(max(ps))}",
            ]
        )
    return [
        f"The difference in tasks solved, its mean over the {analysis['samples']} samples, standard deviation "
        "and range; p, each sample's exact McNemar test (its own section below).",
        Table(["a − b", "difference (mean)", "sd", "range", "p"], rows),
    ]


def task_table(results: list[Result], samples: int) -> Table:
    strategies = list(dict.fromkeys(r.strategy for r in results))
    by_run = {(r.sample, r.task, r.strategy): r for r in results}
    rows = [
        [task, *([str(sample)] if samples > 1 else []), *(outcome(by_run.get((sample, task, s))) for s in strategies)]
        for sample, task in dict.fromkeys((r.sample, r.task) for r in results)
    ]
    head = ["task", *(["sample"] if samples > 1 else []), *strategies]
    return Table(head, rows, left=len(head))  # words and marks, no figures to line up


def outcome(result: Result | None) -> str:
    """✅ 2 calls: solved on the second; ❌ 3 calls: never, in three."""
    return "—" if result is None else f"{verdict(result.passed)} {count(result.calls, 'call')}"


# -- the notes ------------------------------------------------------------------------------


def strength_text(summary: dict) -> str:
    """The mean test strength of each strategy's passes, when --strength measured any."""
    if not any(s["strength_measured"] for s in summary.values()):
        return ""
    figures = "; ".join(
        f"{strategy} {number(s['mean_strength'], 2)} over {count(s['strength_measured'], 'pass', 'passes')}"
        if s["strength_measured"]
        else f"{strategy} —"
        for strategy, s in summary.items()
    )
    return (
        "Test strength of the passing solutions (--strength: each pass's lines mutated, the task's own "
        f"checks judging the mutants; the mean share killed): {figures}."
    )


def pass_at_k_text(figures: list[dict], samples: int) -> str:
    shown = [
        f"pass@{f['k']} {percent(f['estimate'])}" + (f" (95% CI {span(f['interval'])})" if f["interval"] else "")
        for f in figures
    ]
    return (
        f"pass@k (Chen et al. 2021's unbiased estimator) from each task's {samples} first calls, one per "
        f"sample: {', '.join(shown)}."
    )


def sampling_text(meta: dict, samples: int) -> str:
    temperature = meta.get("temperature")
    said = "the endpoint's default temperature (none sent)" if temperature is None else f"temperature {temperature:g}"
    seed = meta.get("seed")
    if seed is None:
        seeds = "no seed sent"
    elif samples == 1:
        seeds = f"a task's n-th call sends seed {seed} + n − 1"
    else:
        seeds = f"a task's n-th call in sample i sends seed {seed} + {meta['attempts']} × (i − 1) + n − 1"
    where = "" if seed is None else " where the API takes one (Chat Completions, llama.cpp; not the Responses API)"
    return f"Sampling: {said}; {seeds}{where}."
