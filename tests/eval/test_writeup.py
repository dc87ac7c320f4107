"""eval.md as GitHub shows it: rendered by cmark-gfm (GitHub's renderer) and read as HTML. It
starts with the result sentence and its p, embeds the plot, splits the figures into short
tables with the numbers right-aligned, and marks each task ✅ or ❌; the terminal gets the same
sentence and tables as aligned columns."""

from __future__ import annotations

import html
import re

import cmarkgfm

from bot.eval.freeform_report import markdown as freeform_markdown
from bot.eval.freeform_report import summarize as freeform_summarize
from bot.eval.freeform_report import summary_text as freeform_text
from bot.eval.results import Result, analyze
from bot.eval.tables import WIDTH
from bot.eval.writeup import markdown, summary_text, write_reports

META = {"taskset": "fixed", "model": "m", "attempts": 3, "temperature": None, "seed": 0, "shard": "1/1"}
STRATEGIES = ["one-shot", "repair", "resample", "repair+resample"]


def run(task: str, strategy: str, passed: bool, calls: int, sample: int = 1) -> Result:
    return Result(task, strategy, passed, calls, calls, 10, 5, 1.0, 0.5, None if passed else "x", sample=sample)


def outcomes(sample: int = 1, lucky: bool = False) -> list[Result]:
    """10 tasks: all solve t0; repair and repair+resample alone t1-t6 (second call); resample alone
    t7 (third call), one-shot too when `lucky`; nobody t8, t9."""
    found = []
    for i in range(10):
        repaired = i < 7
        found += [
            run(f"t{i}", "one-shot", i == 0 or (lucky and i == 7), 1, sample),
            run(f"t{i}", "repair", repaired, 2 if repaired else 3, sample),
            run(f"t{i}", "resample", i in (0, 7), 1 if i == 0 else 3, sample),
            run(f"t{i}", "repair+resample", repaired, 2 if repaired else 3, sample),
        ]
    return found


def rendered(text: str) -> str:
    return cmarkgfm.github_flavored_markdown_to_html(text)


def paragraphs(page: str) -> list[str]:
    return [html.unescape(re.sub(r"<[^>]+>", "", p)) for p in re.findall(r"<p>(.*?)</p>", page, re.S)]


def tables(page: str) -> list[str]:
    return re.findall(r"<table>.*?</table>", page, re.S)


def columns(table: str) -> int:
    return len(re.findall(r"<th[ >]", table))


def test_eval_md_starts_with_the_result_and_its_p_embeds_the_plot_and_marks_each_task(tmp_path):
    write_reports(tmp_path, META, outcomes(), STRATEGIES)
    page = rendered((tmp_path / "eval.md").read_text())
    assert page.startswith("<h1>autofix eval: fixed</h1>\n<p>")
    # Repair against resample, at the same three calls a task: 7 against 2, the 6 and 1 tasks one alone solved.
    assert paragraphs(page)[0] == (
        "Repair solved 5 more tasks than resample (7 against 2 of 10 tasks): p = 0.125 by the exact McNemar test, "
        "not significant at the 5% level."
    )
    assert re.search(r'<img src="eval.png" alt="Tasks solved against model calls per task, [^"]*" />', page)
    assert (tmp_path / "eval.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "`" not in page and "|" not in page  # every code span and every table rendered as such
    summary, *_, tasks = tables(page)
    assert [columns(table) for table in tables(page)] == [5, 4, 5, 4, 7, 5]  # the twelve columns of old, split
    assert (
        '<td>repair</td>\n<td align="right">10</td>\n<td align="right">7</td>\n<td align="right">70.0%</td>' in summary
    )
    assert "<td>t1</td>\n<td>❌ 1 call</td>\n<td>✅ 2 calls</td>\n<td>❌ 3 calls</td>\n<td>✅ 2 calls</td>" in tasks
    # the paired difference in tasks is a whole number
    comparisons = next(table for table in tables(page) if "<th>a − b</th>" in table)
    assert '<td>repair − resample</td>\n<td align="right">10</td>\n<td align="right">6</td>' in comparisons
    assert '<td align="right">+5</td>' in comparisons and "+5.0<" not in comparisons


def test_over_samples_the_sentence_gives_the_mean_difference_and_each_samples_p():
    results = outcomes(1) + outcomes(2, lucky=True)
    analysis = analyze(results, STRATEGIES, 3)
    first = paragraphs(rendered(markdown(META, analysis, results)))[0]
    # repair − resample: +5 in both samples; the tests' p: 6 against 1 alone in each
    assert first == (
        "Over 2 samples, repair solved 5 more tasks than resample on average (sd 0.00, range +5 … +5): "
        "p = 0.125 in every sample by each sample's exact McNemar test, significant at the 5% level in 0 of 2 samples."
    )


def test_the_sentence_with_one_strategy_and_with_the_same_count_solved():
    only = analyze([r for r in outcomes() if r.strategy == "repair"], ["repair"], 3)
    assert paragraphs(rendered(markdown(META, only, [r for r in outcomes() if r.strategy == "repair"])))[0] == (
        "Repair solved 7 of 10 tasks (70.0%, 95% interval 39.7–89.2%)."
    )
    even = [r for r in outcomes() if r.strategy in ("one-shot", "resample") and r.task in ("t0", "t8")]
    analysis = analyze(even, ["one-shot", "resample"], 3)
    assert summary_text(META, analysis).split("\n\n")[0].splitlines() == [
        "Resample and one-shot solved as many tasks (1 of 2 tasks each): p = 1 by the exact",
        "McNemar test, not significant at the 5% level.",
    ]


def test_the_terminal_gets_aligned_columns_and_lines_broken_between_words():
    text = summary_text(META, analyze(outcomes(), STRATEGIES, 3))
    lines = text.splitlines()
    assert not any(line.startswith("|") for line in lines)
    head = lines.index("Pass rate:")
    assert lines[head + 1 : head + 6] == [
        "strategy         tasks  passed  pass rate  95% interval (Wilson)",
        "one-shot            10       1      10.0%              1.8–40.4%",
        "repair              10       7      70.0%             39.7–89.2%",
        "resample            10       2      20.0%              5.7–51.0%",
        "repair+resample     10       7      70.0%             39.7–89.2%",
    ]
    prose = [line for line in lines if "  " not in line]  # not a table's
    assert prose and max(map(len, prose)) <= WIDTH
    assert max(map(len, lines)) <= 90  # the widest table, the comparisons with repair+resample's name


def test_the_repository_set_leads_with_its_resolve_rate_and_keeps_a_pipe_in_its_cell():
    results = [
        Result("HumanEval/0", "freeform", True, 3, 1, 10, 5, 2.0, 1.0, None, bug="p/a.py:3: `|` → `&`", shown=True,
               located=True, reproduced=True, gate_passed=True),
        Result("HumanEval/1", "freeform", False, 3, 1, 10, 5, 2.0, 1.0, "x", bug="p/b.py:4: `0` → `1`", shown=True,
               located=False, reproduced=True, gate_passed=False),
        Result("HumanEval/2", "freeform", False, 0, 0, 0, 0, 2.0, 0.0, "skipped", skipped="no mutation breaks it"),
    ]  # fmt: skip
    summary = freeform_summarize(results, ["freeform"])
    page = rendered(freeform_markdown({"taskset": "humaneval-repo", "model": "m", "attempts": 3}, summary, results))
    sentence = (
        "Freeform resolved 1 of 2 tasks (50.0%): the broken file localized in 1, a reproduction accepted in 2, "
        "the gate passed in 1; 1 skipped, no mutation breaking its check."
    )
    assert paragraphs(page)[0] == sentence
    assert [columns(table) for table in tables(page)] == [7, 4, 4, 8, 9]
    row = (
        "<td>HumanEval/0</td>\n<td>freeform</td>\n<td>p/a.py:3: <code>|</code> → <code>&amp;</code></td>\n"
        '<td align="right">✅</td>'
    )
    assert row in page  # the bug's `|` neither ends its cell nor shows a backslash
    assert "<td>HumanEval/1</td>" in page and '<td align="right">❌</td>' in page
    text = freeform_text(summary)
    assert " ".join(text.split("\n\n")[0].split()) == sentence
    assert "strategy  tasks  skipped   resolved  gate passed  p50 latency  p95 latency" in text.splitlines()
