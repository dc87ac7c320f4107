"""`autofix eval`: one-shot vs repair vs resampling at equal budget, over a task set; or, on a
repository task set (humaneval-repo), the free-form pipeline stage by stage.

    autofix eval TASKSET [--strategy S|all] [--attempts K] [--jobs N] [--limit N | --sample N]
                 [--shard I/N] [--out DIR] [--model M] [--base-url URL] [--api A]
    autofix eval merge DIR... [--out DIR]

Each (task, strategy) pair runs on a worker thread (`--jobs`); every candidate is judged in
the sandbox. A finished pair is logged at once, so an interrupted eval resumes where it
stopped, and shards run on different machines combine with `merge`.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from pathlib import Path

from bot.errors import ModelUnavailable, UserError, warn
from bot.eval.progress import Progress
from bot.eval.results import (
    IDENTITY,
    LOG,
    REPO_STRATEGIES,
    STRATEGIES,
    Log,
    parse_shard,
    read_meta,
    read_results,
    start_run,
    summary_table,
    write_reports,
)
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
        choices=(*STRATEGIES, *REPO_STRATEGIES, "all"),
        default="all",
        help=f"default: all ({', '.join(STRATEGIES)}; on humaneval-repo: {', '.join(REPO_STRATEGIES)})",
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
    parser.add_argument("--jobs", type=int, default=1, metavar="N", help="tasks run in parallel (default: 1)")
    pick = parser.add_mutually_exclusive_group()
    pick.add_argument("--limit", type=int, metavar="N", help="only the first N tasks")
    pick.add_argument("--sample", type=int, metavar="N", help="N tasks drawn at random (see --seed)")
    parser.add_argument("--seed", type=int, default=0, help="for --sample (default: 0, the same draw on every shard)")
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
    ):
        if value is not None and value < low:
            raise UserError(f"{flag}: must be at least {low}")
    if args.attempts > 50:
        raise UserError("--attempts: at most 50")
    shard = parse_shard(args.shard)
    offered = REPO_STRATEGIES if is_repo_taskset(args.taskset) else STRATEGIES
    if args.strategy not in (*offered, "all"):
        raise UserError(f"--strategy {args.strategy}: {args.taskset} is evaluated by {', '.join(offered)}")
    strategies = list(offered) if args.strategy == "all" else [args.strategy]
    out = args.out or DEFAULT_OUT
    with tempfile.TemporaryDirectory(prefix="autofix-eval-") as scratch:
        tasks = select(load_taskset(args.taskset, Path(scratch)), args.limit, args.sample, args.seed, shard)
        model = open_model(settings_from(args.model, args.base_url, args.api, None, None), redact)
        meta = {"taskset": args.taskset, "model": model.name, "attempts": args.attempts, "shard": args.shard}
        start_run(out, meta)
        wanted = [(task, strategy) for task in tasks for strategy in strategies]
        finished = {(r.task, r.strategy) for r in read_results(out)}
        pending = [(task, strategy) for task, strategy in wanted if (task.id, strategy) not in finished]
        sandbox = open_test_sandbox(args.sandbox, "--sandbox", warn)
        print(redact(f"autofix: {model.banner}"))
        print(f"autofix: sandbox: {sandbox.describe()}")
        skipped = f", {len(wanted) - len(pending)} already done" if len(pending) < len(wanted) else ""
        print(
            f"eval: {count(len(tasks), 'task')} x {count(len(strategies), 'strategy', 'strategies')} = "
            f"{count(len(wanted), 'run')}{skipped}",
            flush=True,
        )
        run_all(pending, args.attempts, model, sandbox, out, args.jobs)
    keys = {(task.id, strategy) for task, strategy in wanted}
    results = [r for r in read_results(out) if (r.task, r.strategy) in keys]
    report(out, meta, results, strategies)
    return 0


def run_all(pending: list, attempts: int, model, sandbox, out: Path, jobs: int) -> None:
    """Each worker logs its pair as soon as it ends, so a failure elsewhere loses nothing done."""
    from bot.eval.freeform import run_freeform
    from bot.eval.repo_tasks import RepoTask
    from bot.eval.strategies import run_pair

    if not pending:
        return
    log, progress = Log(out), Progress(len(pending))

    def work(task, strategy) -> None:
        if isinstance(task, RepoTask):  # its one strategy, freeform
            result = run_freeform(task, attempts, model, sandbox, out / "solutions")
        else:
            result = run_pair(task, strategy, attempts, model, sandbox, out / "solutions")
        log.append(result)
        progress.update(result.passed)

    pool = ThreadPoolExecutor(jobs, thread_name_prefix="eval")
    try:
        futures = [pool.submit(work, task, strategy) for task, strategy in pending]
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
    strategies = [s for s in STRATEGIES + REPO_STRATEGIES if any(r.strategy == s for r in results)]
    meta = {key: metas[0][key] for key in IDENTITY} | {"shard": "+".join(m["shard"] for m in metas)}
    out.mkdir(parents=True, exist_ok=True)
    report(out, meta, results, strategies)
    return 0


def report(out: Path, meta: dict, results: list, strategies: list[str]) -> None:
    from bot.eval.repo_tasks import is_repo_taskset

    if is_repo_taskset(meta["taskset"]):
        from bot.eval import freeform_report

        print(freeform_report.summary_table(freeform_report.write_reports(out, meta, results, strategies)))
        print(f"wrote {out / 'eval.json'} and {out / 'eval.md'}")
        return
    summary = write_reports(out, meta, results, strategies)
    print(summary_table(summary, meta["attempts"]))
    print(f"wrote {out / 'eval.json'}, {out / 'eval.md'} and {out / 'eval.png'}")
