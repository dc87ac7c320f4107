"""A free-form issue: prose, perhaps a traceback, no target. autofix finds the code, proves the bug
with a test that fails, and fixes it until that test passes and nothing else breaks:

  baseline   the repository's suite as it is, twice (what fails is pre-existing, not counted)
  localize   the repository map ranked toward what the issue names; the model picks files
  reproduce  the model writes a test file in the suite's framework (pytest's; a JavaScript
             runner's beside the repository's tests; a `_test.go` file in the package the code
             localized lives in); accepted only when it fails on the current code
  repair     edit blocks over the repository, judged by the gate: the reproduction passes, no
             test that passed before fails, errors, is skipped or goes missing (bot/judge/gate.py)
  publish    one pull request holding the test and the fix, with the proof line

No reproduction, no guess: one comment says what was tried, unless `allow-unproven` lets the
suite alone judge a draft. The test command, `setup` and the protected paths come from
`.github/autofix.yml`, never from the issue."""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

from bot.core import freeform as pipeline
from bot.core.proof import ProofJudge
from bot.core.report import Attempt, Report
from bot.core.reproduce import Tried, fence_of
from bot.core.workspace import Workspace
from bot.errors import ModelUnavailable, UserError
from bot.github import lead, progress, render
from bot.github.git import Git
from bot.github.publish import Proposal, publish
from bot.github.step import Skip, Step, TaskOutcome
from bot.github.tasks import DEFAULT_ATTEMPTS, Issue
from bot.judge import gate
from bot.judge.go import command as go_command
from bot.judge.js.command import Started, runner_of
from bot.models.prices import price_of
from bot.spec import DEFAULT_PROTECT, Tests, protected_by_command
from bot.text import count, fence
from bot.visible import plain, visible

SUITE_TIMEOUT = 600.0
# A JavaScript test file, as Jest's, Vitest's and node:test's default patterns find one.
JS_TEST = re.compile(r"(?:^|/)(?:__tests__/[^/]+|test/[^/]+|[^/]+\.(?:test|spec))\.[cm]?[jt]sx?$")
JS_SUFFIX = re.compile(r"(?:\.(?:test|spec))?(?P<ext>\.[cm]?[jt]sx?)$")
# A Go test file go test runs: not in vendor/ or testdata/, nor a folder go ignores (`_x`, `.x`).
GO_TEST = re.compile(r"^(?!(?:.*/)?(?:vendor|testdata|[_.][^/]*)/)(?:.*/)?[^/_.][^/]*_test\.go$")


@dataclass(frozen=True)
class Request:
    """What is asked and where the answer goes."""

    number: int  # the issue or pull request autofix comments on
    kind: str  # "issue" or "pr": names the branch, the test file and the report
    title: str
    text: str  # the task: the issue, or the comment's request
    files: list[str]  # the files its author named
    max_attempts: int | None  # the author's, which can only lower the repository's
    base: str  # the branch the proposal goes into
    fork: bool = False  # a fork's pull request: the patch goes in a comment, nothing is pushed
    command: str | None = None  # the issue's own test command, set by a writer; else the repository's
    hidden: str = ""  # what of the text no reader saw, removed before prompting: "1 HTML comment, 12 characters"

    @property
    def name(self) -> str:
        return f"{self.kind}-{self.number}"

    @property
    def where(self) -> str:
        return f"{'issue' if self.kind == 'issue' else 'pull request'} #{self.number}"

    @property
    def removed(self) -> str:
        """The sentence the pull request or the comment tells a reviewer the hidden text in."""
        return f" Removed from the {self.where} before prompting: {self.hidden}." if self.hidden else ""


def solve(
    step: Step, task: Issue, outcome: TaskOutcome, mark: str, status: progress.Progress, command: str | None = None
) -> int:
    """A labeled issue without a target; `command`: its yaml block's, when its author may write."""
    request = Request(
        task.number, "issue", task.title, f"{task.title}\n\n{task.body}".strip(), task.block.files or [],
        task.block.max_attempts, step.git.current_branch() or step.forge.default_branch(), command=command,
        hidden=task.hidden.removed,
    )  # fmt: skip
    return prove_and_fix(step, request, step.git.run("rev-parse", "HEAD"), outcome, mark, status)


def change_pull(step: Step, number: int, login: str, text: str) -> int:
    """`/autofix <text>` on a pull request: the text is the task, the pull request's head the code."""
    pull = step.forge.pull(number)
    if pull.state != "open":
        raise Skip(f"ignored: pull request #{number} is {pull.state}")
    head = step.git.fetch_pull(number, pull.base_ref)
    if head != pull.head_sha:
        raise UserError(
            f"origin's refs/pull/{number}/head is {head[:12]} but GitHub says {pull.head_sha[:12]}; run again"
        )
    shown_title, shown = plain(pull.title), visible(text)  # a title is text, not Markdown
    title, text = " ".join(shown_title.text.split()), shown.text.strip()
    if not text:
        raise Skip(f"ignored: the request on pull request #{number} is all text no reader sees ({shown.removed})")
    request = Request(
        number, "pr", f"{title}: {text.splitlines()[0]}",
        f"A change asked for in pull request #{number} ({title}) by @{login}:\n\n{text}",
        [], None, pull.head_ref, fork=pull.head_repo.lower() != step.config.repository.lower(),
        hidden=(shown + shown_title).removed,
    )  # fmt: skip
    if request.hidden:
        step.flow.print(f"autofix: pull request #{number}: removed before prompting: {request.hidden}")
    outcome = TaskOutcome()
    step.outcomes.append(outcome)
    mark = render.marker("pr-change", number)
    status = progress.Progress(step, number, mark)
    try:
        status.stage("starting")
        return prove_and_fix(step, request, head, outcome, mark, status)
    except (UserError, ModelUnavailable) as exc:
        status.stopped(exc)  # this flow posts no comment for an error: the status tells it
        raise


def prove_and_fix(
    step: Step, request: Request, head: str, outcome: TaskOutcome, mark: str, status: progress.Progress
) -> int:
    config = step.config
    command = request.command or config.repo.tests.command
    if not command:
        raise UserError(
            f"{config.config_path}: tests.command: a free-form issue (no `target` in a yaml block) needs the "
            "command that runs the repository's tests; or add a ```yaml block to the issue with "
            "`target: path/of/the/file.py`"
        )
    step.setup()
    sandbox = step.sandbox()
    with step.checkout(head, f"autofix-{request.name}-") as tree:
        protected = DEFAULT_PROTECT + tuple(config.repo.tests.protect) + (config.config_path,)
        protected += protected_by_command(command, tree.workdir)
        work = Workspace(tree.workdir, protected, tuple(config.repo.edit))
        suite = gate.Suite(
            sandbox,
            command,
            protected,
            config.repo.timeout or SUITE_TIMEOUT,
            tuple(config.repo.tests.exempt),
            config.jobs,
        )
        return FreeForm(step, request, outcome, mark, tree, work, suite, status).run()


class FreeForm:
    def __init__(
        self,
        step: Step,
        request: Request,
        outcome: TaskOutcome,
        mark: str,
        tree: Git,
        work: Workspace,
        suite,
        status: progress.Progress,
    ):
        self.step, self.request, self.outcome, self.mark = step, request, outcome, mark
        self.tree, self.work, self.suite, self.status = tree, work, suite, status

    def run(self) -> int:
        step, config, request = self.step, self.step.config, self.request
        flow, where = step.flow, request.where
        self.status.stage("measuring the baseline")
        step.preload_model(config.repo)
        with flow.group("baseline: the repository's suite, as it is"):
            baseline = gate.Baseline.measure(self.suite, self.work.root)
            flow.untrusted(baseline.first.output)
        for line in baseline.ran:
            flow.print(f"autofix: baseline ran {line}")
        flow.print(
            f"autofix: baseline: {count(baseline.total, 'test')}, {len(baseline.target)} failing"
            f"{' (pre-existing, not counted)' if baseline.target else ''}"
        )
        model = step.model(config.repo)
        attempts = config.max_attempts or config.repo.max_attempts or DEFAULT_ATTEMPTS
        if request.max_attempts:
            attempts = min(attempts, request.max_attempts)
        report = self.outcome.report = Report(
            model=model.name, sandbox=self.suite.sandbox.describe(), target=where, max_attempts=attempts
        )
        report.price = price_of(model.name, config.repo.price)
        if request.hidden:
            report.notes.append(f"removed before prompting: {request.hidden}")
        report.spec, report.task = config.config_path, f"{where}: {' '.join(request.title.split())}"
        path, runner, example = reproduction_test(self.suite, self.tree, request.kind, request.number)
        task = pipeline.Task(
            request.text, request.files, path, attempts, config.max_tokens, config.allow_unproven, runner, example,
            config.repo.loop_strategy,
        )  # fmt: skip
        try:
            done = pipeline.solve(
                model, self.suite, self.work, baseline, task, report, lambda line: flow.print(f"autofix: {line}"),
                self.show, self.status.stage,
            )  # fmt: skip
        except BaseException:
            step.finish(report, request.name, self.outcome, f"### autofix: {where}")
            raise
        if done.judge is None:
            assert isinstance(done.found, list)  # no repair without a reproduction
            return self.unproven(done.found, report, fence_of(done.test_path))
        proof = self.proof(done)
        step.finish(report, request.name, self.outcome, f"### autofix: {where}", f"{proof}\n\n{render.log(report)}")
        if report.passed:
            named = (*request.files, *done.located.chosen, done.test_path)  # the reproduction test is its own
            self.propose(report, done, proof, named)
            return 0
        judged = (
            f"no attempt made {render.code_span(done.test_path)} pass with every test that passed before still passing"
            if done.reproduction
            else "no attempt passed the repository's suite (no test the model wrote reproduced the bug)"
        )
        self.outcome.verdict = lead.verdict(
            False,
            f"autofix {'reproduced the bug in' if done.reproduction else 'could not reproduce'} {where} but could "
            f"not fix it: {judged}, {lead.failed_attempts(report)}.",
        )
        self.comment(self.outcome.verdict, proof, report)
        flow.print("autofix: every attempt failed; no branch pushed")
        return 1

    def show(self, attempt: Attempt) -> None:
        report = self.outcome.report
        with self.step.flow.group(attempt.headline(report.max_attempts if report else 0)):
            self.step.flow.untrusted(attempt.feedback or attempt.diff)

    def proof(self, done: pipeline.Outcome) -> str:
        """The one line a reviewer checks: the reproduction before and after, the suite after."""
        assert done.judge is not None and done.judged is not None
        verdict, last = done.judge.verdict, done.judge.run
        if done.reproduction is None:
            before = "reproduction test: none (unproven: no test the model wrote failed on the current code)"
        elif verdict is not None and verdict.passed:
            before = f"reproduction test: failed before, passes after{strength_of(done.judge)}"
        else:
            before = "reproduction test: failed before, still fails"
        if last is None or verdict is None:
            suite = f"suite: {done.judged.total} tests before, no candidate reached the whole suite"
        else:
            suite = f"suite: {len(last.ids('passed'))} passed, {count(len(verdict.newly_broken), 'new failure')}"
        old = done.judged.pre_existing
        pre = f"pre-existing failures: {len(old)}" + (f" ({render.names(old)})" if old else "")
        return f"**Proof:** {before}; {suite}; {pre}."

    def propose(self, report: Report, done: pipeline.Outcome, proof: str, named: tuple[str, ...]) -> None:
        step, request = self.step, self.request
        assert done.judge is not None
        unproven = done.reproduction is None or done.judge.unproven
        changed = self.work.changed
        self.outcome.verdict = lead.verdict(True, self.passed_line(report, done, unproven))
        reproduction = done.reproduction
        shown = (
            render.details(
                f"The reproduction test, {render.html_code(reproduction.path)}: it failed before the change",
                fence(reproduction.code, fence_of(reproduction.path)),
            )
            if reproduction
            else ""
        )
        change = lead.change([p for p in changed if reproduction is None or p != reproduction.path], report)
        log = [shown, proof, stages(report), render.log(report), self.judged()]
        if request.fork:  # nothing is pushed for a fork: the patch goes in the comment
            patch = f"The pull request comes from a fork, so autofix pushes nothing: apply the patch with `git apply`.\n\n{fence(self.work.patch(), 'diff')}"  # noqa: E501
            self.comment(self.outcome.verdict, f"{change}\n\n{patch}", report)
            return
        closes = f"Fixes #{request.number}" if request.kind == "issue" else f"Asked for in #{request.number}"
        links = " · ".join(filter(None, [closes, lead.links(("The Actions run", step.config.run_url))]))
        title = lead.title(request.title, unproven) if request.kind == "issue" else " ".join(request.title.split())
        proposal = Proposal(
            branch=f"autofix/{request.name}" + ("-change" if request.kind == "pr" else ""),
            base=request.base,
            title=title[:250],
            body="\n\n".join(filter(None, [self.mark, self.outcome.verdict, change, links + request.removed, *log])),
            message=f"autofix: {' '.join(request.title.split())[:60]} (#{request.number})\n\n"
            + (f"Fixes #{request.number}\n" if request.kind == "issue" else ""),
            what="fix",
            draft=unproven,
            named=named,
        )
        publish(step, self.tree, changed, proposal, self.outcome)
        if request.kind == "issue":
            self.status.linked(self.outcome.pull)
        if request.kind == "pr":
            opened = self.outcome.pull
            assert opened is not None  # publish sets it or raises
            self.comment(
                f"{self.outcome.verdict}\n\nautofix proposes #{opened.number} into this branch: review and merge it.",
                "",
                report,
            )

    def passed_line(self, report: Report, done: pipeline.Outcome, unproven: bool) -> str:
        """The verdict of a fix: the reproduction test before and after, the suite, the attempt."""
        assert done.judge is not None
        request, run = self.request, done.judge.run
        passed = f" ({count(len(run.ids('passed')), 'test')} passed)" if run is not None else ""
        suite = f"every test that passed before still passes{passed}, {lead.on_attempt(report)}"
        did = "fixed" if request.kind == "issue" else "made the change asked for in"
        if done.reproduction is None:
            return f"autofix proposes a fix for {request.where}, unproven: no test reproduced the bug; {suite}."
        test = render.code_span(done.reproduction.path)
        if unproven:
            return (
                f"autofix proposes a fix for {request.where}, unproven: {test} failed before and passes after it, but "
                f"fails on none of the fix's mutants; {suite}."
            )
        return f"autofix {did} {request.where}: {test} failed before the change and passes after it, and {suite}."

    def unproven(self, tried: list[Tried], report: Report, language: str) -> int:
        self.step.finish(report, self.request.name, self.outcome, f"### autofix: {self.request.where}")
        self.outcome.verdict = lead.verdict(
            False,
            f"autofix could not reproduce the bug in {self.request.where}: none of the "
            f"{count(len(tried), 'test file')} the model wrote failed on the current code the way the issue says, "
            "so it changed nothing.",
        )
        self.comment(
            f"{self.outcome.verdict}\n\nTo help it, add a failing example to the issue (the call, what it returns, "
            "what it should return), or a YAML block (a code block marked `yaml`) naming the `target` file; then ask "
            "again: remove the label and add it again, or comment `/autofix`.",
            refused_tests(tried, language),
            report,
        )
        self.step.flow.print("autofix: the bug was not reproduced; no branch pushed")
        return 1

    def comment(self, headline: str, proof: str, report: Report) -> None:
        body = "\n\n".join(
            part
            for part in (
                self.mark,
                headline + self.request.removed,
                lead.links(("The Actions run", self.step.config.run_url)),
                proof,
                stages(report),
                render.log(report),
                self.judged(),
            )
            if part
        )
        number = self.outcome.commented = self.request.number
        operation = self.step.forge.upsert_comment(number, self.mark, self.step.for_github(body))
        self.step.flow.print(f"autofix: comment on #{number} {operation}")

    def judged(self) -> str:
        return render.judged_by(Tests(command=self.suite.command))


def strength_of(judge: ProofJudge) -> str:
    """What the fix's mutants say of the reproduction: no "passes after" stands without it."""
    strength = judge.strength
    if strength is None or strength.total == 0:
        why = strength.headline() if strength is not None else "not measured"
        return f" (the fix's mutants: {why})"
    if judge.unproven:
        return f", but fails none of {count(strength.total, 'mutant')} of the fix (unproven)"
    return f", and fails {strength.killed} of {count(strength.total, 'mutant')} of the fix"


def stages(report: Report) -> str:
    """Calls, seconds and tokens per stage, the repair's attempts included, in the attempts' order."""
    rows = ["**The stages:**", "", "| stage | model calls | seconds | tokens |", "| --- | ---: | ---: | ---: |"]
    for name, use in report.stages.items():
        rows.append(f"| {name} | {use.calls} | {use.seconds:.2f} | {use.input + use.output} |")
    if report.attempts:
        used = sum(a.tokens["input"] + a.tokens["output"] for a in report.attempts)
        rows.append(f"| repair | {len(report.attempts)} | {sum(a.seconds for a in report.attempts):.2f} | {used} |")
    return "\n".join(rows) if len(rows) > 4 else ""


def reproduction_test(suite: gate.Suite, tree: Git, kind: str, number: int) -> tuple[str, str, str]:
    """Where the reproduction test goes, the runner whose file it is, and a test file of the
    repository's to show for its ways (or ""): a pytest file where the command collects it
    (gate.Suite.new_test_file); for a suite a JavaScript runner runs, a file of that runner's
    beside the repository's first test file, with its extension (one named *.test.* or *.spec.*
    first; test/ when it has none, where every runner's default patterns find it); for `go test`,
    a `_test.go` file in the folder of the first Go test file (the root when there is none), which
    the pipeline moves into the package localization picks (bot/core/freeform.placed)."""
    command = suite.command
    if isinstance(go_command.runner_of(command, tree.workdir), go_command.GoTest):
        tracked = sorted(path for path in tree.run("ls-files", "-z", strip=False).split("\0") if GO_TEST.search(path))
        folder = posixpath.dirname(tracked[0]) if tracked else ""
        name = f"autofix_{kind}_{number}_test.go"
        return posixpath.join(folder, name), "go", tracked[0] if tracked else ""
    started = runner_of(command, tree.workdir)
    if not isinstance(started, Started):
        return suite.new_test_file(tree.workdir, f"{kind}_{number}"), "pytest", ""
    tracked = tree.run("ls-files", "-z", strip=False).split("\0")
    named = sorted((".test." not in path and ".spec." not in path, path) for path in tracked if JS_TEST.search(path))
    example = named[0][1] if named else ""
    found = JS_SUFFIX.search(example)
    ext = found["ext"] if found else ".js"
    folder = posixpath.dirname(example) if example else "test"
    name = f"autofix-{kind}-{number}.test{ext}"
    return posixpath.join(folder, name), started.runner, example


def refused_tests(tried: list[Tried], language: str = "python") -> str:
    """Each refused test file once, its reason once (in the fold's title when it is one line):
    files the model sent the same, with the same reason, folded together."""
    groups: list[tuple[list[int], Tried]] = []
    for n, t in enumerate(tried, 1):
        same = next((g for g in groups if (g[1].code, g[1].refused) == (t.code, t.refused)), None)
        if same is not None:
            same[0].append(n)
        else:
            groups.append(([n], t))
    folds = []
    for numbers, t in groups:
        which = f"Test file {numbers[0]}"
        if len(numbers) > 1:
            which = f"Test files {', '.join(map(str, numbers))} (the same)"
        reason, _, rest = t.refused.strip().partition("\n")
        inside = fence(t.code or "(no code)", language) + (f"\n\n{fence(rest)}" if rest.strip() else "")
        folds.append(render.details(f"{which}: {render.spans(reason[:300])}", inside))
    return "\n\n".join(folds)
