"""Red CI repair: a pull request's tests failed; reproduce, fix the code (never the tests), prove
it with the whole suite, and propose the fix.

Started by a failed `workflow_run` of a pull request, or by `workflow_dispatch` with input `pr`.
The pull request's head is checked out in a folder of its own, without `.git`; the suite runs
there twice (the baseline: what fails both times is the target, what flips is flaky); the model
answers with search/replace edits; each candidate is judged by the whole suite in a clean copy
(bot/judge/gate.py). A passing fix's changed lines are then mutated and judged by the tests it had
to make pass (bot/core/proof.py): when none of them fails a mutant, the fix is proposed as unproven.

Trust: the test command, `setup`, the protected paths and `edit` come from the workspace — the
default branch actions/checkout gave the job — never from the pull request, whose code only ever
runs inside the sandbox. A pull request from a fork gets a comment with the patch, never a push,
and only in the read-only shape of FORKS_EXAMPLE (`publish: false`): anywhere else its code would
run in a job whose token can write, and autofix refuses (`refuse_fork`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bot.core.edits import FORMAT_HELP
from bot.core.gated import EditTree, GateJudge
from bot.core.loop import run
from bot.core.proof import ProofJudge
from bot.core.protocol import Budget
from bot.core.report import Attempt, Report
from bot.core.workspace import Workspace
from bot.errors import ModelUnavailable, UserError
from bot.github import lead, progress, render
from bot.github.forge import PullInfo, RunInfo
from bot.github.git import Git
from bot.github.publish import Proposal, publish
from bot.github.red_ci import evidence, named
from bot.github.step import Skip, Step, TaskOutcome
from bot.judge import gate
from bot.models.prices import price_of
from bot.spec import DEFAULT_PROTECT, Tests, protected_by_command
from bot.text import count
from bot.visible import plain

FORKS_EXAMPLE = "examples/workflows/autofix-red-ci-forks.yml"
SUITE_TIMEOUT = 600.0  # seconds for one run of the whole suite, unless `timeout` says otherwise
CHANGED = re.compile(r"^diff --git a/.+? b/(?P<path>.+)$", re.M)
SYSTEM = (
    "[autofix:repair] You repair the code of a pull request whose tests fail in CI. Change the code under test, "
    "never the tests or the CI configuration: edits to them are refused. Keep the change small, "
    "and don't break tests that pass.\n\n" + FORMAT_HELP
)


def on_workflow_run(step: Step, event: dict) -> int:
    run = event.get("workflow_run") or {}
    if event.get("action") != "completed":
        raise Skip(f"ignored: workflow_run event {event.get('action')!r}: autofix repairs completed runs")
    if run.get("conclusion") != "failure":
        raise Skip(f"ignored: run {run.get('id')} concluded {run.get('conclusion')!r}; autofix repairs failed runs")
    if str(run.get("head_branch") or "").startswith("autofix/"):
        raise Skip(f"ignored: run {run.get('id')} is of autofix's own branch {run['head_branch']}")
    info = RunInfo(int(run["id"]), str(run.get("html_url") or ""), str(run.get("head_sha") or ""))
    repository = step.config.repository.lower()
    # GitHub lists a run's pull requests only when they are in this repository; a fork's are looked up.
    listed = [
        p["number"]
        for p in run.get("pull_requests") or []
        if str(p["base"]["repo"].get("url", "")).lower().endswith("/repos/" + repository)
    ]
    head_owner = ((run.get("head_repository") or {}).get("owner") or {}).get("login")
    number = listed[0] if listed else step.forge.pull_of_commit(info.head_sha, f"{head_owner}:{run.get('head_branch')}")
    if number is None:
        raise Skip(
            f"ignored: run {info.id} ({run.get('head_branch')} at {info.head_sha[:12]}) belongs to no open pull request"
        )
    return repair(step, int(number), info)


def repair(step: Step, number: int, run: RunInfo | None) -> int:
    config, flow, forge = step.config, step.flow, step.forge
    command = config.repo.tests.command
    if not command:
        raise UserError(
            f"{config.config_path}: tests.command: red CI repair needs the command that runs the repository's tests"
        )
    pull = forge.pull(number)
    if pull.state != "open":
        raise Skip(f"ignored: pull request #{number} is {pull.state}")
    fork = pull.head_repo.lower() != config.repository.lower()
    if not fork and pull.head_ref.startswith("autofix/"):
        raise Skip(f"ignored: pull request #{number} is autofix's own ({pull.head_ref})")
    if run is not None and run.head_sha != pull.head_sha:
        raise Skip(
            f"ignored: pull request #{number} moved on from {run.head_sha[:12]} to {pull.head_sha[:12]}; "
            "the run of its new head decides"
        )
    if fork and config.publish:  # publish: true means this job's token can write
        return refuse_fork(step, pull, "repairing its red CI")
    run = run or forge.failed_run(pull.head_sha)
    where = f"the fork {pull.head_repo or '(deleted)'}" if fork else f"branch {pull.head_ref}"
    flow.print(
        f"autofix: pull request #{number} from {where} at {pull.head_sha[:12]}; "
        f"failed run: {run.url if run else 'none found'}"
    )
    outcome = TaskOutcome()
    step.outcomes.append(outcome)
    mark = render.marker("pr", number)
    status = progress.Progress(step, number, mark)  # the comment `post` writes, shown early
    try:
        status.stage("starting")
        head = step.git.fetch_pull(number, pull.base_ref)
        if head != pull.head_sha:
            raise UserError(
                f"origin's refs/pull/{number}/head is {head[:12]} but GitHub says {pull.head_sha[:12]}; run again"
            )
        diff = step.git.pull_diff(number)
        step.setup()
        sandbox = step.sandbox()
        with step.checkout(head, f"autofix-pr-{number}-") as tree:
            protected = protected_paths(step) + protected_by_command(command, tree.workdir)  # the head's Makefile
            work = Workspace(tree.workdir, protected, tuple(config.repo.edit))
            return Repair(step, pull, run, fork, mark, outcome, tree, status).run(command, work, diff, sandbox)
    except (UserError, ModelUnavailable, OSError) as exc:

        def comment(headline: str) -> None:
            outcome.verdict = headline.partition("\n")[0].rstrip(":") + "."
            log = render.log(outcome.report) if outcome.report is not None and outcome.report.attempts else ""
            post(step, number, "\n\n".join(part for part in (mark, headline, log) if part), outcome)

        raise step.tell_error(exc, " while repairing this pull request's tests", comment) from None


def refuse_fork(step: Step, pull: PullInfo, asked: str) -> int:
    """One comment instead of running a fork's code in a job that can write: nothing of the fork is
    fetched, checked out or shown to a model. The comment carries the repair's marker, so the forks
    example's own comment later replaces it."""
    fork = pull.head_repo or "a deleted fork"
    body = (
        f"{render.marker('pr', pull.number)}\n\nautofix did not run: this pull request comes from the fork "
        f"{render.code_span(fork)}, and {asked} here would run its code in a job whose token can write to this "
        "repository. A fork's pull request is repaired only in the read-only shape of "
        f'{render.code_span(FORKS_EXAMPLE)} (docs/action.md, "Red CI repair", *Forks, safely*): '
        "the job that runs its code holds a read-only token with "
        '`publish: "false"`, and a second job, which runs none of it, posts the patch as a comment.'
    )
    step.flow.annotate(
        "warning", f"pull request #{pull.number} comes from the fork {fork}: not run here; see {FORKS_EXAMPLE}"
    )
    outcome = TaskOutcome()
    step.outcomes.append(outcome)
    post(step, pull.number, body, outcome)
    return 0


def protected_paths(step: Step) -> tuple[str, ...]:
    return DEFAULT_PROTECT + tuple(step.config.repo.tests.protect) + (step.config.config_path,)


class Repair:
    def __init__(
        self,
        step: Step,
        pull: PullInfo,
        run: RunInfo | None,
        fork: bool,
        mark: str,
        outcome: TaskOutcome,
        tree: Git,
        status: progress.Progress,
    ):
        self.step, self.pull, self.run_info, self.fork, self.mark, self.outcome = step, pull, run, fork, mark, outcome
        self.tree = tree  # git on the folder holding the pull request's head, which the model edits
        self.status = status
        self.verdict: gate.Judgement | None = None  # the last judged candidate's
        self.judge: ProofJudge | None = None

    def run(self, command: str, work: Workspace, diff: str | None, sandbox) -> int:
        step, config, number = self.step, self.step.config, self.pull.number
        suite = gate.Suite(
            sandbox,
            command,
            work.protected,
            config.repo.timeout or SUITE_TIMEOUT,
            tuple(config.repo.tests.exempt),
            config.jobs,
        )
        self.status.stage("measuring the baseline")
        step.preload_model(config.repo)
        base = step.git.pull_base(number)
        # The failed run's logs: evidence for the model, and the tests they name run early (named.py).
        logs, missing = step.forge.failed_job_logs(self.run_info.id) if self.run_info else ([], None)
        if missing:
            step.flow.print(f"autofix: {missing}")
        with step.flow.group("baseline: the suite at the pull request's head; what failed, again and at its base"):
            with self.base_tree(base) as base_folder:
                expected = named.failing_tests(logs, work.root)
                baseline = gate.Baseline.measure(suite, work.root, base_folder, expected)
            step.flow.untrusted(baseline.first.output)
        for line in baseline.ran:
            step.flow.print(f"autofix: baseline ran {line}")
        step.flow.print(
            f"autofix: baseline: {baseline.total} tests, {len(baseline.target)} failing in both runs"
            f"{', flaky: ' + ', '.join(baseline.flaky) if baseline.flaky else ''}"
        )
        if not baseline.target:
            post(step, number, "\n\n".join([self.mark, self.not_reproduced(baseline)]), self.outcome)
            step.flow.print("autofix: the failure did not reproduce; nothing else was done")
            return 0
        baseline = self.at_base(baseline, base)
        if not baseline.target:
            post(step, number, "\n\n".join([self.mark, self.not_caused(baseline)]), self.outcome)
            step.flow.print("autofix: every failing test fails at the base too; nothing else was done")
            return 0
        pr_paths = [m["path"] for m in CHANGED.finditer(diff or "")]

        def context() -> str:  # built afresh for each attempt: it shows the files as they are now
            return evidence.build(baseline, work, pr_paths, diff, logs)

        model = step.model(config.repo)
        attempts = config.max_attempts or config.repo.max_attempts or 3
        report = self.outcome.report = Report(
            model=model.name, sandbox=sandbox.describe(), target=f"pull request #{number}", max_attempts=attempts
        )
        report.price = price_of(model.name, config.repo.price)
        report.spec, report.task = config.config_path, f"pull request #{number}: {' '.join(self.pull.title.split())}"
        judge = self.judge = ProofJudge(GateJudge(suite, baseline, work), baseline.target, [], report)
        budget = Budget(attempts, config.max_tokens)
        try:
            title = plain(self.pull.title).text  # a title is shown as text: its invisible characters removed
            intro = (
                f"Pull request #{number} ({' '.join(title.split())[:200]}) fails its tests. "
                "Make the failing tests pass by changing the code, not the tests, "
                "without breaking any test that passes now."
            )
            answer = EditTree(SYSTEM, intro, work, context)
            run(
                answer, judge, model, budget, report, on_attempt=self.show, on_stage=self.status.stage,
                restart=answer.restarted, strategy=config.repo.loop_strategy,
            )  # fmt: skip
        finally:
            self.verdict = judge.verdict
            details = f"{self.proof(baseline)}\n\n{render.log(report)}"
            step.finish(report, f"pr-{number}", self.outcome, f"### autofix: pull request #{number}", details)
        if report.passed:
            self.propose(work, baseline, report)
            return 0
        self.outcome.verdict = lead.verdict(
            False,
            f"autofix reproduced the failure{self.of_run()} but could not fix it: no attempt made the "
            f"{count(len(baseline.target), 'failing test')} pass with every other test still passing, "
            f"{lead.failed_attempts(report)}.",
        )
        closing = (
            f"_No branch was pushed. To try again, re-run the failed workflow, or run autofix with `pr: {number}`, "
            "or comment `/autofix` here._"
        )
        parts = [self.mark, self.outcome.verdict, self.links(), render.tried(report), self.proof(baseline)]
        post(step, number, "\n\n".join(filter(None, [*parts, render.log(report), closing])), self.outcome)
        step.flow.print("autofix: every attempt failed; no branch pushed")
        return 1

    def show(self, attempt: Attempt) -> None:
        with self.step.flow.group(attempt.headline(self.outcome.report.max_attempts if self.outcome.report else 0)):
            self.step.flow.untrusted(attempt.feedback or attempt.diff)

    @contextmanager
    def base_tree(self, base: str | None) -> Iterator[Path | None]:
        """The commit the pull request branched from, checked out for the baseline's run there
        (side by side with the flake check), or None when the clone lacks it."""
        if base is None:
            yield None
            return
        with self.step.checkout(base, f"autofix-base-{self.pull.number}-") as tree:
            yield tree.workdir

    def at_base(self, baseline: gate.Baseline, base: str | None) -> gate.Baseline:
        """The failing tests as they ran at the commit the pull request branched from: what fails
        there too is pre-existing, not the pull request's to fix, and never counted against a candidate."""
        step = self.step
        at_base = baseline.at_base
        if base is None or at_base is None:
            step.flow.print(
                "autofix: the pull request's base isn't in this clone (check out with `fetch-depth: 0`); "
                "every failing test counts as the pull request's"
            )
            return baseline
        with step.flow.group(f"baseline: the failing tests at the base the pull request branched from ({base[:12]})"):
            step.flow.untrusted(at_base.output)
        separated = baseline.without_pre_existing(at_base)
        if separated.pre_existing and not separated.target and baseline.errored_everywhere:
            first = next(iter(baseline.first.results.values()))
            raise UserError(
                f"{step.config.config_path}: every test errors at the pull request's head and at its base too "
                f"({first.test_id}: {first.message}); the suite can't run in this environment: check `setup`"
            )
        if separated.pre_existing:
            step.flow.print(
                f"autofix: {len(separated.pre_existing)} failing tests fail at the base too (pre-existing, "
                f"not counted): {', '.join(separated.pre_existing)}"
            )
        return separated

    def not_caused(self, baseline: gate.Baseline) -> str:
        return self.nothing_done(
            f"autofix reproduced the failure{self.of_run()}, but every test that fails at "
            f"{render.code_span(self.pull.head_sha[:12])} fails at the base the pull request branched from too: "
            f"{render.names(baseline.pre_existing)}. This pull request didn't break them; nothing else was done."
        )

    def nothing_done(self, line: str) -> str:
        """The comment's text, and the job summary's, when autofix stops before any attempt."""
        self.outcome.verdict = lead.verdict(False, line)
        self.outcome.summary = [f"### autofix: pull request #{self.pull.number}", ""]
        return f"{self.outcome.verdict}\n\n{self.links()}".rstrip()

    def links(self) -> str:
        return lead.links(("The Actions run", self.step.config.run_url))

    def proof(self, baseline: gate.Baseline) -> str:
        verdict = self.verdict
        after = (len(verdict.still_failing), len(verdict.newly_broken)) if verdict else None
        proof = render.baseline_proof(baseline.total, baseline.target, after, baseline.flaky, baseline.pre_existing)
        strength = self.judge.strength if self.judge is not None else None
        if strength is None or not self.unproven:  # the log's test strength gives the figures
            return proof
        return f"{proof} **Unproven:** the failing tests fail none of {count(strength.total, 'mutant')} of the fix."

    @property
    def unproven(self) -> bool:
        return self.judge is not None and self.judge.unproven

    def still_passing(self) -> str:
        """How many tests the passing whole-suite run counted: "31 tests of `pytest -q` pass" (its
        report's passed cases, canaries sifted out), or, for a command judged by its exit code,
        that every other test still passes."""
        judge = self.judge
        passed = judge.run.ids("passed") if judge is not None and judge.run is not None else set()
        if judge is None or not passed:
            return "every other test still passes"
        return f"{lead.decided_by(Tests(command=judge.inner.suite.command), len(passed))} pass".removeprefix("the ")

    def of_run(self) -> str:
        return f" of [run {self.run_info.id}]({self.run_info.url})" if self.run_info else ""

    def not_reproduced(self, baseline: gate.Baseline) -> str:
        sha = render.code_span(self.pull.head_sha[:12])
        if baseline.flaky:
            flaky = ", ".join(render.code_span(t) for t in baseline.flaky)
            found = f"the tests that failed passed when run again at {sha}: flaky: {flaky}"
        else:
            found = f"all {baseline.total} tests passed at {sha} in autofix's sandbox"
        return self.nothing_done(
            f"autofix could not reproduce the failure{self.of_run()}: {found}. The failure may be flaky or specific "
            "to the CI environment; nothing else was done."
        )

    def propose(self, work: Workspace, baseline: gate.Baseline, report: Report) -> None:
        step, pull = self.step, self.pull
        proof = self.proof(baseline)
        failing = count(len(baseline.target), "test")
        others = self.still_passing()
        self.outcome.verdict = lead.verdict(
            True,
            f"autofix proposes a fix for the failing tests of #{pull.number}, unproven: the {failing} that failed"
            f"{self.of_run()} pass after it, but fail none of its mutants; {others}, {lead.on_attempt(report)}."
            if self.unproven
            else f"autofix fixed the failing tests of #{pull.number}: the {failing} that failed{self.of_run()} pass "
            f"after the change, and {others}, {lead.on_attempt(report)}.",
        )
        change = lead.change(work.changed, report)
        if self.fork or not step.config.publish:
            why = (
                "this pull request comes from a fork, so autofix pushes nothing"
                if self.fork
                else "`publish` is false, so autofix pushes nothing"
            )
            apply = f"{why}: apply the patch with `git apply`.\n\n{render.fence(work.patch(), 'diff')}"
            parts = [self.mark, self.outcome.verdict, change, self.links(), apply, proof, render.log(report)]
            post(step, pull.number, "\n\n".join(filter(None, parts)), self.outcome)
            return
        title = f"Fix the failing tests of #{pull.number}"
        into = " · ".join(filter(None, [f"Into #{pull.number}", self.links()]))
        log = render.log(report)
        proposal = Proposal(
            branch=f"autofix/pr-{pull.number}",
            base=pull.head_ref,  # into the pull request's own branch
            title=title,
            body="\n\n".join(
                filter(None, [render.marker("pr-fix", pull.number), self.outcome.verdict, change, into, proof, log])
            ),
            message=f"{title}\n\nChanged by autofix; the whole suite passed in its sandbox.\n",
            what="fix",
            draft=self.unproven,
        )
        publish(step, self.tree, work.changed, proposal, self.outcome)
        opened = self.outcome.pull
        assert opened is not None  # publish sets it or raises
        branch = render.code_span(pull.head_ref)
        nxt = f"**Next:** review #{opened.number}, which goes into this branch ({branch}), and merge it."
        parts = [self.mark, self.outcome.verdict, nxt, change, render.diff(work.patch()), self.links(), proof]
        post(step, pull.number, "\n\n".join(filter(None, [*parts, render.log(report)])), self.outcome)


def post(step: Step, number: int, body: str, outcome: TaskOutcome) -> None:
    """The one autofix comment on the pull request (edited in place on re-runs), also kept as a
    file; with `publish: false` only the file, for a later job with write permission to post."""
    body = step.for_github(body)
    path = outcome.comment_path = step.write_out(f"autofix-pr-{number}.md", body + "\n")
    if not step.config.publish:
        step.flow.print(f"autofix: publish is false: the comment for #{number} is in {path}")
        return
    operation = step.forge.upsert_comment(number, render.marker("pr", number), body)
    outcome.commented = number
    step.flow.print(f"autofix: comment on #{number} {operation}")
