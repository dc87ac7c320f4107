"""What test strength adds to a passing attempt of the unique_items example on the bwrap tier: the
attempt's own judging (the candidate validated twice, the loop's confirmation) against the mutants
judged after it, for the quick start's repaired code (3 mutants) and for a longer version of it
that makes 26 mutants, of which the default strength_budget judges 20.

Every figure is a median of RUNS rounds, the actions interleaved within each round so that load
from elsewhere on the machine falls on every figure alike.

Run with `make bench-strength`. Not a test: the figures depend on the machine.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from functools import partial
from pathlib import Path

from validate_tiers import medians  # benchmarks/, the script's own folder

from bot import spec as specs
from bot.judge.strength import measure
from bot.judge.validate import Validator, python_paths
from bot.sandbox.tiers import open_sandbox

ROOT = Path(__file__).resolve().parent.parent
RUNS = 7
QUICK_START = (
    "def unique_items(items):\n    seen = set()\n    result = []\n    for item in items:\n"
    "        if item not in seen:\n            seen.add(item)\n            result.append(item)\n    return result\n"
)
LONGER = (
    "def unique_items(items):\n"
    "    if items is None or len(items) == 0:\n"
    "        return []\n"
    "    result = []\n"
    "    for index in range(0, len(items)):\n"
    "        item = items[index]\n"
    "        if item not in items[0:index] and item not in result:\n"
    "            result.append(item)\n"
    "    if len(result) > 1 and result[0] == result[-1]:\n"
    '        raise ValueError("duplicate kept")\n'
    "    return result\n"
)


def judge_twice(check: Callable[[str], object], code: str) -> None:
    """The loop's judging of a pass: the candidate, then its confirmation in a fresh copy."""
    check(code)
    check(code)


def main() -> None:
    sandbox = open_sandbox("bwrap", readable=python_paths())
    with tempfile.TemporaryDirectory() as folder:
        spec = specs.load(ROOT / "examples" / "unique_items.yml", Path(folder))
        validator = Validator(spec, sandbox)
        actions: dict[str, Callable[[], object]] = {}
        for name, code in (("quick start's code", QUICK_START), ("longer code", LONGER)):
            assert validator.check(code).passed, name
            actions[f"{name}: the attempt's 2 validations"] = partial(judge_twice, validator.check, code)
            actions[f"{name}: strength"] = partial(measure, validator, code, spec.target, 20, 120)
        figures = medians(actions, RUNS)
        print(f"test strength on {sandbox.describe()}, {len(os.sched_getaffinity(0))} cores (median of {RUNS})")
        for name, seconds in figures.items():
            print(f"  {name:<44} {seconds:6.3f} s")
        for code in (QUICK_START, LONGER):
            strength = measure(validator, code, spec.target, 20, 120)
            print(f"  {strength.headline()}; {strength.mutations} mutations, {strength.equivalent} equivalent")


if __name__ == "__main__":
    main()
