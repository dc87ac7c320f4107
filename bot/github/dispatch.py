"""`autofix action`: the step a GitHub Actions job runs, driven by the event that started it.

- `issues` / `labeled` with the configured label, by a user with write access: the issue is the
  task (issues.py).
- `schedule` / `workflow_dispatch`: the spec files whose targets no longer pass (specs.py).
- `workflow_run` (a failed run of a pull request) / `workflow_dispatch` with input `pr`: red CI
  repair (red_ci/repair.py).
- `pull_request_review` / `submitted` on autofix's own pull request, by a writer: the review's
  open threads answered by one proven commit on its branch (review/flow.py).
- `pull_request_review_comment` / `created`, a reply in a thread of autofix's own pull request;
  `workflow_run` or `check_run` failed on its branch: the same round (review/followups.py).
- anything else: a one-line "not handled" and exit 0.

`main` reads the configuration once and builds the collaborators a caller didn't pass in.

Exit codes: 0 done (or nothing to do), 1 attempts failed, 2 bad input/configuration/GitHub API,
3 the model service is down.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TextIO

from bot.errors import ModelUnavailable, UserError
from bot.github import tasks
from bot.github.comments import on_comment
from bot.github.config import Config, load_repo_config
from bot.github.forge import Forge
from bot.github.git import Git
from bot.github.issues import on_issue
from bot.github.red_ci.repair import repair
from bot.github.review.flow import on_review
from bot.github.review.followups import on_check_run, on_review_comment, on_workflow_run
from bot.github.specs import on_specs
from bot.github.step import OpenModel, Skip, Step, TaskOutcome, system_error
from bot.github.workflow import Workflow, write_outputs
from bot.models.registry import open_model
from bot.redact import SECRET_NAME, Redactor
from bot.safefs import give_back
from bot.sandbox.tiers import Sandbox

SECRET_INPUTS = ("INPUT_GITHUB-TOKEN", "INPUT_OPENAI-API-KEY")


def main(
    environ: Mapping[str, str],
    out: TextIO | None = None,
    *,
    forge: Forge | None = None,
    git: Git | None = None,
    models: OpenModel = open_model,
    sandbox: Sandbox | None = None,
) -> int:
    """One step. `forge` (GitHub), `git` (the workspace's repository), `models` (how a model is
    opened by name) and `sandbox` are built from the configuration unless given."""
    redact = Redactor.from_environ(environ)
    flow = Workflow(out or sys.stdout, redact)
    for name in SECRET_INPUTS:  # before anything else is printed
        flow.mask(environ.get(name))
    try:
        config = Config.from_environ(environ)
    except UserError as exc:
        flow.annotate("error", str(exc))
        return exc.exit_code
    forget_secrets()
    flow.mask(config.basic_auth)
    for secret in config.secrets:
        redact.add(secret)
    if forge is not None and forge.log is None:
        forge.log = flow.print
    step = Step(config, flow, redact, given_forge=forge, given_git=git, open_model=models, given_sandbox=sandbox)
    try:
        code = guarded(step, lambda: run_step(step))
    finally:  # whatever the flow raised, its end runs: each part under the same guard, on its own
        ended = [guarded(step, part) for part in end_of(step)]
    return code or max(ended)  # the flow's failure first; an end that fails fails a clean step too


def run_step(step: Step) -> int:
    config = step.config = step.config.with_repo(load_repo_config(step.config.workspace, step.config.config_path))
    if config.plan:
        return plan_step(step)
    handler = HANDLERS.get(config.event_name)
    if handler is None:
        raise Skip(f"not handled: {config.event_name}")
    return handler(step, read_event(config))


def end_of(step: Step) -> list[Callable[[], None]]:
    """The step's end, in order: the checkout's credentials go back and the job summary is written
    (step.cleanup), the workspace is handed back, the outputs written. A part that fails doesn't
    keep the next from running."""
    return [
        step.cleanup.close,
        lambda: hand_back(step),
        lambda: write_outputs(step.config.output, outputs(step.outcomes, step.config), step.redact),
    ]


def guarded(step: Step, part: Callable[[], int | None]) -> int:
    """`part`'s exit code (0 when it returns none); an error it raises told in one line, its code returned."""
    try:
        code = part()
    except Skip as why:
        step.flow.print(f"autofix: {why}")
        return 0
    except (UserError, ModelUnavailable) as exc:
        step.annotate_error(exc)
        return exc.exit_code
    except OSError as exc:  # one no flow told: still one line, never a traceback
        error = system_error(exc)
        step.annotate_error(error)
        return error.exit_code
    return code or 0


def hand_back(step: Step) -> None:
    """The workspace as the runner left it: what autofix wrote there (files, git objects and
    refs) belongs to the workspace's owner again when autofix ran as another uid (root, in a
    container action); otherwise the runner's user couldn't fetch, gc or delete its checkout."""
    workspace = step.config.workspace
    try:
        owner = workspace.stat()
    except OSError:
        return
    if owner.st_uid == os.geteuid():
        return
    changed = give_back(workspace, owner.st_uid, owner.st_gid, os.geteuid())
    if changed:
        step.flow.print(f"autofix: {changed} entries autofix wrote in the workspace now belong to uid {owner.st_uid}")


def forget_secrets() -> None:
    """Once the config holds the inputs, every secret leaves the process's environment, so nothing
    that inherits or reads it finds one. /proc/<pid>/environ keeps showing the environment the
    process started with; only root and autofix's own uid may read it, never the sandbox's."""
    for name in [name for name in os.environ if SECRET_NAME.search(name)]:
        del os.environ[name]


def read_event(config: Config) -> dict:
    try:
        event = json.loads(config.event_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise UserError(f"GITHUB_EVENT_PATH: cannot read the event payload {config.event_path}: {exc}") from None
    if not isinstance(event, dict):
        raise UserError(f"GITHUB_EVENT_PATH: {config.event_path} is not a JSON object")
    return event


def on_dispatch(step: Step, event: dict) -> int:
    """With a `pr` input: repair that pull request's red CI; without: the spec files."""
    if step.config.pr is not None:
        return repair(step, step.config.pr, None)
    return on_specs(step, event)


HANDLERS: dict[str, Callable[[Step, dict], int]] = {
    "issues": on_issue,
    "issue_comment": on_comment,
    "schedule": on_specs,
    "workflow_dispatch": on_dispatch,
    "workflow_run": on_workflow_run,
    "pull_request_review": on_review,
    "pull_request_review_comment": on_review_comment,
    "check_run": on_check_run,
}


def outputs(outcomes: list[TaskOutcome], config: Config) -> dict[str, str]:
    """One task: its values. Several (spec files): passed only if all did, attempts summed, one
    line per pull request and report, and the strongest operation (created > updated > none)."""
    operations = {o.operation for o in outcomes}
    operation = next((op for op in ("created", "updated") if op in operations), "none")
    pulls = [o.pull for o in outcomes if o.pull is not None]
    comments = [config.shown(o.comment_path) for o in outcomes if o.comment_path]
    return ({"comment-path": "\n".join(comments)} if comments else {}) | {
        "passed": "true" if outcomes and all(o.passed for o in outcomes) else "false",
        "attempts": str(sum(o.attempts for o in outcomes)),
        "pr-number": "\n".join(str(p.number) for p in pulls),
        "pr-url": "\n".join(p.url for p in pulls),
        "pr-operation": operation,
        "report-path": "\n".join(config.shown(o.report_path) for o in outcomes if o.report_path),
    }


def plan(workspace: Path, pattern: str, only: str | None = None) -> str:
    """The matching spec files as a JSON array, for `strategy.matrix`."""
    return json.dumps(tasks.spec_files(workspace, pattern, only))


def plan_step(step: Step) -> int:
    matrix = plan(step.config.workspace, step.config.specs, step.config.only_spec)
    step.flow.print(f"autofix: specs: {matrix}")
    write_outputs(step.config.output, {"specs": matrix}, step.redact)
    return 0
