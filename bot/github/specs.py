"""On a schedule or a manual dispatch, each spec file whose target no longer passes its tests is
regenerated into one pull request from `autofix/spec-<name>`."""

from __future__ import annotations

from bot.core.report import Report
from bot.errors import UserError
from bot.github import lead, render, tasks
from bot.github.publish import Proposal, publish
from bot.github.step import Skip, Step, TaskOutcome, system_error
from bot.github.write import write_target


def on_specs(step: Step, event: dict) -> int:
    config = step.config
    files = tasks.spec_files(config.workspace, config.specs, config.only_spec)
    if not files:
        raise Skip(f"nothing to do: no spec file matches {config.specs}")
    step.setup()
    step.sandbox()
    code = 0
    for relpath in files:
        outcome = TaskOutcome()
        step.outcomes.append(outcome)
        try:
            code = max(code, regenerate(step, relpath, outcome))
        except (UserError, OSError) as exc:  # this spec is broken; the others still run
            error = exc if isinstance(exc, UserError) else system_error(exc)
            step.annotate_error(error)
            code = max(code, error.exit_code)
    return code


def regenerate(step: Step, relpath: str, outcome: TaskOutcome) -> int:
    spec = tasks.from_file(step.config, relpath)
    name = tasks.spec_name(relpath)
    sandbox = step.sandbox()
    current = spec.target_path.read_text(encoding="utf-8") if spec.target_path.is_file() else None
    checked = step.validator(spec).check(current) if current is not None else None
    if checked is not None and checked.passed:
        report = Report("", sandbox.describe(), spec.target, spec.max_attempts, passed=True, code=current)
        report.stop_reason = "the current code already passes its tests"
        step.flow.print(f"autofix: {relpath}: {spec.target} already passes its tests; nothing to do")
        outcome.verdict = lead.verdict(
            True,
            f"{render.code_span(spec.target)} already passes {lead.decided_by(spec.tests, checked.tests)}: "
            "nothing to do.",
        )
        step.finish(report, f"spec-{name}", outcome, f"### autofix: {render.code_span(spec.target)}")
        return 0
    report = write_target(step, spec, outcome, f"spec-{name}")
    what = f"{render.code_span(spec.target)} from {render.code_span(relpath)}"
    if not report.passed:
        outcome.verdict = lead.verdict(
            False,
            f"autofix could not regenerate {what}: {lead.decided_by(spec.tests)} failed "
            f"{lead.failed_attempts(report)}.",
        )
        step.flow.print(f"autofix: {relpath}: every attempt failed ({report.stop_reason}); no branch pushed")
        return 1
    outcome.verdict = lead.verdict(
        True,
        f"autofix regenerated {what}: {lead.decided_by(spec.tests, render.passed_tests(report))} passed "
        f"{lead.on_attempt(report)}.",
    )
    opening = [
        outcome.verdict,
        lead.change([spec.target], report),
        lead.links(("The Actions run", step.config.run_url)),
    ]
    proposal = Proposal(
        branch=f"autofix/spec-{name}",
        base=step.git.current_branch() or step.forge.default_branch(),
        title=f"Regenerate {spec.target}: its tests no longer passed"[:250],
        body=render.pull_body(report, render.marker("spec", name), opening, spec.tests),
        message=f"autofix: regenerate {spec.target} from {relpath}\n",
        named=(spec.target,),
    )
    try:
        publish(step, step.git, [spec.target], proposal, outcome)
    finally:
        step.git.restore([spec.target])  # the next spec starts from the checked-out code
    return 0
