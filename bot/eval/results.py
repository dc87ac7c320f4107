"""Eval results: the resumable logs, the per-strategy summary and its uncertainty, eval.json.

An output folder holds:
  run.json       what was evaluated (taskset, model, calls per task, temperature, seed, shard):
                 a re-run or a merge must match it, so results of different runs never mix;
  results.jsonl  one line per finished (sample, task, strategy) run, appended as each finishes:
                 a re-run skips these;
  first-replies.jsonl  each task's first model call in each sample, which every strategy shares:
                 a re-run, or one that adds a strategy, pairs with the replies already drawn;
  eval.json, eval.md, eval.png   the summary and every result, written at the end (bot/eval/writeup.py).
"""

from __future__ import annotations

import json
import math
import os
import re
import threading
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from bot.core.report import write_atomically
from bot.errors import UserError
from bot.eval.stats import mcnemar_p, mean_interval, paired_interval, pass_at_k, spread, wilson
from bot.text import count

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

META = "run.json"
LOG = "results.jsonl"
FIRST_REPLIES = "first-replies.jsonl"
# What makes two runs comparable. The shard is metadata too, but slices of one run differ in it;
# --samples too, as a re-run with more samples extends the run.
IDENTITY = ("taskset", "model", "attempts", "temperature", "seed", "candidates")
STRATEGIES = ("one-shot", "repair", "resample", "repair+resample")  # the loop's, on spec tasks: `all`
# Named to run: repair+resample asking two candidates at once a round (`candidates: 2`), so its
# first round is two fresh samples of the task and the next repairs the one with fewer failures.
EXTRA_STRATEGIES = ("side-by-side",)
SPEC_STRATEGIES = STRATEGIES + EXTRA_STRATEGIES
REPO_STRATEGIES = ("freeform",)  # on a repository with an injected bug (humaneval-repo): bot/eval/freeform.py
COMPARISONS = (  # a − b, if both ran
    ("repair", "one-shot"),
    ("resample", "one-shot"),
    ("repair", "resample"),
    ("repair+resample", "repair"),
    ("repair+resample", "resample"),
    ("side-by-side", "repair+resample"),
    ("side-by-side", "resample"),
)


@dataclass
class Result:
    """One (task, strategy) pair's outcome."""

    task: str
    strategy: str
    passed: bool
    calls: int  # model calls made
    attempts: int  # candidates validated: calls whose reply held code not judged before
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
    sample: int = 1  # which repeat of the eval (--samples) it belongs to
    replies: list[str] = field(default_factory=list)  # a digest of each call's reply: repeats are not fresh samples
    # A pass's test strength (--strength): of its code's mutants judged, those the task's checks failed.
    killed: int = 0
    mutants: int = 0


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
            if old.get(key) != meta[key]:  # an older run.json lacks temperature, seed, candidates: none was set
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
    """Finished runs, appended one JSON line at a time from the worker threads."""

    def __init__(self, out: Path):
        self.path = out / LOG
        self.lock = threading.Lock()
        drop_torn_line(self.path)

    def append(self, result: Result) -> None:
        line = json.dumps(asdict(result), ensure_ascii=False) + "\n"
        with self.lock, self.path.open("a", encoding="utf-8") as log:
            log.write(line)


def drop_torn_line(path: Path) -> None:
    """A last line cut short by a kill would run into the next line appended, and the two would
    read as a damaged line: cut it off before appending."""
    if path.exists():
        text = path.read_bytes()
        if text and not text.endswith(b"\n"):
            os.truncate(path, text.rfind(b"\n") + 1)


def read_results(folder: Path) -> list[Result]:
    """Every finished run; older logs lack the fields added since, which take their defaults."""
    return read_lines(folder / LOG, Result)


Line = TypeVar("Line", bound="DataclassInstance")


def read_lines(path: Path, kind: type[Line]) -> list[Line]:
    """A JSON-lines file of `kind` dataclasses. A torn last line (the run was killed mid-write) is
    dropped, as what it held simply runs again."""
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    names = {f.name for f in fields(kind)}
    required = {f.name for f in fields(kind) if f.default is MISSING and f.default_factory is MISSING}
    read = []
    for number, line in enumerate(lines, 1):
        try:
            data = json.loads(line)
            if not isinstance(data, dict) or not required <= set(data) <= names:
                raise ValueError
            read.append(kind(**data))
        except ValueError:
            if number == len(lines):
                break
            raise UserError(f"{path}:{number}: not a result line; the file is damaged") from None
    return read


@dataclass(frozen=True)
class FirstReply:
    """A task's first model call in one sample, which every strategy's run of it shares."""

    sample: int
    task: str
    prompt: str  # a digest of the messages it answered: it serves only the same prompt
    text: str
    input_tokens: int
    output_tokens: int
    cached_tokens: int
    seconds: float  # the wait for it, charged to every run that shares it


class FirstReplies:
    """The first replies drawn so far, read from the folder and appended from the worker threads."""

    def __init__(self, out: Path):
        self.path = out / FIRST_REPLIES
        self.lock = threading.Lock()
        drop_torn_line(self.path)
        self.kept = {(r.sample, r.task, r.prompt): r for r in read_lines(self.path, FirstReply)}

    def get(self, sample: int, task: str, prompt: str) -> FirstReply | None:
        with self.lock:
            return self.kept.get((sample, task, prompt))

    def add(self, reply: FirstReply) -> None:
        line = json.dumps(asdict(reply), ensure_ascii=False) + "\n"
        with self.lock, self.path.open("a", encoding="utf-8") as log:
            log.write(line)
            self.kept[(reply.sample, reply.task, reply.prompt)] = reply


def summarize(results: list[Result], strategies: list[str], attempts: int) -> dict[str, dict]:
    """Per strategy. Latency is per (task, strategy) pair; percentiles are nearest-rank, so
    each is one of the measured values. `tokens_per_solved` counts every token spent,
    failures included, divided by the tasks solved: the price of one solution. Each pass rate
    comes with its 95% Wilson interval."""
    summary = {}
    for strategy in strategies:
        mine = [r for r in results if r.strategy == strategy]
        solved = [r for r in mine if r.passed]
        tokens = sum(r.tokens_in + r.tokens_out for r in mine)
        calls = budget(strategy, attempts)
        # index c-1: solved within c calls; None past the strategy's own budget
        within = [sum(r.calls <= c for r in solved) if c <= calls else None for c in range(1, attempts + 1)]
        measured = [r for r in solved if r.mutants]  # passes whose test strength was measured (--strength)
        summary[strategy] = {
            "tasks": len(mine),
            "passed": len(solved),
            "pass_rate": ratio(len(solved), len(mine)),
            "pass_rate_interval": interval(len(solved), len(mine)),
            "pass_rate_within": [None if hits is None else ratio(hits, len(mine)) for hits in within],
            "pass_rate_within_interval": [None if hits is None else interval(hits, len(mine)) for hits in within],
            "calls": sum(r.calls for r in mine),
            "mean_calls_per_solved": ratio(sum(r.calls for r in solved), len(solved)),
            "latency_p50": percentile([r.seconds for r in mine], 50),
            "latency_p95": percentile([r.seconds for r in mine], 95),
            "tokens_in": sum(r.tokens_in for r in mine),
            "tokens_out": sum(r.tokens_out for r in mine),
            "tokens_per_solved": ratio(tokens, len(solved)),
            "seconds": round(sum(r.seconds for r in mine), 3),
            "validation_seconds": round(sum(r.validation_seconds for r in mine), 3),
            "strength_measured": len(measured),
            "mean_strength": ratio(sum(r.killed / r.mutants for r in measured), len(measured)),
        }
    return summary


def interval(passed: int, total: int) -> list[float] | None:
    found = wilson(passed, total)
    return None if found is None else list(found)


def compare(results: list[Result], strategies: list[str]) -> list[dict]:
    """Each pair of COMPARISONS that ran, over the tasks both ran: the difference in tasks solved,
    its 95% interval and the exact McNemar test's p."""
    outcome = {(r.task, r.strategy): r.passed for r in results}
    comparisons = []
    for a, b in COMPARISONS:
        if a not in strategies or b not in strategies:
            continue
        both = [task for task, strategy in outcome if strategy == a and (task, b) in outcome]
        only_a = sum(outcome[task, a] and not outcome[task, b] for task in both)
        only_b = sum(outcome[task, b] and not outcome[task, a] for task in both)
        solved_both = sum(outcome[task, a] and outcome[task, b] for task in both)
        comparisons.append(
            {
                "a": a,
                "b": b,
                "tasks": len(both),
                "a_passed": solved_both + only_a,
                "b_passed": solved_both + only_b,
                "only_a": only_a,
                "only_b": only_b,
                "difference": only_a - only_b,
                "interval": list(paired_interval(only_a, only_b)),
                "p": mcnemar_p(only_a, only_b),
            }
        )
    return comparisons


def analyze(results: list[Result], strategies: list[str], attempts: int) -> dict[str, Any]:
    """Everything eval.json reports besides the results. One sample: each strategy's figures with
    their intervals, and the paired comparisons. Several (--samples): the same for each sample
    under `by_sample`; `summary` and `comparisons` then give the figures over all of them with
    each rate's and difference's mean and spread across samples, and `pass_at_k` the estimate
    from the first calls."""
    samples = sorted({r.sample for r in results}) or [1]
    of_sample = {sample: [r for r in results if r.sample == sample] for sample in samples}
    by_sample = [
        {
            "sample": sample,
            "summary": summarize(of_sample[sample], strategies, attempts),
            "comparisons": compare(of_sample[sample], strategies),
        }
        for sample in samples
    ]
    identical = identical_samples(results, samples)
    analysis: dict[str, Any] = {"samples": len(samples)}
    if len(samples) == 1:
        analysis |= {"summary": by_sample[0]["summary"], "comparisons": by_sample[0]["comparisons"]}
    else:
        analysis |= {
            "summary": over_samples(results, strategies, attempts, by_sample),
            "comparisons": [
                {"a": same[0]["a"], "b": same[0]["b"], "difference": spread([c["difference"] for c in same])}
                for same in zip(*(s["comparisons"] for s in by_sample), strict=True)  # one pair, every sample
            ],
            "pass_at_k": first_call_pass_at_k(results, samples, attempts),
            "by_sample": by_sample,
        }
    return analysis | {"identical_samples": identical, "warnings": warnings(identical, len(samples))}


def over_samples(results: list[Result], strategies: list[str], attempts: int, by_sample: list[dict]) -> dict:
    """The figures over every sample's runs (`runs`: tasks × samples), the pass rates as mean and
    spread across samples: a Wilson interval over the pooled runs would take a task's samples for
    independent tasks."""
    pooled = summarize(results, strategies, attempts)
    summary = {}
    for strategy, figures in pooled.items():
        ran = [s["summary"][strategy] for s in by_sample if s["summary"][strategy]["tasks"]]
        summary[strategy] = {key: value for key, value in figures.items() if not key.endswith("_interval")} | {
            "tasks": len({r.task for r in results if r.strategy == strategy}),
            "runs": figures["tasks"],
            "pass_rate_spread": spread([s["pass_rate"] for s in ran]) if ran else None,
            "pass_rate_within_spread": [
                spread([s["pass_rate_within"][c] for s in ran]) if ran and c < budget(strategy, attempts) else None
                for c in range(attempts)
            ],
        }
    return summary


def first_calls(results: list[Result]) -> dict[tuple[int, str], Result]:
    """Per (sample, task), one run's result, the strategies in order: all share the first call."""
    chosen: dict[tuple[int, str], Result] = {}
    for r in sorted(results, key=lambda r: SPEC_STRATEGIES.index(r.strategy)):
        chosen.setdefault((r.sample, r.task), r)
    return chosen


def first_call_pass_at_k(results: list[Result], samples: list[int], attempts: int) -> list[dict]:
    """pass@k for k up to the samples and the calls per task, by Chen et al.'s unbiased estimator
    over each task's first calls: one independent sample per --samples repeat. Resampling's later
    calls are left out: they were drawn only after a failure, which would bias the estimate."""
    passed: dict[str, list[bool]] = {}
    for (_, task), r in first_calls(results).items():
        passed.setdefault(task, []).append(r.passed and r.calls == 1)
    figures = []
    for k in range(1, min(len(samples), attempts) + 1):
        per_task = [pass_at_k(len(outcomes), sum(outcomes), k) for outcomes in passed.values() if len(outcomes) >= k]
        if per_task:
            estimate = sum(per_task) / len(per_task)
            found = mean_interval(per_task)
            figures.append({"k": k, "tasks": len(per_task), "estimate": estimate, "interval": found and list(found)})
    return figures


def identical_samples(results: list[Result], samples: list[int]) -> dict[str, dict[str, int]]:
    """Replies that came back the same where fresh samples were asked for: resampling's calls of
    a task, and (with several samples) a task's first call across the samples."""
    resampled = [r for r in results if r.strategy == "resample" and len(r.replies) > 1]
    found = {"resample": {"tasks": sum(len(set(r.replies)) == 1 for r in resampled), "of": len(resampled)}}
    if len(samples) > 1:
        first: dict[str, set[str]] = {}
        seen: dict[str, int] = {}
        for (_, task), r in first_calls(results).items():
            if r.replies:
                first.setdefault(task, set()).add(r.replies[0])
                seen[task] = seen.get(task, 0) + 1
        repeated = [task for task in first if seen[task] > 1]
        found["first_calls"] = {"tasks": sum(len(first[task]) == 1 for task in repeated), "of": len(repeated)}
    return found


def warnings(identical: dict[str, dict[str, int]], samples: int) -> list[str]:
    notes = []
    if identical["resample"]["tasks"]:
        notes.append(
            f"resample's samples were one identical reply on {identical['resample']['tasks']} of "
            f"{count(identical['resample']['of'], 'task')} it sampled more than once: at temperature 0, or from an "
            "endpoint that ignores the temperature and the seed, resampling repeats one answer instead of drawing "
            "independent samples"
        )
    if identical.get("first_calls", {}).get("tasks"):
        notes.append(
            f"the {samples} samples' first replies were identical on {identical['first_calls']['tasks']} of "
            f"{count(identical['first_calls']['of'], 'task')}: the samples are not independent (temperature 0, or "
            "an endpoint that ignores it), so their spread understates the model's"
        )
    return notes


def ratio(part: float, whole: int) -> float | None:
    return part / whole if whole else None


def percentile(values: list[float], p: int) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(1, math.ceil(p / 100 * len(ordered))) - 1]


def ordered(results: list[Result]) -> list[Result]:
    known = SPEC_STRATEGIES + REPO_STRATEGIES
    return sorted(results, key=lambda r: (r.sample, natural_key(r.task), known.index(r.strategy)))


def write_summary(
    out: Path,
    meta: dict,
    results: list[Result],
    strategies: list[str],
    summary: dict,
    text: str,
    analysis: dict | None = None,
) -> None:
    """eval.json (the run, the summary and the rest of `analysis`, every result in order) and
    eval.md (`text`)."""
    document = {
        **meta,
        "strategies": strategies,
        "tasks": len({r.task for r in results}),
        **(analysis or {}),
        "summary": summary,
        "results": [asdict(r) for r in results],
    }
    write_atomically(out / "eval.json", json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    write_atomically(out / "eval.md", text)
