"""An issue labeled `autofix` by someone with write access is the task: passing code becomes one
pull request from `autofix/issue-<n>`; when every attempt fails, one comment on the issue (edited in
place on re-runs) and no branch. Both name the tests that judged the code. The tests the issue's
yaml block names count only if its author has write access too."""

from __future__ import annotations

from dataclasses import replace

from bot.errors import ModelUnavailable, UserError
from bot.github import freeform, lead, progress, render, tasks
from bot.github.forge import MAY_TRIGGER
from bot.github.publish import Proposal, publish
from bot.github.step import Skip, Step, TaskOutcome
from bot.github.write import write_target
from bot.spec import Tests
from bot.visible import visible


def on_issue(step: Step, event: dict) -> int:
    config, flow = step.config, step.flow
    if event.get("action") != "labeled":
        raise Skip(
            f"ignored: issues event {event.get('action')!r}: autofix starts when an issue is labeled {config.label!r}"
        )
    label = (event.get("label") or {}).get("name")
    if label != config.label:
        raise Skip(f"ignored: label {label!r} is not {config.label!r}")
    login, permission = writer(step, event.get("sender") or {}, "labeled")
    issue = event.get("issue") or {}
    flow.print(f"autofix: issue #{issue['number']}, labeled {config.label!r} by @{login} ({permission})")
    progress.react(step, int(issue["number"]))
    return solve(step, issue, login, permission)


def writer(step: Step, sender: dict, did: str) -> tuple[str, str]:
    """The person who `did` what starts autofix, and their permission, asked of the API; Skip for
    a bot or anyone without write access. autofix's own account is a person's when its token is a
    personal access token: their label or `/autofix` counts (comments.py skips autofix's own comments)."""
    login = str(sender.get("login", ""))
    if sender.get("type") == "Bot" or login.endswith("[bot]"):
        raise Skip(f"ignored: {did} by the bot @{login}; only people start autofix")
    permission = step.forge.permission(login)
    if permission not in MAY_TRIGGER:
        raise Skip(
            f"ignored: @{login} has {permission} permission on {step.config.repository}; "
            "autofix needs write, maintain or admin"
        )
    return login, permission


def solve(step: Step, issue: dict, login: str, permission: str, instructions: str = "") -> int:
    """The labeled (or `/autofix`-commented) issue's task; `instructions`, a writer's comment, are
    added to the task, never to the yaml block: the block is the issue author's."""
    config, flow = step.config, step.flow
    number = int(issue["number"])
    mark = render.marker("issue", number)
    outcome = TaskOutcome(asked=number)
    step.outcomes.append(outcome)
    tests: Tests | None = None  # once known, the pull request and the comment name them
    status = progress.Progress(step, number, mark)

    def comment(headline: str, *more: str) -> str:
        opening = [headline, *more, lead.links(("The Actions run", config.run_url))]
        body = render.failure_comment(outcome.report, mark, opening, tests)
        outcome.commented = number
        return step.forge.upsert_comment(number, mark, step.for_github(body))

    try:
        status.stage("starting")
        # The payload's title and body are what the labeler saw; a later edit can't swap the task.
        task = tasks.Issue.read(number, str(issue.get("title") or ""), str(issue.get("body") or ""))
        if instructions:
            shown = visible(instructions)
            asked = f"Instructions from @{login}, who asked autofix:\n\n{shown.text}"
            task = replace(task, body=f"{task.body}\n\n{asked}", hidden=task.hidden + shown)
        # A reviewer learns that the issue said more than it showed, and how much.
        hidden = f" Removed from the issue before prompting: {task.hidden.removed}." if task.hidden.removed else ""
        if hidden:
            flow.print(f"autofix: issue #{number}: removed before prompting: {task.hidden.removed}")
        block = task.block
        if not block.target:
            flow.print(f"autofix: issue #{number} names no target: the free-form flow finds the code")
            command = None
            asked = " and ".join(key for key in ("tests", "files") if getattr(block, key))
            if asked and not author_may_write(step, issue, login, permission, asked):
                task = replace(task, block=block.model_copy(update={"files": None}))  # its tests aren't read below
            elif block.tests:
                command = block.tests.get("command")
                if not isinstance(command, str) or not command.strip():
                    raise UserError(
                        f"issue #{number}, yaml block: tests.command: must be the command that runs the tests"
                    )
            return freeform.solve(step, task, outcome, mark, status, command)
        # asked even without tests: an outsider's block may name a source file only (tasks.from_issue)
        writes = author_may_write(step, issue, login, permission, "tests" if block.tests else "")
        spec = tasks.from_issue(config, task, writes)
        tests = spec.tests
        step.setup()
        report = write_target(step, spec, outcome, f"issue-{number}", status.stage, task.hidden.removed)
        decided = lead.decided_by(tests)
        if report.passed:
            wrote = f"autofix wrote {render.code_span(spec.target)} for #{number}"
            line = f"{wrote}: {lead.decided_by(tests, render.passed_tests(report))} passed {lead.on_attempt(report)}."
            outcome.verdict = lead.verdict(True, line)
            closes = " · ".join(
                part for part in (f"Fixes #{number}", lead.links(("The Actions run", config.run_url))) if part
            )
            proposal = Proposal(
                branch=f"autofix/issue-{number}",
                base=step.git.current_branch() or step.forge.default_branch(),
                title=lead.title(task.title),
                body=render.pull_body(
                    report, mark, [outcome.verdict, lead.change([spec.target], report), closes + hidden], tests
                ),
                message=f"autofix: write {spec.target} for #{number}\n\nFixes #{number}\n",
                named=(spec.target,),
            )
            publish(step, step.git, [spec.target], proposal, outcome)
            if not status.linked(outcome.pull):
                retire_failure_comment(step, number, mark, outcome)
            return 0
        last = lead.still_failing(report)
        failing = f", {len(last)} still failing at the end" if last else ""
        outcome.verdict = lead.verdict(
            False,
            f"autofix could not write {render.code_span(spec.target)} for #{number}: {decided} failed "
            f"{lead.failed_attempts(report)}{failing}.",
        )
        operation = comment(outcome.verdict + hidden)
        flow.print(f"autofix: every attempt failed; comment on #{number} {operation}; no branch pushed")
        return 1
    except (UserError, ModelUnavailable, OSError) as exc:
        raise step.tell_error(exc, "", comment) from None


def author_may_write(step: Step, issue: dict, labeler: str, labeler_permission: str, ignored: str) -> bool:
    """Whether the issue's author, who may be anyone, not only the labeler, may set the tests that
    judge the code: write access, asked of the API. If not, the log says what of the yaml block,
    `ignored` ("tests", "files", both or nothing), was ignored."""
    author = str((issue.get("user") or {}).get("login", ""))
    permission = labeler_permission if author.lower() == labeler.lower() else step.forge.permission(author)
    if permission in MAY_TRIGGER:
        return True
    if ignored:
        judged = f"; the tests of {step.config.config_path} judge the code" if "tests" in ignored else ""
        step.flow.print(
            f"autofix: issue #{issue['number']}: the yaml block's {ignored} were ignored: its author @{author} has "
            f"{permission} permission on {step.config.repository}{judged}"
        )
    return False


def retire_failure_comment(step: Step, number: int, mark: str, outcome: TaskOutcome) -> None:
    """A comment a failed run left would now mislead: it is edited to point at the pull request."""
    comment = step.forge.find_comment(number, mark)
    if comment is not None and outcome.pull is not None:
        step.forge.edit_comment(comment.id, f"{mark}\n\nautofix succeeded on a later run: see #{outcome.pull.number}.")
