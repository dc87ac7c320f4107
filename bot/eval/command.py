"""`autofix eval`: one-shot vs repair vs resampling at equal budget, over a task set; or, on a
repository task set (humaneval-repo), the free-form pipeline stage by stage.

    autofix eval TASKSET [--strategy S[,S...]|all] [--attempts K] [--samples N] [--temperature T] [--seed S]
                 [--jobs N] [--limit N | --sample N] [--shard I/N] [--out DIR] [--model M]
                 [--base-url URL] [--api A]
    autofix eval merge DIR... [--out DIR]

Each task runs its strategies on a worker thread (`--jobs`), one after the other, so they share
its first model call; every candidate is judged in the sandbox. A finished run is logged at once,
so an interrupted eval resumes where it stopped, and shards run on different machines combine
with `merge`.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from pathlib import Path

from bot.errors import ModelUnavailable, UserError, warn
from bot.eval.progress import Progress
from bot.eval.results import (
    EXTRA_STRATEGIES,
    IDENTITY,
    LOG,
    REPO_STRATEGIES,
    SPEC_STRATEGIES,
    STRATEGIES,
    FirstReplies,
    Log,
    parse_shard,
    read_meta,
    read_results,
    start_run,
)
from bot.eval.writeup import summary_text, write_reports
from bot.text import count

DEFAULT_OUT = Path("out/eval")
DEFAULT_MERGED = Path("out/eval-merged")


USAGE = "autofix eval TASKSET [options]\n       autofix eval merge DIR... [--out DIR]"


def add_arguments(parser: argparse.ArgumentParser, sandboxes: tuple[str, ...]) -> None:
    parser.usage = USAGE
    parser.add_argument(
        "taskset",
        help="`humaneval`, `humaneval-repo` (`humaneval-repo:N`: a repository of the first N problems), "
        "a folder of spec files, or `merge` followed by result folders",
    )
    parser.add_argument("folders", nargs="*", type=Path, help=argparse.SUPPRESS)
    parser.add_argument(
        "--strategy",
        default="all",
        help=f"a strategy, or several joined by commas; default: all ({', '.join(STRATEGIES)}; on humaneval-repo: "
        f"{', '.join(REPO_STRATEGIES)}); also {', '.join(EXTRA_STRATEGIES)}",
    )
    parser.add_argument(
        "--attempts",
        type=int,
        default=3,
        metavar="K",
        help="model calls per task for repair and resample, repair calls for freeform (default: 3)",
    )
    parser.add_argument(
        "--model", help="model name; local:FILE.gguf for an in-process model; replay:FILE.yml to play recorded replies"
    )
    parser.add_argument("--base-url", help="an OpenAI-compatible endpoint (default: OPENAI_BASE_URL, else OpenAI)")
    parser.add_argument("--api", choices=("responses", "chat"), help="which API to call (default: responses)")
    parser.add_argument(
        "--request-timeout",
        type=float,
        metavar="SECONDS",
        help="how long one model request may take (default: 120)",
    )
    parser.add_argument("--jobs", type=int, default=1, metavar="N", help="tasks run in parallel (default: 1)")
    pick = parser.add_mutually_exclusive_group()
    pick.add_argument("--limit", type=int, metavar="N", help="only the first N tasks")
    pick.add_argument("--sample", type=int, metavar="N", help="N tasks drawn at random (see --seed)")
    parser.add_argument(
        "--samples",
        type=int,
        default=1,
        metavar="N",
        help="evaluate every task N times, with other seeds each time, for the mean and spread (default: 1)",
    )
    parser.add_argument(
        "--candidates",
        type=int,
        default=1,
        metavar="N",
        help="replies asked at once per round, judged side by side; each is one of --attempts' calls (default: 1)",
    )
    parser.add_argument(
        "--temperature",
        type=float,
        metavar="T",
        help="sampling temperature of every model call (default: the endpoint's own; none is sent)",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="the --sample draw (the same on every shard), and the first of the seeds the model calls send "
        "where the API takes one (default: 0)",
    )
    parser.add_argument(
        "--strength",
        action="store_true",
        help="after each pass, judge up to 20 mutants of the lines the model wrote with the task's own checks, "
        "and report each strategy's mean share killed (up to 20 more validations a pass; not on humaneval-repo)",
    )
    parser.add_argument("--shard", default="1/1", metavar="I/N", help="run only the I-th of N slices of the tasks")
    parser.add_argument(
        "--out", type=Path, metavar="DIR", help=f"results folder (default: {DEFAULT_OUT}, for merge {DEFAULT_MERGED})"
    )
    parser.add_argument(
        "--sandbox",
        choices=sandboxes,
        default="auto",
        help="isolation for the tests (default: the strongest available)",
    )


def main(args: argparse.Namespace, redact) -> int:
    if args.taskset == "merge":
        return merge(args.folders, args.out or DEFAULT_MERGED)
    if args.folders:
        raise UserError(
            f"unexpected arguments {' '.join(map(str, args.folders))}: only `autofix eval merge` takes several folders"
        )
    return evaluate(args, redact)


def evaluate(args: argparse.Namespace, redact) -> int:
    # The loop, the sandbox and pydantic load only when an eval runs: `autofix --help` stays quick.
    from bot.eval.repo_tasks import is_repo_taskset
    from bot.eval.tasks import load_taskset, select
    from bot.judge.validate import open_test_sandbox
    from bot.models.registry import open_model, settings_from

    for flag, value, low in (
        ("--attempts", args.attempts, 1),
        ("--jobs", args.jobs, 1),
        ("--limit", args.limit, 1),
        ("--sample", args.sample, 1),
        ("--samples", args.samples, 1),
        ("--candidates", args.candidates, 1),
    ):
        if value is not None and value < low:
            raise UserError(f"{flag}: must be at least {low}")
    if args.attempts > 50:
        raise UserError("--attempts: at most 50")
    if args.candidates > 8:
        raise UserError("--candidates: at most 8")
    if args.samples > 100:
        raise UserError("--samples: at most 100")
    if args.temperature is not None and not 0 <= args.temperature <= 2:
        raise UserError("--temperature: must be between 0 and 2")
    if args.request_timeout is not None and not args.request_timeout > 0:
        raise UserError("--request-timeout: must be a number of seconds above 0")
    shard = parse_shard(args.shard)
    offered = REPO_STRATEGIES if is_repo_taskset(args.taskset) else STRATEGIES
    named = [name.strip() for name in args.strategy.split(",")]
    for name in named:
        if name not in (*SPEC_STRATEGIES, *REPO_STRATEGIES, "all"):
            choices = ", ".join((*SPEC_STRATEGIES, *REPO_STRATEGIES, "all"))
            raise UserError(f"--strategy: invalid choice: {name!r} (choose from {choices})")
        if name not in (*offered, "all") and not (offered == STRATEGIES and name in EXTRA_STRATEGIES):
            raise UserError(f"--strategy {name}: {args.taskset} is evaluated by {', '.join(offered)}")
    if args.samples > 1 and offered == REPO_STRATEGIES:
        raise UserError(f"--samples: {args.taskset} is evaluated once")
    if args.strength and offered == REPO_STRATEGIES:
        raise UserError(f"--strength: measured on spec tasks (one target the model writes), not on {args.taskset}")
    strategies = list(dict.fromkeys(s for name in named for s in (offered if name == "all" else (name,))))
    samples = range(1, args.samples + 1)
    out = args.out or DEFAULT_OUT
    with tempfile.TemporaryDirectory(prefix="autofix-eval-") as scratch:
        tasks = select(load_taskset(args.taskset, Path(scratch)), args.limit, args.sample, args.seed, shard)
        settings = settings_from(args.model, args.base_url, args.api, None, None, args_timeout=args.request_timeout)
        model = open_model(dataclasses.replace(settings, temperature=args.temperature, seed=args.seed), redact)
        meta = {
            "taskset": args.taskset,
            "model": model.name,
            "attempts": args.attempts,
            "temperature": args.temperature,
            "seed": args.seed,
            "candidates": args.candidates if args.candidates > 1 else None,  # None: as before the key was
            "shard": args.shard,
        }
        start_run(out, meta)
        finished = {(r.sample, r.task, r.strategy) for r in read_results(out)}
        # A task's strategies run together: the first of them makes the call they all share.
        pending = [
            (sample, task, todo)
            for sample in samples
            for task in tasks
            if (todo := [s for s in strategies if (sample, task.id, s) not in finished])
        ]
        sandbox = open_test_sandbox(args.sandbox, "--sandbox", warn)
        print(redact(f"autofix: {model.banner}"))
        print(f"autofix: sandbox: {sandbox.describe()}")
        wanted = len(samples) * len(tasks) * len(strategies)
        left = sum(len(todo) for _, _, todo in pending)
        skipped = f", {wanted - left} already done" if left < wanted else ""
        repeats = f" x {count(len(samples), 'sample')}" if len(samples) > 1 else ""
        print(
            f"eval: {count(len(tasks), 'task')} x {count(len(strategies), 'strategy', 'strategies')}{repeats} = "
            f"{count(wanted, 'run')}{skipped}",
            flush=True,
        )
        run_all(
            pending, args.attempts, model, sandbox, out, args.jobs, strength=args.strength, candidates=args.candidates
        )
    keys = {(sample, task.id, strategy) for sample in samples for task in tasks for strategy in strategies}
    results = [r for r in read_results(out) if (r.sample, r.task, r.strategy) in keys]
    report(out, meta, results, strategies)
    return 0


def run_all(
    pending: list, attempts: int, model, sandbox, out: Path, jobs: int, *, strength: bool = False, candidates: int = 1
) -> None:
    """Each worker runs a task's strategies and logs each as soon as it ends, so a failure
    elsewhere loses nothing done."""
    from bot.eval.freeform import run_freeform
    from bot.eval.repo_tasks import RepoTask
    from bot.eval.strategies import run_pair

    if not pending:
        return
    log, progress = Log(out), Progress(sum(len(todo) for _, _, todo in pending))
    first_replies = FirstReplies(out)

    def work(sample: int, task, strategies: list[str]) -> None:
        for strategy in strategies:
            if isinstance(task, RepoTask):  # its one strategy, freeform
                result = run_freeform(task, attempts, model, sandbox, out / "solutions")
            else:
                result = run_pair(
                    task,
                    strategy,
                    attempts,
                    model,
                    sandbox,
                    out / "solutions",
                    first_replies,
                    sample,
                    strength=strength,
                    candidates=candidates,
                )
            log.append(result)
            progress.update(result.passed)

    pool = ThreadPoolExecutor(jobs, thread_name_prefix="eval")
    try:
        futures = [pool.submit(work, sample, task, todo) for sample, task, todo in pending]
        done, _ = wait(futures, return_when=FIRST_EXCEPTION)
        for future in done:
            future.result()  # the first error (a refused key, a model service down) ends the eval
    except (UserError, ModelUnavailable, KeyboardInterrupt):
        print(
            f"autofix: eval stopped; finished runs are kept in {out / LOG} and the same command resumes",
            file=sys.stderr,
        )
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def merge(folders: list[Path], out: Path) -> int:
    """Combine the slices of one sharded eval into one summary."""
    if not folders:
        raise UserError("eval merge: name the result folders to combine")
    metas = [read_meta(folder) for folder in folders]
    for folder, meta in zip(folders, metas, strict=True):
        for key in IDENTITY:
            if meta.get(key) != metas[0].get(key):
                raise UserError(
                    f"{folder}: another run than {folders[0]} ({key}: {meta.get(key)!r} vs {metas[0].get(key)!r})"
                )
    shards = [parse_shard(meta["shard"]) for meta in metas]
    if len({count for _, count in shards}) > 1:
        raise UserError(
            "eval merge: the folders were sliced differently (" + ", ".join(m["shard"] for m in metas) + ")"
        )
    if len(set(shards)) < len(shards):
        raise UserError("eval merge: the same slice is given twice")
    missing = sorted(set(range(1, shards[0][1] + 1)) - {index for index, _ in shards})
    if missing:
        print(
            f"autofix: warning: slices {', '.join(f'{i}/{shards[0][1]}' for i in missing)} are missing; "
            "the summary covers the rest",
            file=sys.stderr,
        )
    results = [result for folder in folders for result in read_results(folder)]
    strategies = [s for s in SPEC_STRATEGIES + REPO_STRATEGIES if any(r.strategy == s for r in results)]
    meta = {key: metas[0].get(key) for key in IDENTITY} | {"shard": "+".join(m["shard"] for m in metas)}
    out.mkdir(parents=True, exist_ok=True)
    report(out, meta, results, strategies)
    return 0


def report(out: Path, meta: dict, results: list, strategies: list[str]) -> None:
    from bot.eval.repo_tasks import is_repo_taskset

    if is_repo_taskset(meta["taskset"]):
        from bot.eval import freeform_report

        print(freeform_report.summary_text(freeform_report.write_reports(out, meta, results, strategies)))
        print(f"wrote {out / 'eval.json'} and {out / 'eval.md'}")
        return
    print(summary_text(meta, write_reports(out, meta, results, strategies)))
    print(f"wrote {out / 'eval.json'}, {out / 'eval.md'} and {out / 'eval.png'}")
