"""Time to validate one candidate (the four unique_items checks) on each sandbox tier,
against a bare `python -I file.py` run of the same code and checks, and the raw cost of
`sandbox.run(["/bin/true"])` on each tier against a bare subprocess of it.

Every figure is a median of RUNS runs.  The runs are interleaved, one of each action per
round, so that load from elsewhere on the machine falls on every figure alike, and each
ratio is against the bare baseline measured in the same rounds.

Run with `make bench`. Not a test: the figures depend on the machine.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path

from bot import spec as specs
from bot.judge.validate import Validator, python_paths
from bot.sandbox.tiers import Limits, Sandbox, allowed_environ, open_sandbox

ROOT = Path(__file__).resolve().parent.parent
RUNS = 25
TIERS = ("none", "process", "bwrap")
CODE = "def unique_items(items):\n    return list(dict.fromkeys(items))\n"


def medians(actions: Mapping[str, Callable[[], object]], runs: int = RUNS) -> dict[str, float]:
    """Median seconds of each action, run round-robin `runs` times after one warm-up each."""
    for action in actions.values():
        action()  # warm the page cache and imports once
    times: dict[str, list[float]] = {name: [] for name in actions}
    for _ in range(runs):
        for name, action in actions.items():
            started = time.perf_counter()
            action()
            times[name].append(time.perf_counter() - started)
    return {name: statistics.median(t) for name, t in times.items()}


def report(title: str, figures: dict[str, float], baseline: str) -> None:
    print(f"{title} (median of {RUNS}, interleaved)")
    for name, seconds in figures.items():
        print(f"  {name:<28} {seconds * 1000:7.2f} ms  {seconds / figures[baseline]:5.2f}x")


def main() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the `none` tier warns by design
        sandboxes = {tier: open_sandbox(tier, readable=python_paths()) for tier in TIERS}
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        spec = specs.load(ROOT / "examples" / "unique_items.yml", work)
        bare_file = work / "bare.py"
        assert spec.tests.code is not None  # the example's checks are inline code
        bare_file.write_text(CODE + "\n" + spec.tests.code)
        # The runner starts with -S (no site .pth files); the second bare line shows that saving.
        validate: dict[str, Callable[[], object]] = {
            "bare python -I file.py": lambda: subprocess.run([sys.executable, "-I", str(bare_file)], check=True),
            "bare python -I -S file.py": lambda: subprocess.run(
                [sys.executable, "-I", "-S", str(bare_file)], check=True
            ),
        }
        for tier, sandbox in sandboxes.items():
            validator = Validator(spec, sandbox)
            assert validator.check(CODE).passed, tier
            validate[f"validate on {tier}"] = partial(validator.check, CODE)
        report("Validate one candidate", medians(validate), "bare python -I file.py")

        empty = work / "empty"
        empty.mkdir()
        os.chmod(empty, 0o755)
        true: dict[str, Callable[[], object]] = {
            "bare subprocess /bin/true": lambda: subprocess.run(["/bin/true"], check=True)
        }
        for tier, sandbox in sandboxes.items():

            def run(tier_sandbox: Sandbox = sandbox) -> None:
                assert tier_sandbox.run(["/bin/true"], empty, allowed_environ(), Limits()).returncode == 0

            true[f"sandbox.run on {tier}"] = run
        report("Run /bin/true", medians(true), "bare subprocess /bin/true")
        print("tiers: " + "; ".join(sandbox.describe() for sandbox in sandboxes.values()))


if __name__ == "__main__":
    main()
