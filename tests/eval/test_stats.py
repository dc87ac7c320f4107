"""The eval's uncertainty against figures worked out by hand, and a summary built from a fixed
outcome table carrying exactly those figures, in the terminal's summary and eval.json."""

from __future__ import annotations

import json
import math

import pytest

from bot.eval.results import Result, analyze
from bot.eval.stats import mcnemar_p, paired_interval, pass_at_k, wilson
from bot.eval.writeup import summary_text, write_reports

Z = 1.959964  # the normal quantile of a two-sided 95% interval


def test_wilson_intervals_by_hand():
    # 7/10: (0.7 + z²/20) / (1 + z²/10) = 0.64450 ± z / (1 + z²/10) · √(0.21/10 + z²/400) = 0.24772
    assert wilson(7, 10) == pytest.approx((0.3968, 0.8922), abs=5e-5)
    # 2/10: 0.28326 ± 0.22658
    assert wilson(2, 10) == pytest.approx((0.0567, 0.5098), abs=5e-5)
    # 0/5 and 5/5 stay inside [0, 1]: 0 … z² / (5 + z²) = 3.8415 / 8.8415
    assert wilson(0, 5) == pytest.approx((0.0, 0.4345), abs=5e-5)
    assert wilson(5, 5) == pytest.approx((0.5655, 1.0), abs=5e-5)
    assert wilson(0, 0) is None


def test_mcnemar_exact_p_by_hand():
    # 7 discordant tasks split 6 to 1: 2 · (C(7,0) + C(7,1)) / 2^7 = 2 · 8 / 128
    assert mcnemar_p(6, 1) == 0.125
    assert mcnemar_p(1, 6) == 0.125
    # 12 split 10 to 2: 2 · (1 + 12 + 66) / 4096
    assert mcnemar_p(10, 2) == 158 / 4096
    assert mcnemar_p(0, 0) == 1.0 and mcnemar_p(1, 0) == 1.0 and mcnemar_p(3, 3) == 1.0


def binomial_at_least(k: int, n: int, share: float) -> float:
    return sum(math.comb(n, i) * share**i * (1 - share) ** (n - i) for i in range(k, n + 1))


def test_the_paired_interval_is_the_exact_binomial_one_in_tasks():
    low, high = paired_interval(6, 1)
    # In tasks: 7 · (2π − 1), where π is the share of the 7 discordant tasks that went to a.
    share_low, share_high = (low / 7 + 1) / 2, (high / 7 + 1) / 2
    # Clopper–Pearson: P(X ≥ 6 | π_low) = 0.025 = P(X ≤ 6 | π_high), X ~ Binomial(7, π)
    assert binomial_at_least(6, 7, share_low) == pytest.approx(0.025, abs=1e-9)
    assert 1 - binomial_at_least(7, 7, share_high) == pytest.approx(0.025, abs=1e-9)
    assert (low, high) == pytest.approx((-1.1021, 6.9495), abs=5e-5)
    assert paired_interval(0, 0) == (0.0, 0.0)
    # 1 to 0: π_low = 0.025 (0.025^1), π_high = 1: 1 · (2 · 0.025 − 1) … 1
    assert paired_interval(1, 0) == pytest.approx((-0.95, 1.0))
    # The interval and the test agree: 0 falls outside exactly when p < 0.05.
    for only_a in range(15):
        for only_b in range(15):
            low, high = paired_interval(only_a, only_b)
            assert (low > 0 or high < 0) == (mcnemar_p(only_a, only_b) < 0.05), (only_a, only_b)


def test_pass_at_k_by_hand():
    # n = 5 samples, c = 2 passed: pass@1 = c/n; pass@2 = 1 − C(3,2)/C(5,2) = 1 − 3/10
    assert pass_at_k(5, 2, 1) == pytest.approx(0.4)
    assert pass_at_k(5, 2, 2) == pytest.approx(0.7)
    assert pass_at_k(5, 2, 4) == 1.0  # only 3 failures: any 4 samples hold a pass
    assert pass_at_k(3, 0, 2) == 0.0


def run(task: str, strategy: str, passed: bool, calls: int) -> Result:
    return Result(task, strategy, passed, calls, calls, 10, 5, 1.0, 0.5, None if passed else "x")


# 10 tasks: both solve t0; repair alone t1-t6; resample alone t7; neither t8, t9.
# repair 7/10 (all on the second call), resample 2/10 (on the third).
OUTCOMES = [
    result
    for i in range(10)
    for result in (run(f"t{i}", "repair", i < 7, 2 if i < 7 else 3), run(f"t{i}", "resample", i in (0, 7), 3))
]
META = {"taskset": "fixed", "model": "m", "attempts": 3, "temperature": None, "seed": 0, "shard": "1/1"}


def test_a_fixed_outcome_table_gives_the_hand_figures_everywhere(tmp_path):
    analysis = write_reports(tmp_path, META, OUTCOMES, ["repair", "resample"])
    text = summary_text(META, analysis)
    lines = text.splitlines()
    assert " ".join(text.split("\n\n")[0].split()) == (
        "Repair solved 5 more tasks than resample (7 against 2 of 10 tasks): p = 0.125 by the exact McNemar test, "
        "not significant at the 5% level."
    )
    # 7/10; 0/10: 0 … z²/(10+z²); 2/10, each rate with its interval, aligned on the right
    assert lines[lines.index("Pass rate within c calls (95% Wilson interval):") + 1 :][:3] == [
        "strategy     within 1 call      within 2 calls      within 3 calls",
        "repair    0.0% (0.0–27.8%)  70.0% (39.7–89.2%)  70.0% (39.7–89.2%)",
        "resample  0.0% (0.0–27.8%)    0.0% (0.0–27.8%)   20.0% (5.7–51.0%)",
    ]
    [row] = [line.split() for line in lines if line.startswith("repair − resample ")]
    assert row == ["repair", "−", "resample", "10", "6", "1", "+5", "−1.1", "…", "+6.9", "0.125"]
    assert not any(line.startswith("|") for line in lines)  # columns, not a Markdown table
    data = json.loads((tmp_path / "eval.json").read_text())
    assert data["samples"] == 1
    assert data["summary"]["repair"]["pass_rate_interval"] == pytest.approx([0.3968, 0.8922], abs=5e-5)
    assert data["summary"]["resample"]["pass_rate_interval"] == pytest.approx([0.0567, 0.5098], abs=5e-5)
    [comparison] = data["comparisons"]
    assert comparison == {
        "a": "repair",
        "b": "resample",
        "tasks": 10,
        "a_passed": 7,
        "b_passed": 2,
        "only_a": 6,
        "only_b": 1,
        "difference": 5,
        "interval": pytest.approx([-1.1021, 6.9495], abs=5e-5),
        "p": 0.125,
    }
    assert data["warnings"] == [] and data["identical_samples"] == {"resample": {"tasks": 0, "of": 0}}


def test_every_pair_of_strategies_is_compared_and_signs_read_as_minus():
    outcomes = [run("t0", "one-shot", False, 1), run("t0", "repair", True, 2), run("t0", "resample", False, 3)]
    lines = summary_text(META, analyze(outcomes, ["one-shot", "repair", "resample"], 3)).splitlines()
    # a − b, tasks, a alone, b alone, the difference, its interval (none without a task one alone solved), p
    assert [line.split() for line in lines if line.startswith(("repair − ", "resample − "))] == [
        ["repair", "−", "one-shot", "1", "1", "0", "+1", "−0.9", "…", "+1.0", "1"],
        ["resample", "−", "one-shot", "1", "0", "0", "0", "—", "1"],
        ["repair", "−", "resample", "1", "1", "0", "+1", "−0.9", "…", "+1.0", "1"],
    ]


def test_identical_resamples_are_counted_and_warned_about():
    same, differ = (
        Result("a", "resample", False, 3, 3, 1, 1, 1.0, 0.5, "x"),
        Result("b", "resample", True, 2, 2, 1, 1, 1.0, 0.5, None),
    )
    same.replies, differ.replies = ["r1", "r1", "r1"], ["r1", "r2"]
    once = Result("c", "resample", True, 1, 1, 1, 1, 1.0, 0.5, None)
    once.replies = ["r1"]
    analysis = analyze([same, differ, once], ["resample"], 3)
    assert analysis["identical_samples"] == {"resample": {"tasks": 1, "of": 2}}
    assert analysis["warnings"] == [
        "resample's samples were one identical reply on 1 of 2 tasks it sampled more than once: at temperature 0, "
        "or from an endpoint that ignores the temperature and the seed, resampling repeats one answer instead of "
        "drawing independent samples"
    ]
