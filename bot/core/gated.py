"""Edits to a whole tree, judged by the repository's suite: the model answers with edit blocks
applied in place (EditTree), and a candidate passes when the static guard finds nothing in what
it added and the suite, run in a clean copy, passes the gate against the baseline (GateJudge).
Red CI repair and free-form issues both work this way."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from bot.core import prompts
from bot.core.edits import EditError, after_reply, refused
from bot.core.protocol import Candidate, Kind, Messages, Unusable
from bot.core.rounds import REPEATED_FAILED
from bot.core.workspace import Mark, Workspace
from bot.judge import gate, guard, guards
from bot.judge.validate import Verdict
from bot.spec import TEST_PROTECT, is_protected


def screened(work: Workspace) -> list[guard.Finding]:
    """The static guard of each file's language over every file the edits changed so far, judging
    only the lines they added (a refused edit stays applied, so a pass needs a reply that takes it
    out). A test file among them (the edits may not touch the suite's own: a free-form issue's
    reproduction test) is read as one (bot/judge/guards.py)."""
    found = []
    for path, original in sorted(work.originals.items()):
        screen = guards.for_path(path, test_file=is_protected(path, TEST_PROTECT))
        if screen is not None:
            found += screen(work.look(path).text or "", original, path)
    return found


class EditTree:
    """The loop's answer when the model edits a tree: edit blocks applied in place."""

    def __init__(
        self,
        system: str,
        intro: str,
        work: Workspace,
        context: Callable[[], str],
        restated: Sequence[str] = (),
        start: Mark | None = None,
    ):
        self.system, self.intro, self.work = system, intro, work
        self.context = context  # built afresh for each prompt: it shows the files as they are now
        self.restated = restated  # how earlier answers failed, for a fresh sample's first prompt
        self.start = start or work.mark()  # the tree before any reply: where a fresh sample starts
        self.reply = ""

    def first(self) -> Messages:
        return prompts.anew(self.messages(""), self.restated, existing=True)

    def restarted(self, restated: Sequence[str] = ()) -> EditTree:
        """A fresh sample's answer (the loop's `restart`): the tree as it was before any reply, and
        the first prompt again, with how the earlier answers failed (`restated`)."""
        self.work.restore(self.start)
        return EditTree(self.system, self.intro, self.work, self.context, restated, self.start)

    def apply(self, reply: str) -> Candidate:
        self.reply = reply
        try:
            self.work.apply(reply)
        except EditError as exc:
            raise Unusable(Kind.REFUSED, refused(exc.problems)) from None
        return Candidate(reply, self.work.patch(), {})

    def next(self, feedback: str) -> Messages:
        return self.messages(
            f"\n\n{after_reply(self.reply, feedback)}\n\n"
            "The files are as your previous replies left them (their current content is shown above). "
            "Answer with edit blocks against that content."
        )

    def keep(self, candidate: Candidate) -> str:
        return self.work.patch()  # the tree holds it already: the flow publishes it

    def messages(self, after: str) -> Messages:
        text = f"{self.intro}\n\n{self.context()}{after}"
        return [{"role": "system", "content": self.system}, {"role": "user", "content": text}]


class GateJudge:
    """The loop's judge for an edited tree: the static guard over the edited files, then the whole suite
    in a clean copy against the baseline (bot/judge/gate.py), after a quick run of the tests that
    failed last; with more than one job, the whole suite and a run of the target tests at once in
    two clean copies instead. Either way a pass is confirmed by the target tests passing in two
    clean copies (the loop asks no second time): they are the tests whose outcome the candidate
    changed, so luck or a copy's state would show there; a test that passed at the baseline and
    passes again needed no luck."""

    def __init__(self, suite: gate.Suite, baseline: gate.Baseline, work: Workspace):
        self.suite, self.baseline, self.work = suite, baseline, work
        self.verdict: gate.Judgement | None = None  # the last suite run's, for the proof
        self.run: gate.SuiteRun | None = None  # the last run of the whole suite
        self.last_failing = set(baseline.target)  # run first next time: a candidate still failing them is told fast
        self.quick: set[str] = set()  # the tests the last quick run ran and passed, in a clean copy of their own
        # What to do once a candidate's confirmation passed, while its whole-suite run goes on,
        # in at most the given runs at once (the proof, ProofJudge.early).
        self.then: Callable[[int], None] | None = None
        self.targets_seconds: float | None = None  # the last passing run of the target tests alone took

    def preflight(self) -> list[str]:
        return []  # the baseline, measured before any model call, was the preflight

    def quick_rejection(self) -> Verdict | None:
        """The tests that failed last time, alone: a candidate still failing one is rejected in
        the time they take. A quick run never passes anyone: the whole suite decides that."""
        if not self.last_failing or not self.baseline.first.sealed:
            return None
        only = set(self.last_failing)
        run = self.suite.run(self.work.root, only=only)
        if not run.sealed:
            return None
        verdict = gate.judge(self.baseline, run, only)
        if verdict.passed:
            self.quick = only
            if only == set(self.baseline.target):
                self.targets_seconds = run.seconds
            return None
        self.verdict = verdict
        self.last_failing = set(verdict.names) & only or only
        return Verdict(False, verdict.names, gate.feedback(verdict, run), forged=verdict.forged)

    def check(self, candidate: Candidate) -> Verdict:
        refused = screened(self.work)
        if refused:
            return Verdict(False, [f"(guard) {f.path}:{f.line}" for f in refused], guard.feedback(refused))
        if self.suite.jobs > 1:
            # The whole suite and its confirmation at once take about what one run takes: a quick
            # run of the failing tests first would save little on a failure, and cost a run on a pass.
            return self.side_by_side()
        self.quick = set()
        quick = self.quick_rejection()
        if quick is not None:
            return quick
        targets = set(self.baseline.target)
        quick_ran = bool(targets) and self.quick == targets  # what quick_rejection ran and passed
        run = self.run = self.suite.run(self.work.root)
        verdict = self.verdict_of(run, gate.judge(self.baseline, run))
        verdict.confirmed = verdict.passed and quick_ran
        return verdict

    def side_by_side(self) -> Verdict:
        """The whole suite and its confirmation at once, each in a clean copy: both must pass; the
        first to fail tells. The confirmation runs the target tests alone (the whole suite again
        when there are none: a request or a regeneration has no test whose outcome it must change)."""
        targets = set(self.baseline.target) or None

        def confirmation() -> gate.SuiteRun:
            run = self.suite.run(self.work.root, only=targets)
            if targets and gate.judge(self.baseline, run, targets).passed:
                self.targets_seconds = run.seconds
                if self.then is not None:
                    self.then(max(1, self.suite.jobs - 1))  # the whole suite's run holds a slot
            return run

        runs = self.suite.side_by_side(partial(self.suite.run, self.work.root), confirmation)
        verdicts = [gate.judge(self.baseline, run, only) for run, only in zip(runs, (None, targets), strict=True)]
        failed = [i for i, verdict in enumerate(verdicts) if not verdict.passed]
        chosen = next((i for i in failed if verdicts[i].forged), failed[0] if failed else 0)  # a forgery stops the flow
        verdict = self.verdict_of(runs[chosen], verdicts[chosen])
        self.run = runs[0]  # what the reports count is the whole suite's run, whichever run told
        if failed == [1]:
            verdict.feedback = REPEATED_FAILED + verdict.feedback
        verdict.confirmed = verdict.passed
        return verdict

    def verdict_of(self, run: gate.SuiteRun, judgement: gate.Judgement) -> Verdict:
        self.run, self.verdict = run, judgement
        self.last_failing = set(judgement.names) & set(run.results)
        return Verdict(
            judgement.passed,
            judgement.names,
            "" if judgement.passed else gate.feedback(judgement, run),
            forged=judgement.forged,
        )
