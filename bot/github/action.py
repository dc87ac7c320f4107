"""`autofix action`: the step a GitHub Actions job runs, driven by the event that started it.

- `issues` / `labeled` with the configured label, by a user with write access: the issue is the
  task (the tests its yaml block names count only if its author has write access too); passing
  code becomes one pull request from `autofix/issue-<n>`; when every attempt fails, one comment on
  the issue (edited in place on re-runs) and no branch. Both name the tests that judged the code.
- `schedule` / `workflow_dispatch`: each spec file whose target no longer passes its tests is
  regenerated into one pull request from `autofix/spec-<name>`.
- `workflow_run` (a failed run of a pull request) / `workflow_dispatch` with input `pr`: red CI
  repair, see red_ci/repair.py.
- anything else: a one-line "not handled" and exit 0.

Exit codes: 0 done (or nothing to do), 1 attempts failed, 2 bad input/configuration/GitHub API,
3 the model service is down.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from bot.core.report import Attempt, Report
from bot.errors import ModelUnavailable, UserError
from bot.github import render, tasks
from bot.github.config import Config, RepoConfig, load_repo_config
from bot.github.forge import MAY_TRIGGER, Forge, PullResult
from bot.github.git import Git
from bot.github.workflow import Workflow, append_summary, write_outputs
from bot.redact import SECRET_NAME, Redactor
from bot.spec import Spec, Tests

SECRET_INPUTS = ("INPUT_GITHUB-TOKEN", "INPUT_OPENAI-API-KEY")
SETUP_TIMEOUT = 1800
LOCATED = re.compile(r"^(?P<file>[^:\s][^:]*):(?P<line>\d+)(?::\d+)?: ")


class Skip(Exception):
    """Nothing for autofix to do on this event: one line saying why, exit 0."""


@dataclass
class Outcome:
    """What one task led to, for the step's outputs and the job summary."""

    passed: bool = False
    attempts: int = 0
    pull: PullResult | None = None
    operation: str = "none"
    report: Report | None = None  # kept as soon as the loop starts, so an error can still show it
    report_path: Path | None = None
    comment_path: Path | None = None  # a CI repair's comment, for a job that posts it


@dataclass
class Step:
    config: Config
    flow: Workflow
    redact: Redactor
    outcomes: list[Outcome] = field(default_factory=list)
    _forge: Forge | None = None
    _git: Git | None = None

    @property
    def forge(self) -> Forge:
        if self._forge is None:
            c = self.config
            self._forge = Forge(c.api_url, c.token or "", c.repository, log=self.flow.print)
        return self._forge

    @property
    def git(self) -> Git:
        if self._git is None:
            c = self.config
            self._git = Git(c.workspace, c.server_url, c.basic_auth, self.redact)
        return self._git

    def for_github(self, markdown: str) -> str:
        """A body GitHub takes: secrets masked first, so a cut never leaves part of one."""
        return render.capped(self.redact(markdown))


def main(environ: Mapping[str, str], out: TextIO | None = None) -> int:
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
    step = Step(config, flow, redact)
    try:
        step.config = config = config.with_repo(load_repo_config(config.workspace, config.config_path))
        if config.plan:
            return plan_step(step)
        handler = HANDLERS.get(config.event_name)
        if handler is None:
            raise Skip(f"not handled: {config.event_name}")
        return handler(step, read_event(config))
    except Skip as why:
        flow.print(f"autofix: {why}")
        return 0
    except (UserError, ModelUnavailable) as exc:
        annotate_error(step, exc)
        return exc.exit_code
    finally:
        write_outputs(config.output, outputs(step.outcomes), redact)


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


# ----------------------------------------------------------------------------- issues


def on_issue(step: Step, event: dict) -> int:
    config, flow = step.config, step.flow
    if event.get("action") != "labeled":
        raise Skip(
            f"ignored: issues event {event.get('action')!r}: autofix starts when an issue is labeled {config.label!r}"
        )
    label = (event.get("label") or {}).get("name")
    if label != config.label:
        raise Skip(f"ignored: label {label!r} is not {config.label!r}")
    sender = event.get("sender") or {}
    login = str(sender.get("login", ""))
    if sender.get("type") == "Bot" or login.endswith("[bot]"):
        raise Skip(f"ignored: labeled by the bot @{login}; only people start autofix")
    if login == step.forge.own_login():
        raise Skip(f"ignored: labeled by autofix's own account @{login}")
    permission = step.forge.permission(login)
    if permission not in MAY_TRIGGER:
        raise Skip(
            f"ignored: @{login} has {permission} permission on {config.repository}; autofix needs write, maintain or admin"
        )
    issue = event.get("issue") or {}
    number = int(issue["number"])
    mark = render.marker("issue", number)
    flow.print(f"autofix: issue #{number}, labeled {config.label!r} by @{login} ({permission})")
    outcome = Outcome()
    step.outcomes.append(outcome)
    tests: Tests | None = None  # once known, the pull request and the comment name them
    try:
        # The payload's title and body are what the labeler saw; a later edit can't swap the task.
        task = tasks.Issue.read(number, str(issue.get("title") or ""), str(issue.get("body") or ""))
        spec = tasks.from_issue(
            config, task, task.block.tests is None or author_may_write(step, issue, login, permission)
        )
        tests = spec.tests
        run_setup(step)
        sandbox = open_sandbox(step)
        report = solve(step, spec, sandbox, outcome, f"issue-{number}")
        if report.passed:
            summary = render.passed_summary(report) + f" Requested in #{number}."
            body = render.pull_body(report, mark, summary, fixes=number, tests=tests)
            title = f"autofix: {' '.join(str(issue.get('title') or '').split())}"[:250]
            message = f"autofix: write {spec.target} for #{number}\n\nFixes #{number}\n"
            publish(step, spec, f"autofix/issue-{number}", title, body, message, outcome)
            retire_failure_comment(step, number, mark, outcome)
            return 0
        headline = f"autofix tried {len(report.attempts)} times to write {render.code_span(spec.target)}; the tests failed every time ({report.stop_reason})."
        comment = render.failure_comment(outcome.report, mark, headline, tests)
        operation = step.forge.upsert_comment(number, mark, step.for_github(comment))
        flow.print(f"autofix: every attempt failed; comment on #{number} {operation}; no branch pushed")
        return 1
    except (UserError, ModelUnavailable) as exc:
        headline = f"autofix stopped with an error:\n\n{render.fence(str(exc))}"
        try:
            step.forge.upsert_comment(
                number, mark, step.for_github(render.failure_comment(outcome.report, mark, headline, tests))
            )
        except UserError as unreported:  # the job's error annotation still tells
            annotate_error(step, unreported)
        raise


def author_may_write(step: Step, issue: dict, labeler: str, labeler_permission: str) -> bool:
    """Whether the issue's author, who may be anyone, not only the labeler, may set the tests that
    judge the code: write access, asked of the API. If not, the log says their tests were ignored."""
    author = str((issue.get("user") or {}).get("login", ""))
    permission = labeler_permission if author.lower() == labeler.lower() else step.forge.permission(author)
    if permission in MAY_TRIGGER:
        return True
    step.flow.print(
        f"autofix: issue #{issue['number']}: the yaml block's tests were ignored: its author @{author} has {permission} "
        f"permission on {step.config.repository}; the tests of {step.config.config_path} judge the code"
    )
    return False


def retire_failure_comment(step: Step, number: int, mark: str, outcome: Outcome) -> None:
    """A comment a failed run left would now mislead: it is edited to point at the pull request."""
    comment = step.forge.find_comment(number, mark)
    if comment is not None and outcome.pull is not None:
        step.forge.edit_comment(comment.id, f"{mark}\n\nautofix succeeded on a later run: see #{outcome.pull.number}.")


# ----------------------------------------------------------------------------- spec files


def on_specs(step: Step, event: dict) -> int:
    config = step.config
    files = tasks.spec_files(config.workspace, config.specs, config.only_spec)
    if not files:
        raise Skip(f"nothing to do: no spec file matches {config.specs}")
    run_setup(step)
    sandbox = open_sandbox(step)
    code = 0
    for relpath in files:
        outcome = Outcome()
        step.outcomes.append(outcome)
        try:
            code = max(code, regenerate(step, relpath, sandbox, outcome))
        except UserError as exc:  # this spec is broken; the others still run
            annotate_error(step, exc)
            code = max(code, exc.exit_code)
    return code


def regenerate(step: Step, relpath: str, sandbox, outcome: Outcome) -> int:
    from bot.judge.validate import Validator

    spec = tasks.from_file(step.config, relpath)
    name = tasks.spec_name(relpath)
    current = spec.target_path.read_text(encoding="utf-8") if spec.target_path.is_file() else None
    if current is not None and Validator(spec, sandbox).check(current).passed:
        outcome.passed = True
        report = Report("", sandbox.describe(), spec.target, spec.max_attempts, passed=True, code=current)
        report.stop_reason = "the current code already passes its tests"
        write_report(step, report, f"spec-{name}", outcome)
        step.flow.print(f"autofix: {relpath}: {spec.target} already passes its tests; nothing to do")
        append_summary(
            step.config.summary,
            f"### autofix: {relpath}\n\n{spec.target} already passes its tests: nothing to do.",
            step.redact,
        )
        return 0
    report = solve(step, spec, sandbox, outcome, f"spec-{name}")
    if not report.passed:
        step.flow.print(f"autofix: {relpath}: every attempt failed ({report.stop_reason}); no branch pushed")
        return 1
    mark = render.marker("spec", name)
    summary = render.passed_summary(report) + f" Regenerated from {render.code_span(relpath)}."
    body = render.pull_body(report, mark, summary, fixes=None, tests=spec.tests)
    message = f"autofix: regenerate {spec.target} from {relpath}\n"
    try:
        publish(step, spec, f"autofix/spec-{name}", f"autofix: regenerate {spec.target}", body, message, outcome)
    finally:
        step.git.restore([spec.target])  # the next spec starts from the checked-out code
    return 0


# ----------------------------------------------------------------------------- shared steps


def run_setup(step: Step) -> None:
    """The repository's `setup` command: installs dependencies, the one step with network."""
    from bot.sandbox.tiers import allowed_environ

    command = step.config.repo.setup
    if not command:
        return
    with step.flow.group("setup"):
        try:
            done = subprocess.run(
                ["/bin/sh", "-c", command], cwd=step.config.workspace, env=allowed_environ(), stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace", timeout=SETUP_TIMEOUT,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            raise UserError(f"{step.config.config_path}: setup: did not finish within {SETUP_TIMEOUT} s") from None
        step.flow.untrusted(done.stdout[-20_000:])
    if done.returncode != 0:
        raise UserError(f"{step.config.config_path}: setup: exited with code {done.returncode}")


def open_sandbox(step: Step):
    from bot.judge.validate import open_test_sandbox

    sandbox = open_test_sandbox(step.config.sandbox, "input sandbox", lambda text: step.flow.annotate("warning", text))
    step.flow.print(f"autofix: sandbox: {sandbox.describe()}")
    return sandbox


def open_model(config: Config, spec: Spec | RepoConfig, redact: Callable[[str], str]):
    """The configured model; every prompt it is sent is masked by `redact` first."""
    from bot.models.registry import PROVIDERS, Masked, ModelSettings
    from bot.models.registry import open_model as open_named

    name = config.model or spec.model
    if not name:
        raise UserError(f"no model configured: set the `model` input, or `model:` in {config.config_path} or the spec")
    if name.partition(":")[0] not in PROVIDERS and not (config.api_key or config.base_url):
        raise UserError("no API key: set the `openai-api-key` input (or `base-url` for a server that needs none)")
    settings = ModelSettings(
        name=name, api=config.api or spec.api or "responses", base_url=config.base_url, api_key=config.api_key
    )
    return Masked(open_named(settings), redact)


def solve(step: Step, spec: Spec, sandbox, outcome: Outcome, name: str) -> Report:
    """The repair loop, logged one group per attempt; the report is written however it ends."""
    from bot.core.loop import solve as repair_loop
    from bot.judge.validate import Validator

    model = open_model(step.config, spec, step.redact)
    step.flow.print(f"autofix: {model.banner}")
    report = outcome.report = Report(
        model=model.name, sandbox=sandbox.describe(), target=spec.target, max_attempts=spec.max_attempts
    )

    def show(attempt: Attempt) -> None:
        with step.flow.group(attempt.headline(spec.max_attempts)):
            step.flow.untrusted(attempt.feedback)

    try:
        repair_loop(spec, model, Validator(spec, sandbox), report, on_attempt=show)
    finally:
        outcome.attempts = len(report.attempts)
        outcome.passed = report.passed
        write_report(step, report, name, outcome)
        heading = f"### autofix: {render.code_span(spec.target)} — {'passed' if report.passed else 'failed'}"
        append_summary(step.config.summary, f"{heading}\n\n{render.log(report)}", step.redact)
    return report


def write_report(step: Step, report: Report, name: str, outcome: Outcome) -> None:
    path = step.config.temp / f"autofix-{name}.json"
    report.write(path, step.redact)
    outcome.report_path = path


def publish(step: Step, spec: Spec, branch: str, title: str, body: str, message: str, outcome: Outcome) -> None:
    """One commit on `branch`, pushed only when it changes the branch; one pull request for it."""
    git, forge, flow = step.git, step.forge, step.flow
    base = git.current_branch() or forge.default_branch()
    commit, tree = git.commit([spec.target], message)
    remote = git.remote_branch(branch)
    body = step.for_github(body)
    if remote is not None and remote[1] == tree:
        existing = forge.open_pull(branch, base)
        if existing is not None:
            outcome.pull = PullResult("none", existing.number, existing.url)
            flow.print(f"autofix: {branch} already holds this code; pull request #{existing.number} left as it is")
            return
    else:
        git.push(commit, branch, remote[0] if remote else None)
        flow.print(f"autofix: pushed {branch}")
    outcome.pull = forge.upsert_pull(branch, base, title, body, step.config.draft)
    outcome.operation = outcome.pull.operation
    flow.print(f"autofix: pull request #{outcome.pull.number} {outcome.pull.operation}: {outcome.pull.url}")


# ----------------------------------------------------------------------------- outputs, plan, errors


def outputs(outcomes: list[Outcome]) -> dict[str, str]:
    """One task: its values. Several (spec files): passed only if all did, attempts summed, one
    line per pull request and report, and the strongest operation (created > updated > none)."""
    operations = {o.operation for o in outcomes}
    operation = next((op for op in ("created", "updated") if op in operations), "none")
    pulls = [o.pull for o in outcomes if o.pull is not None]
    comments = [str(o.comment_path) for o in outcomes if o.comment_path]
    return ({"comment-path": "\n".join(comments)} if comments else {}) | {
        "passed": "true" if outcomes and all(o.passed for o in outcomes) else "false",
        "attempts": str(sum(o.attempts for o in outcomes)),
        "pr-number": "\n".join(str(p.number) for p in pulls),
        "pr-url": "\n".join(p.url for p in pulls),
        "pr-operation": operation,
        "report-path": "\n".join(str(o.report_path) for o in outcomes if o.report_path),
    }


def plan(workspace: Path, pattern: str, only: str | None = None) -> str:
    """The matching spec files as a JSON array, for `strategy.matrix`."""
    return json.dumps(tasks.spec_files(workspace, pattern, only))


def plan_step(step: Step) -> int:
    matrix = plan(step.config.workspace, step.config.specs, step.config.only_spec)
    step.flow.print(f"autofix: specs: {matrix}")
    write_outputs(step.config.output, {"specs": matrix}, step.redact)
    return 0


def annotate_error(step: Step, exc: Exception) -> None:
    """One error annotation, on the file and line the message names when it names one."""
    message = str(exc)
    found = LOCATED.match(message)
    if found is None:
        step.flow.annotate("error", message)
        return
    workspace = step.config.workspace
    file = Path(found["file"])
    if file.is_absolute() and file.is_relative_to(workspace):
        file = file.relative_to(workspace)
    if file.is_absolute() or not (workspace / file).is_file():  # e.g. "issue #3, yaml block:2:"
        step.flow.annotate("error", message)
        return
    step.flow.annotate("error", message, file=str(file), line=int(found["line"]))


def on_workflow_run(step: Step, event: dict) -> int:
    from bot.github.red_ci import repair as ci_repair

    return ci_repair.on_workflow_run(step, event)


def on_dispatch(step: Step, event: dict) -> int:
    """With a `pr` input: repair that pull request's red CI; without: the spec files."""
    if step.config.pr is not None:
        from bot.github.red_ci import repair as ci_repair

        return ci_repair.repair(step, step.config.pr, None)
    return on_specs(step, event)


HANDLERS = {"issues": on_issue, "schedule": on_specs, "workflow_dispatch": on_dispatch, "workflow_run": on_workflow_run}
