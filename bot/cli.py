"""`autofix` command line. Exit codes: 0 passed, 1 all attempts failed, 2 bad input, 3 model service down."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from bot.console import Paint
from bot.errors import ModelUnavailable, UserError, warn
from bot.redact import Redactor
from bot.sandbox import SANDBOXES
from bot.text import count

if TYPE_CHECKING:
    from bot.judge.strength import Strength

OUTPUT_LINES = 5  # of a failed command's own output, on the console
MIN_REPLY_TOKENS = 16  # OpenAI's least `max_output_tokens`; the spec's `reply_tokens` says the same
MAX_CANDIDATES = 8  # the spec's `candidates` says the same


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="autofix", description="Let a model write code; let the tests decide.")
    commands = top.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="solve one task spec")
    run.add_argument("spec", type=Path, help="the task spec (YAML)")
    run.add_argument("--model", help="model name, or replay:FILE to play recorded replies")
    run.add_argument("--base-url", help="an OpenAI-compatible endpoint (default: OPENAI_BASE_URL, else OpenAI)")
    run.add_argument("--api", choices=("responses", "chat"), help="which API to call (default: responses)")
    run.add_argument(
        "--request-timeout",
        type=float,
        metavar="SECONDS",
        help="how long one model request may take (default: the spec's request_timeout, else 120)",
    )
    run.add_argument(
        "--reply-tokens",
        type=int,
        metavar="N",
        help="the most tokens one reply may have (default: the spec's reply_tokens, else scaled to the target)",
    )
    run.add_argument(
        "--temperature",
        type=float,
        metavar="T",
        help="sampling temperature of every model call, 0 to 2 (default: the spec's, else the endpoint's own)",
    )
    run.add_argument(
        "--candidates",
        type=int,
        metavar="N",
        help="replies asked at once per round, judged side by side; each is a call (default: the spec's, else 1)",
    )
    run.add_argument(
        "--strategy",
        choices=("repair", "resample", "repair+resample"),  # bot.spec.STRATEGIES, which would load pydantic
        help="after a failed attempt: repair it with the feedback, ask a fresh sample of the task, or repair "
        "and start afresh when stuck (default: the spec's, else resample)",
    )
    run.add_argument(
        "--max-attempts", type=int, metavar="N", help="at most N model calls (default: the spec's, else 3)"
    )
    run.add_argument("--report", type=Path, metavar="FILE.json", help="write the JSON report here")
    run.add_argument(
        "--workdir", type=Path, metavar="DIR", help="the folder the target and tests live in (default: the spec's)"
    )
    run.add_argument(
        "--sandbox",
        choices=SANDBOXES,
        default="auto",
        help="isolation for the tests (default: the strongest available)",
    )
    run.add_argument(
        "--strength",
        choices=("report", "gate", "off"),  # bot.spec.STRENGTH_MODES, which would load pydantic at start-up
        help="after a pass, judge mutants of the code: report the score, gate on min_strength, or off "
        "(default: the spec's, else report)",
    )
    commands.add_parser("action", help="the GitHub Action's step: reads INPUT_* and GITHUB_* from the environment")
    plan = commands.add_parser(
        "plan",
        help="print the spec files a run would regenerate, as a JSON array for strategy.matrix",
        description="Print the spec files `autofix action` would regenerate, as a JSON array for strategy.matrix.",
    )
    plan.add_argument(
        "--workdir", type=Path, default=Path("."), metavar="DIR", help="the repository's root (default: .)"
    )
    plan.add_argument(
        "--specs", metavar="GLOB", help="spec files (default: `specs` in .github/autofix.yml, else .autofix/*.yml)"
    )
    plan.add_argument(
        "--config",
        default=".github/autofix.yml",
        metavar="FILE",
        help="the repository's autofix config, relative to DIR",
    )
    from bot.eval import command as evaluate  # its own imports are light; the heavy ones wait for a real eval

    evaluate.add_arguments(
        commands.add_parser("eval", help="compare one-shot, repair and resampling on a task set"), SANDBOXES
    )
    return top


def main(argv: list[str] | None = None) -> int:
    redact = Redactor.from_environ()
    try:
        args = parser().parse_args(argv)
        return COMMANDS[args.command](args, redact)
    except (UserError, ModelUnavailable) as exc:
        print(redact(f"autofix: error: {exc}"), file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("autofix: interrupted", file=sys.stderr)
        return 130


def run(args: argparse.Namespace, redact: Redactor) -> int:
    from bot import spec as specs
    from bot.core.loop import solve
    from bot.core.report import Report
    from bot.judge.js.command import linked_modules
    from bot.judge.validate import Validator, open_test_sandbox
    from bot.models.registry import open_model, settings_from

    if args.workdir and not args.workdir.is_dir():
        raise UserError(f"--workdir: {args.workdir} is not a folder")
    spec = specs.load(args.spec, args.workdir)
    if args.max_attempts is not None:
        if args.max_attempts < 1:
            raise UserError("--max-attempts: must be at least 1")
        spec.max_attempts = args.max_attempts
    if args.strength is not None:
        spec.strength = args.strength
    if args.strategy is not None:
        spec.strategy = args.strategy
    if args.temperature is not None and not 0 <= args.temperature <= 2:
        raise UserError("--temperature: must be between 0 and 2")
    if args.candidates is not None:
        if not 1 <= args.candidates <= MAX_CANDIDATES:
            raise UserError(f"--candidates: must be a whole number from 1 to {MAX_CANDIDATES}")
        spec.candidates = args.candidates
    if args.request_timeout is not None and not args.request_timeout > 0:
        raise UserError("--request-timeout: must be a number of seconds above 0")
    if args.reply_tokens is not None and args.reply_tokens < MIN_REPLY_TOKENS:
        raise UserError(f"--reply-tokens: must be a whole number of tokens, at least {MIN_REPLY_TOKENS}")
    settings = settings_from(
        args.model, args.base_url, args.api, spec.model, spec.api,
        args_timeout=args.request_timeout, spec_timeout=spec.request_timeout,
        args_reply_tokens=args.reply_tokens, spec_reply_tokens=spec.reply_tokens,
        args_temperature=args.temperature, spec_temperature=spec.temperature,
    )  # fmt: skip
    model = open_model(settings, redact)
    sandbox = open_test_sandbox(
        args.sandbox, "--sandbox", warn, original=spec.workdir, also=linked_modules(spec.workdir)
    )
    print(redact(f"autofix: {model.banner}"))
    print(f"autofix: sandbox: {sandbox.describe()}")
    if sandbox.declined:
        print(f"autofix: sandbox: not stronger because {sandbox.declined}")
    report = Report(model=model.name, sandbox=sandbox.describe(), target=spec.target, max_attempts=spec.max_attempts)

    paint = Paint.for_stream(sys.stdout)

    def show(attempt) -> None:
        print(attempt.headline(spec.max_attempts, paint))
        for line in failure_lines(attempt.feedback, attempt.kind):
            print(redact(f"    {line}"))

    def note(text: str) -> None:
        print(paint.note("autofix: note:") + redact(f" {text}"))

    try:
        solve(spec, model, Validator(spec, sandbox), report, on_attempt=show, on_note=note)
    finally:
        if args.report:
            report.write(args.report, redact)
    totals = f"{report.seconds:.2f} s, {sum(report.tokens.values())} tokens"
    if report.cost is not None:
        totals += f", ${report.cost:.4f}"
    if report.strength is not None:
        for line in strength_lines(report.strength):
            print(redact(line))
    if report.passed:
        on = report.stop_reason.removeprefix("passed ")  # "on attempt 2": the one kept, of a round's candidates
        print(f"{paint.passed('passed')} {on}: wrote {spec.target_path} ({totals})")
        return 0
    if "attempt" not in report.stop_reason:  # a budget spent: how many attempts it took, said once
        totals = f"{count(len(report.attempts), 'attempt')}, {totals}"
    print(f"{paint.failed('failed')}: {report.stop_reason}; {spec.target_path} left untouched ({totals})")
    return 1


def run_action(args: argparse.Namespace, redact: Redactor) -> int:
    from bot.github import dispatch

    return dispatch.main(os.environ)


def print_plan(args: argparse.Namespace, redact: Redactor) -> int:
    from bot.github import dispatch
    from bot.github.config import DEFAULT_SPECS, load_repo_config

    pattern = args.specs or load_repo_config(args.workdir, args.config).specs or DEFAULT_SPECS
    print(dispatch.plan(args.workdir, pattern))
    return 0


def run_eval(args: argparse.Namespace, redact: Redactor) -> int:
    from bot.eval import command as evaluate

    return evaluate.main(args, redact)


COMMANDS = {"run": run, "action": run_action, "plan": print_plan, "eval": run_eval}


def strength_lines(strength: Strength) -> list[str]:
    """The score, then each surviving mutant on a line of its own."""
    return [f"test strength: {strength.headline()}"] + [f"    survived: {survivor}" for survivor in strength.survivors]


def failure_lines(feedback: str, kind: str = "failed", limit: int = 8) -> list[str]:
    """An attempt's feedback for the one-screen log: the failing checks, and the last lines of a
    command's own output when it failed without per-test tracebacks (`python: not found`); for a
    reply that couldn't be used, why."""
    if kind in ("no code", "edits refused", "reply cut"):
        return [line.removeprefix("- ") for line in feedback.splitlines() if line.strip()][:limit]
    lines = [line for line in feedback.splitlines() if line.startswith("- ")]
    shown = [line[2:] for line in lines[:limit]]
    if len(lines) > limit:
        shown.append(f"... and {len(lines) - limit} more")
    details = feedback.partition("\nDetails:\n")[2]
    if details and not details.startswith("### "):  # a command's own output, not tracebacks per test
        shown += [f"| {line}" for line in [line for line in details.splitlines() if line.strip()][-OUTPUT_LINES:]]
    return shown
