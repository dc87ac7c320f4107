"""The flows that write a whole target file (issues, spec files): the repair loop, logged one group
per attempt, its report finished however the loop ends."""

from __future__ import annotations

from collections.abc import Callable

from bot.core.loop import solve
from bot.core.report import Attempt, Report
from bot.github import render
from bot.github.step import Step, TaskOutcome
from bot.spec import Spec


def write_target(
    step: Step,
    spec: Spec,
    outcome: TaskOutcome,
    name: str,
    on_stage: Callable[[str], None] = lambda stage: None,
    hidden: str = "",
) -> Report:
    """`on_stage` gets the label of each attempt as it starts (the issue's status comment); `hidden`,
    what of the task's text no reader saw and no prompt got, goes in the report's notes."""
    sandbox = step.sandbox()
    model = step.model(spec)
    report = outcome.report = Report(
        model=model.name, sandbox=sandbox.describe(), target=spec.target, max_attempts=spec.max_attempts
    )
    if hidden:
        report.notes.append(f"removed before prompting: {hidden}")

    def show(attempt: Attempt) -> None:
        with step.flow.group(attempt.headline(spec.max_attempts)):
            step.flow.untrusted(attempt.feedback)

    def note(text: str) -> None:
        step.flow.print(f"autofix: note: {text}")

    try:
        solve(spec, model, step.validator(spec), report, on_attempt=show, on_note=note, on_stage=on_stage)
    finally:
        step.finish(report, name, outcome, f"### autofix: {render.code_span(spec.target)}", render.log(report))
    return report
