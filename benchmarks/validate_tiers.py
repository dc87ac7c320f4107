"""Time to validate one candidate (the four unique_items checks) on each sandbox tier,
against a bare `python -I file.py` run of the same code and checks. Prints medians and ratios.

Run with `make bench`. Not a test: the figures depend on the machine.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bot import spec as specs
from bot.sandbox import open_sandbox
from bot.validate import Validator, python_paths

ROOT = Path(__file__).resolve().parent.parent
RUNS = 25
CODE = "def unique_items(items):\n    return list(dict.fromkeys(items))\n"


def median_seconds(action, runs: int = RUNS) -> float:
    action()  # warm the page cache and imports once
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        action()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        spec = specs.load(ROOT / "examples" / "unique_items.yml", work)
        bare_file = work / "bare.py"
        bare_file.write_text(CODE + "\n" + spec.tests.code)

        def bare() -> None:
            subprocess.run([sys.executable, "-I", str(bare_file)], check=True)

        baseline = median_seconds(bare)
        print(f"bare python -I file.py      {baseline * 1000:7.1f} ms  1.00x  (median of {RUNS})")
        for tier in ("none", "process", "bwrap"):
            validator = Validator(spec, open_sandbox(tier, readable=python_paths()))
            assert validator.check(CODE).passed, tier
            seconds = median_seconds(lambda: validator.check(CODE))
            print(f"validate on tier {tier:<10} {seconds * 1000:7.1f} ms  {seconds / baseline:4.2f}x")


if __name__ == "__main__":
    import warnings

    warnings.simplefilter("ignore")  # the `none` tier warns by design
    main()
