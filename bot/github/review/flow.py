"""`pull_request_review` `submitted` on autofix's own pull request: the review's open threads as
one batch, answered by one commit on autofix's branch, pushed only when the change passed the gate.

Who starts it: a person with write access (asked of the API, as for a label), or a bot with write
access whose review mentions autofix; a review that changes_requested, or commented with threads.
Never a fork's pull request, never a pull request autofix didn't open (its branch `autofix/…` in
this repository and its marker in the body), never autofix's own review.

The round: the baseline at the branch's head; each thread's ```suggestion applied as written; the
model asked for the other threads (a reproduction test first, as a free-form issue: when one
fails now it must pass after); the whole change judged by the gate (the whole suite, no new
failure, the protected paths, canaries: bot/core/gated.py); one commit on the branch's head,
never forced over anyone's push. Each thread gets a reply: the commit, what changed, the evidence;
a thread addressed is resolved (`resolve_threads: false` leaves that to the reviewer); one it
couldn't address says why and stays open. One comment on the pull request sums up the round."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from bot.core.edits import FORMAT_HELP
from bot.core.freeform import REPRODUCE_TRIES, Task, files, placed
from bot.core.gated import EditTree, GateJudge
from bot.core.loop import run
from bot.core.proof import ProofJudge
from bot.core.protocol import Budget, Candidate
from bot.core.report import Attempt, Report
from bot.core.reproduce import Reproduction, fence_of, reproduce
from bot.core.workspace import Workspace
from bot.errors import UserError
from bot.github import issues, lead, render
from bot.github.forge import MAY_TRIGGER, PullInfo
from bot.github.freeform import reproduction_test
from bot.github.git import Git, GitError
from bot.github.review import suggestions, threads
from bot.github.review.threads import Thread
from bot.github.signed import SignedBranch
from bot.github.step import Skip, Step, TaskOutcome
from bot.github.tasks import DEFAULT_ATTEMPTS
from bot.judge import gate
from bot.models.prices import price_of
from bot.spec import DEFAULT_PROTECT, Tests, protected_by_command
from bot.text import count, fence
from bot.visible import visible

SUITE_TIMEOUT = 600.0
STATES = ("changes_requested", "commented")  # the webhook's spelling
MENTION = re.compile(r"(?<![\w-])[@/]?autofix(?![\w-])", re.I)
STATUS = re.compile(
    r"^[ \t>*_-]*thread[ \t]+(?P<n>\d+)[ \t]*:[ \t]*(?P<what>not done|done)\b[ \t:—-]*(?P<why>.*)$", re.I | re.M
)
PATH = re.compile(r"(?<![\w./-])((?:[\w.-]+/)*[\w.-]+\.[A-Za-z]\w*)(?=[:\s'\"`,)]|$)")  # a file named in text
MOST_FILES = 10
SYSTEM = (
    "[autofix:review] You answer a code review of a pull request, thread by thread, with edits to the code. "
    "Tests can't be edited: edits to them are refused. Keep each change to what its thread asks, and don't break "
    "tests that pass.\n\nAfter your edit blocks, say for every thread, one line each:\n"
    "thread <n>: done\nthread <n>: not done: <why, in one sentence>\n"
    "Say done only for a thread your edits address.\n\n" + FORMAT_HELP
)


def on_review(step: Step, event: dict) -> int:
    if event.get("action") != "submitted":
        raise Skip(
            f"ignored: pull_request_review event {event.get('action')!r}: only a submitted review starts autofix"
        )
    review, pull = event.get("review") or {}, event.get("pull_request") or {}
    number, state = int(pull["number"]), str(review.get("state") or "").lower()
    if state not in STATES:
        raise Skip(
            f"ignored: review {review.get('id')} of #{number} is {state!r}; "
            "autofix answers changes requested or comments"
        )
    head = pull.get("head") or {}
    head_repo = str((head.get("repo") or {}).get("full_name") or "")
    if head_repo.lower() != step.config.repository.lower():
        raise Skip(
            f"ignored: pull request #{number} comes from the fork {head_repo or '(deleted)'}; "
            "autofix answers reviews on its own pull requests"
        )
    if not str(head.get("ref") or "").startswith("autofix/") or not render.marked(str(pull.get("body") or "")):
        raise Skip(f"ignored: pull request #{number} ({head.get('ref')}) is not one autofix opened")
    user = review.get("user") or {}
    login = str(user.get("login") or "")
    if login.lower() == (step.forge.own_login() or "").lower():
        raise Skip(f"ignored: autofix's own review (@{login})")
    if user.get("type") == "Bot" or login.endswith("[bot]"):
        if not MENTION.search(visible(str(review.get("body") or "")).text):
            raise Skip(f"ignored: a review by the bot @{login} that doesn't mention autofix")
        permission = step.forge.permission(login)
        if permission not in MAY_TRIGGER:
            raise Skip(f"ignored: the bot @{login} has {permission} permission on {step.config.repository}")
    else:
        login, permission = issues.writer(step, user, "reviewed")
    step.flow.print(f"autofix: pull request #{number}, review {review['id']} by @{login} ({permission}, {state})")
    return answer(step, number, int(review["id"]), login)


def answer(step: Step, number: int, review_id: int, login: str) -> int:
    def found(forge) -> threads.Batch:
        return threads.batch(forge, number, review_id)

    return answer_round(step, number, Occasion("review", review_id, login, f"review {review_id}"), found)


@dataclass(frozen=True)
class Occasion:
    """What started a round: a review, a reply in a thread, `/autofix <text>`, a red CI run."""

    kind: str  # "review", "thread", "request", "ci": the marker's and the reproduction test's name
    id: int  # the review's, the comment's or the run's
    login: str  # who asked ("" for a CI run)
    what: str  # how the answer names it: "review 12", "`/autofix` (comment 34)", "run 56"
    reproduce: bool = True  # a thread asking for new behaviour gets a reproduction test first
    intro: str = ""  # the model's first line; default: a review's
    note: Callable[[Report], str] | None = None  # a line for the summary, from the round's report
    expected: Callable[[Path], set[str]] | None = None  # tests the evidence names as failing (gate.Baseline)

    @property
    def name(self) -> str:
        return f"{self.kind}-{self.id}"


def answer_round(step: Step, number: int, occasion: Occasion, found: Callable[..., threads.Batch]) -> int:
    """One round on autofix's pull request #number: `found(forge)`'s threads answered by one commit."""
    config, forge = step.config, step.forge
    command = config.repo.tests.command
    if not command:
        raise UserError(
            f"{config.config_path}: tests.command: answering a review needs the command that runs the tests"
        )
    pull = forge.pull(number)
    if pull.state != "open":
        raise Skip(f"ignored: pull request #{number} is {pull.state}")
    batch = found(forge)
    for why in batch.left_out:
        step.flow.print(f"autofix: left out: {why}")
    if not batch.threads:
        raise Skip(f"ignored: {occasion.what} has no open thread")
    remote = step.git.remote_branch(pull.head_ref)
    if remote is None or remote[0] != pull.head_sha:
        raise Skip(f"ignored: {pull.head_ref} moved on from {pull.head_sha[:12]}; the next review decides")
    head = remote[0]
    outcome = TaskOutcome()
    step.outcomes.append(outcome)
    step.setup()
    sandbox = step.sandbox()
    with step.checkout(head, f"autofix-{occasion.kind}-{number}-") as tree:
        protected = DEFAULT_PROTECT + tuple(config.repo.tests.protect) + (config.config_path,)
        protected += protected_by_command(command, tree.workdir)
        work = Workspace(tree.workdir, protected, tuple(config.repo.edit))
        suite = gate.Suite(sandbox, command, protected, config.repo.timeout or SUITE_TIMEOUT,
                           tuple(config.repo.tests.exempt), config.jobs)  # fmt: skip
        return Round(step, pull, occasion, batch.threads, outcome, tree, work, suite).run()


@dataclass
class Answered:
    thread: Thread
    done: bool
    what: str  # what changed for it, or why not


class Round:
    def __init__(self, step: Step, pull: PullInfo, occasion: Occasion, batch: list[Thread],
                 outcome: TaskOutcome, tree: Git, work: Workspace, suite: gate.Suite):  # fmt: skip
        self.step, self.pull, self.occasion, self.batch = step, pull, occasion, batch
        self.login = occasion.login
        self.outcome, self.tree, self.work, self.suite = outcome, tree, work, suite
        self.mark = render.marker(occasion.kind, occasion.id)
        # A reproduction's place, its runner's and a test of the repository's shown for its ways, as
        # for a free-form issue: pytest's, a JavaScript runner's or a Go test file.
        self.test_path, self.runner, self.example = reproduction_test(suite, tree, occasion.kind, occasion.id)

    def run(self) -> int:
        step, config, flow = self.step, self.step.config, self.step.flow
        step.preload_model(config.repo)
        with flow.group("baseline: the suite at the branch's head"):
            expected = self.occasion.expected(self.work.root) if self.occasion.expected else set()
            baseline = gate.Baseline.measure(self.suite, self.work.root, None, expected)
            flow.untrusted(baseline.first.output)
        flow.print(f"autofix: baseline: {count(baseline.total, 'test')}, {len(baseline.target)} failing")
        answers: dict[int, Answered] = {}
        asked = []
        for t in self.batch:
            code = suggestions.suggested(t) if t.path else None  # a thread on no file has no lines to replace
            if code is None:
                asked.append(t)
                continue
            why = suggestions.apply(self.work, t, code)
            answers[t.number] = Answered(
                t,
                why is None,
                f"the suggestion applied to `{t.where}`"
                if why is None
                else f"the suggestion could not be applied: {why}",
            )
            flow.print(
                f"autofix: thread {t.number} ({t.where}): "
                + ("suggestion applied" if why is None else f"suggestion refused: {why}")
            )
        model = step.model(config.repo)
        attempts = config.max_attempts or config.repo.max_attempts or DEFAULT_ATTEMPTS
        report = self.outcome.report = Report(model=model.name, sandbox=self.suite.sandbox.describe(),
                                              target=f"{self.occasion.what} of #{self.pull.number}",
                                              max_attempts=attempts)  # fmt: skip
        report.price = price_of(model.name, config.repo.price)
        report.spec, report.task = config.config_path, f"{self.occasion.what} of pull request #{self.pull.number}"
        text = self.asked_text(asked)
        reproduction: Reproduction | None = None
        # What fails at the head already is the target when the evidence named it (a red CI run);
        # otherwise pre-existing: the round isn't asked to fix it, only not to break what passes.
        judged = (
            baseline
            if self.occasion.expected and baseline.target
            else replace(baseline, target=[], pre_existing=baseline.target)
        )
        paths = self.paths(asked)
        placing = Task(text, [], self.test_path, attempts, runner=self.runner, example=self.example)
        test_path, example, package = self.test_path, self.example, ""
        if self.runner == "go":  # in the package of the first Go file the threads are on
            test_path, example, package = placed(self.work, placing, paths)
            self.test_path = test_path
        if asked and self.occasion.reproduce:
            shown = f"{text}\n\n{files(self.work, paths)}"
            if example and example not in paths:  # the framework's ways, as the repository has them
                shown += "\n\n" + files(self.work, [example], heading="One of the repository's tests:")
            found = reproduce(model, self.suite, self.work.root, test_path, shown,
                              REPRODUCE_TRIES, report, text, self.runner, package)  # fmt: skip
            if isinstance(found, Reproduction):
                reproduction = found
                self.work.originals[test_path] = None
                judged = replace(judged, target=found.failing, passing=baseline.passing | set(found.passing))
                flow.print(f"autofix: reproduce: {', '.join(found.failing)} fail on the branch's head")
            else:
                flow.print(
                    f"autofix: reproduce: none of {count(len(found), 'test file')} failed; the suite alone judges"
                )
        tests, wanted = (reproduction.failing, reproduction.wanted) if reproduction else (judged.target, [])
        judge = ProofJudge(GateJudge(self.suite, judged, self.work), tests, wanted, report, (test_path,))
        reply = ""
        try:
            if asked:
                proof = (f"\n\nThis test, {test_path} (it can't be edited), fails now and must pass:"
                         f"\n\n{fence(reproduction.code, fence_of(test_path))}"
                         if reproduction else "")  # fmt: skip
                first = self.occasion.intro or f"A review of pull request #{self.pull.number} asks for changes."
                intro = f"{first}\n\n{text}{proof}"
                answer = EditTree(
                    SYSTEM,
                    intro,
                    self.work,
                    lambda: files(self.work, [*paths, *self.work.changed], test_path),
                )
                run(
                    answer, judge, model, Budget(attempts, config.max_tokens), report, on_attempt=self.show,
                    restart=answer.restarted, strategy=config.repo.loop_strategy,
                )  # fmt: skip
                reply = answer.reply
            else:  # suggestions alone: judged once, as they are
                verdict = judge.check(Candidate("", self.work.patch(), {}))
                report.passed = verdict.passed
        finally:
            report.files_changed = self.work.changed
            step.finish(
                report,
                self.occasion.name,
                self.outcome,
                f"### autofix: {self.occasion.what} of #{self.pull.number}",
            )
        if not report.passed or not self.work.changed:
            return self.failed(answers, asked, judge, report)
        for t in asked:
            answers[t.number] = self.said(t, reply)
        if not any(a.done for a in answers.values()):
            return self.failed(answers, asked, judge, report, "the model addressed none of the threads")
        sha = self.push()
        evidence = self.evidence(judge, reproduction, judged)
        for a in sorted(answers.values(), key=lambda a: a.thread.number):
            self.tell(a, sha, evidence)
        self.summary(answers, sha, evidence, report, len(judge.run.ids("passed")) if judge.run else None)
        return 0

    @property
    def by(self) -> str:
        return f" by @{self.login}" if self.login else ""

    def asked_text(self, asked: list[Thread]) -> str:
        parts = []
        for t in asked:
            said = "\n\n".join(f"@{c.author}:\n{c.text.strip()}" for c in t.comments)
            hunk = f"{fence(t.diff_hunk, 'diff')}\n\n" if t.diff_hunk else ""
            parts.append(f"Thread {t.number}, on {t.where}:\n\n{hunk}{said}")
        return "\n\n".join(parts)

    def paths(self, asked: list[Thread]) -> list[str]:
        """The files shown with the threads: those they are anchored to; for a thread on no file,
        the files its text names and those the pull request changed."""
        paths = [t.path for t in asked if t.path]
        if any(not t.path for t in asked):
            said = " ".join(c.text for t in asked if not t.path for c in t.comments)
            named = [m for m in dict.fromkeys(PATH.findall(said)) if self.work.read(m) is not None]
            paths += named[:MOST_FILES] + self.changed_by_pull()
        return [*dict.fromkeys(paths)]

    def changed_by_pull(self) -> list[str]:
        """The files the pull request changes against its base, when the clone has the base."""
        try:
            listed = self.step.git.run(
                "diff", "--name-only", "--no-renames", f"origin/{self.pull.base_ref}...{self.pull.head_sha}"
            )
        except GitError:
            return []
        return [p for p in listed.splitlines() if p and self.work.read(p) is not None][:MOST_FILES]

    def said(self, t: Thread, reply: str) -> Answered:
        """What the passing reply says of the thread: done, not done and why, or nothing (not done)."""
        statuses = {int(m["n"]): m for m in STATUS.finditer(reply)}
        m = statuses.get(t.number)
        if m is None:
            return Answered(t, False, "the model's answer didn't say it addressed this thread")
        if m["what"].lower() == "done":
            changed = [p for p in self.work.changed if p != self.test_path]
            return Answered(t, True, f"changed {', '.join(f'`{p}`' for p in changed)}")
        why = m["why"].strip()  # the model's words: shown as code, never as Markdown
        return Answered(
            t, False, f"the model says: {render.code_span(why[:300])}" if why else "the model gave no reason"
        )

    def show(self, attempt: Attempt) -> None:
        report = self.outcome.report
        with self.step.flow.group(attempt.headline(report.max_attempts if report else 0)):
            self.step.flow.untrusted(attempt.feedback or attempt.diff)

    def push(self) -> str:
        """One commit on the branch's head, pushed only while origin still has that head."""
        step, pull = self.step, self.pull
        message = (
            f"Answer {self.occasion.what} of #{pull.number}\n\n"
            "Changed by autofix; the whole suite passed in its sandbox.\n"
        )
        commit, _ = self.tree.commit(self.work.changed, message)
        if step.config.sign_commits:
            SignedBranch(step.forge, self.tree).push(commit, pull.head_ref, pull.head_sha)
        else:
            self.tree.push(commit, pull.head_ref, pull.head_sha)
        step.flow.print(f"autofix: pushed {commit[:12]} on {pull.head_ref}")
        return commit

    def evidence(self, judge: ProofJudge, reproduction: Reproduction | None, judged: gate.Baseline) -> str:
        last, verdict = judge.run, judge.verdict
        suite = (
            f"the whole suite ({render.code_span(self.suite.command)}) in autofix's sandbox: "
            f"{len(last.ids('passed')) if last else 0} passed, "
            f"{count(len(verdict.newly_broken) if verdict else 0, 'new failure')}"
        )
        if reproduction is None and judged.target:
            tests = ", ".join(render.code_span(t) for t in judged.target)
            return f"{suite}; {tests} failed at the branch's head, pass after"
        if reproduction is None:
            return f"{suite}; no reproduction test"
        tests = ", ".join(render.code_span(t) for t in reproduction.failing)
        return f"{suite}; {render.code_span(reproduction.path)} ({tests}) failed before, passes after"

    def tell(self, a: Answered, sha: str | None, evidence: str) -> None:
        step = self.step
        if a.done:
            body = f"✅ Addressed in {sha}: {a.what}.\n\n**Evidence:** {evidence}."
        else:
            body = f"❌ Not addressed{f' in {sha}' if sha else ''}: {a.what}. This thread stays open."
        if not a.thread.node_id:  # no review thread: the summary comment is its answer
            step.flow.print(f"autofix: {a.thread.where}: {'addressed' if a.done else 'not addressed'}")
            return
        threads.reply(step.forge, self.pull.number, a.thread, self.mark, step.for_github(body))
        if a.done and step.config.repo.resolve_threads:
            threads.resolve(step.forge, a.thread)
        step.flow.print(
            f"autofix: thread {a.thread.number} ({a.thread.where}): "
            + (
                "left open"
                if not a.done
                else "addressed, resolved"
                if step.config.repo.resolve_threads
                else "addressed"
            )
        )

    def summary(
        self, answers: dict[int, Answered], sha: str | None, evidence: str, report: Report, passed: int | None = None
    ) -> None:
        """`passed`: how many tests the gate's last run of the whole suite passed, the verdict's figure."""
        done = [a for a in answers.values() if a.done]
        if sha:
            decided = lead.decided_by(Tests(command=self.suite.command), passed)
            self.outcome.verdict = lead.verdict(
                True,
                f"autofix answered {self.occasion.what}{self.by} with {sha[:12]}: "
                + (
                    f"{done[0].what}"
                    if len(answers) == 1 and done and not done[0].thread.path
                    else f"{len(done)} of {count(len(answers), 'thread')} addressed"
                )
                # suggestions alone are judged as written, with no model call: no attempt to name
                + f"; {decided} passed {lead.on_attempt(report) if report.attempts else 'with no model call'}.",
            )
        rows = ["| thread | on | answer |", "| ---: | --- | --- |"]
        for a in sorted(answers.values(), key=lambda a: a.thread.number):
            rows.append(
                f"| {a.thread.number} | {render.code_span(a.thread.where)} | "
                f"{'✅ ' if a.done else '❌ '}{a.what.replace('|', '&#124;')} |"
            )
        body = "\n\n".join(
            filter(
                None,
                [
                    self.mark,
                    self.outcome.verdict,
                    "\n".join(rows),
                    f"**Evidence:** {evidence}." if evidence else "",
                    self.occasion.note(report) if self.occasion.note else "",
                    lead.links(("The Actions run", self.step.config.run_url)),
                    render.log(report),
                ],
            )
        )
        self.step.forge.upsert_comment(self.pull.number, self.mark, self.step.for_github(body))
        self.outcome.commented = self.pull.number

    def failed(
        self, answers: dict[int, Answered], asked: list[Thread], judge: ProofJudge, report: Report, why: str = ""
    ) -> int:
        why = why or (
            f"no change passed the gate: {lead.failed_attempts(report)}" if asked else "the suggestions failed the gate"
        )
        for t in self.batch:
            a = answers.get(t.number)
            answers[t.number] = Answered(t, False, why if a is None or a.done else a.what)
        self.outcome.verdict = lead.verdict(
            False,
            f"autofix could not answer {self.occasion.what} of #{self.pull.number}{self.by}: {why}; "
            "nothing was pushed.",
        )
        for a in answers.values():
            self.tell(a, None, "")
        self.summary(answers, None, "", report)
        self.step.flow.print("autofix: nothing pushed")
        return 1
