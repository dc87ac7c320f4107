"""The shipped repair set (examples/repair/): 34 small programs, each with one wrong line and its
own pytest file. Every task's tests fail on the file as shipped and pass with the one line fixed,
and the shipped files are left as they were: a model's score on the set is a score at repairing,
not at writing from nothing.

The whole set is judged in two real sandboxed pytest runs over one scratch folder of every
target and test file, one with the targets as shipped and one with every line fixed: judged task
by task (a baseline and two checks each), the set cost about 8 s a task."""

import os
import sys
from pathlib import Path
from typing import NamedTuple

import pytest
from repair_sets import judged_together, sandbox, specs_of  # noqa: F401 - sandbox: a fixture

REPAIR = Path(__file__).resolve().parents[2] / "examples" / "repair"


class Fix(NamedTuple):
    wrong: str  # the wrong line, once in the target
    right: str  # what it should be
    failing: tuple[str, ...]  # the task's tests that fail on the target as shipped


FIXES = {
    "anagrams": Fix(
        '    letters = [c for c in word if c != " "]\n',
        '    letters = [c for c in word.lower() if c != " "]\n',
        ("test_case_and_spaces_are_ignored", "test_groups"),
    ),
    "backoff": Fix(
        "    return max(base * 2**attempt, cap)\n",
        "    return min(base * 2**attempt, cap)\n",
        ("test_doubles", "test_capped", "test_total"),
    ),
    "bank": Fix(
        "    move(target, source, cents)\n",
        "    move(source, target, cents)\n",
        ("test_transfer_moves_money_from_source_to_target", "test_transfer_beyond_the_balance_changes_nothing"),
    ),
    "binary_search": Fix("    while lo < hi:\n", "    while lo <= hi:\n", ("test_finds_every_item", "test_single")),
    "caesar": Fix(
        "    return encrypt(text, shift)\n",
        "    return encrypt(text, -shift)\n",
        ("test_decrypt_undoes_encrypt", "test_crack"),
    ),
    "calendar_days": Fix(
        "    return year % 4 == 0 and year % 100 != 0\n",
        "    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)\n",
        ("test_leap_years", "test_february", "test_day_of_year", "test_days_in_year"),
    ),
    "cart": Fix(
        "    return int(cents * (100 - percent) / 100)\n",
        "    return round(cents * (100 - percent) / 100)\n",
        ("test_discount_rounds_to_the_nearest_cent", "test_checkout"),
    ),
    "chunks": Fix(
        "items[i : i + size - 1]", "items[i : i + size]", ("test_even", "test_uneven", "test_counts_and_padding")
    ),
    "config": Fix(
        '    key, value = line.split("=")\n',
        '    key, value = line.split("=", 1)\n',
        ("test_values_may_hold_equals_signs",),
    ),
    "duration": Fix("    minutes = total // 60\n", "    minutes = total // 60 % 60\n", ("test_hours", "test_humanize")),
    "flatten": Fix(
        "            flat.append(item)\n        return flat\n",
        "            flat.append(item)\n",
        ("test_flat_list_is_unchanged", "test_nested", "test_depth_and_leaves"),
    ),
    "grades": Fix(
        "        if score > lowest:\n",
        "        if score >= lowest:\n",
        ("test_cutoffs_are_inclusive", "test_report_and_distribution"),
    ),
    "histogram": Fix(
        "    return index\n",
        "    return min(index, bins - 1)\n",
        ("test_bin_index", "test_histogram_counts_every_value"),
    ),
    "intervals": Fix(
        "            merged[-1][1] = end\n",
        "            merged[-1][1] = max(merged[-1][1], end)\n",
        ("test_a_range_inside_another", "test_covered_and_gaps"),
    ),
    "inventory": Fix(
        "        return self.stock.get(item, 1)\n",
        "        return self.stock.get(item, 0)\n",
        ("test_unknown_item_has_none", "test_add_and_count", "test_remove", "test_remove_more_than_stocked"),
    ),
    "lru": Fix(
        "            return default\n        return self.entries[key]\n",
        "            return default\n        self.entries.move_to_end(key)\n        return self.entries[key]\n",
        ("test_reading_an_entry_keeps_it",),
    ),
    "luhn": Fix(
        "    for d in digits[-1::-2]:\n", "    for d in digits[-2::-2]:\n", ("test_valid_numbers", "test_check_digit")
    ),
    "matrix": Fix("a[i][k] * b[k][i]", "a[i][k] * b[k][j]", ("test_identity_leaves_a_matrix_alone", "test_product")),
    "median": Fix(
        "        return ordered[middle]\n    return ordered[middle]\n",
        "        return ordered[middle]\n    return (ordered[middle - 1] + ordered[middle]) / 2\n",
        ("test_even",),
    ),
    "moving_average": Fix("range(len(values) - n)]", "range(len(values) - n + 1)]", ("test_windows", "test_whole")),
    "pagination": Fix(
        "    start = number * per_page\n",
        "    start = (number - 1) * per_page\n",
        ("test_first_page", "test_last_page", "test_describe"),
    ),
    "palindromes": Fix("if c.isalpha())", "if c.isalnum())", ("test_digits_count",)),
    "query": Fix(
        'def parse_query(query, separator=";"):',
        'def parse_query(query, separator="&"):',
        ("test_parse", "test_escapes_and_bare_names", "test_first", "test_round_trip"),
    ),
    "records": Fix("    best = 0\n", '    best = float("-inf")\n', ("test_below_zero", "test_summary")),
    "rle": Fix(
        "    return runs\n",
        "    if current is not None:\n        runs.append((current, count))\n    return runs\n",
        ("test_runs", "test_one"),
    ),
    "roman": Fix(
        '    (5, "V"),\n    (1, "I"),\n', '    (5, "V"),\n    (4, "IV"),\n    (1, "I"),\n', ("test_small", "test_large")
    ),
    "slugs": Fix('.lstrip("-")', '.strip("-")', ("test_no_hyphens_at_the_ends", "test_unique")),
    "tax": Fix(
        "        owed += (income - lower) * rate\n",
        "        owed += taxed * rate\n",
        ("test_income_across_brackets", "test_rates"),
    ),
    "temperature": Fix(
        "    return (fahrenheit - 32) * 9 / 5\n",
        "    return (fahrenheit - 32) * 5 / 9\n",
        ("test_fahrenheit_to_celsius", "test_convert"),
    ),
    "tictactoe": Fix(
        '    return [[" "] * SIZE] * SIZE\n',
        '    return [[" "] * SIZE for _ in range(SIZE)]\n',
        ("test_a_move_fills_one_cell", "test_winner", "test_no_winner_yet"),
    ),
    "variance": Fix(
        "    return squares / len(values)\n",
        "    return squares / (len(values) - 1)\n",
        ("test_sample_variance", "test_stdev"),
    ),
    "versions": Fix(
        "    numbers = tuple(parts)\n",
        "    numbers = tuple(int(part) for part in parts)\n",
        ("test_parse", "test_compare", "test_newest_and_minimum"),
    ),
    "words": Fix('split(" ")', "split()", ("test_whitespace", "test_empty")),
    "wrap": Fix(
        "        elif len(line) + len(word) <= width:\n",
        "        elif len(line) + 1 + len(word) <= width:\n",
        ("test_lines_never_exceed_the_width", "test_fill_and_indent"),
    ),
}


@pytest.fixture(autouse=True)
def activated(monkeypatch):
    """The specs' `python` is the one with pytest, as in an activated virtual environment."""
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")


def test_the_repair_set_is_programs_with_their_own_pytest_files():
    for name, spec in specs_of(REPAIR, FIXES).items():
        assert spec.target == f"{name}.py", name
        assert spec.tests.command == f"python -m pytest -q -p no:cacheprovider test_{name}.py", name
        assert (REPAIR / f"test_{name}.py").is_file()
    assert len(FIXES) == 34


def test_every_task_fails_as_shipped_and_passes_with_its_line_fixed(tmp_path, sandbox):
    loaded = specs_of(REPAIR, FIXES)
    shipped, fixed = judged_together(
        [(loaded[name], fix.wrong, fix.right) for name, fix in FIXES.items()], tmp_path, sandbox
    )
    assert shipped == {f"test_{name}::{test}" for name, fix in FIXES.items() for test in fix.failing}
    assert fixed == set()
