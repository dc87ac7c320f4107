"""The five strategies `autofix eval` compares, each given the same number of model calls.

All four run through `loop.solve`, so a candidate is extracted, validated (and a pass
confirmed) exactly as `autofix run` does it, and repair's feedback is the loop's own:
- one-shot: the loop with a budget of 1 call;
- repair: the loop with K calls, each after the first carrying the test feedback;
- resample: the loop with K calls whose model never sees the feedback: every call sends
  the first prompt again, so each is a fresh independent sample and the first pass wins;
- repair+resample: repair, except that a repair failing the same checks the same way as the
  attempt before it is followed by a fresh sample from the task (Olausson et al.'s hybrid), as
  `autofix run` does it;
- side-by-side: repair+resample asking two candidates at once a round (`candidates: 2`): its
  first round is two fresh samples of the task, and the next repairs the one with fewer failures.
In all five a reply repeating code already judged is not judged again: a call, not a test run.

Paired: a task's first call is made once (per --samples repeat) and all of them share its reply, so
they differ only in what follows it; it counts in each one's calls, tokens and time, which keeps
the budgets equal. Each call of a task sends a seed of its own (where the API takes one): the
same prompt sent with the same seed would come back the same, and resampling would repeat itself.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from bot.core.loop import solve
from bot.core.protocol import Kind
from bot.core.report import Report
from bot.eval.results import FirstReplies, FirstReply, Result, budget
from bot.eval.tasks import Task
from bot.judge.strength import measure
from bot.judge.validate import Validator, Verdict
from bot.models.base import SEED_OFFSET, Model, Reply, seed_offset
from bot.sandbox.tiers import Sandbox
from bot.spec import Strategy
from bot.text import clip_head

FAILURE_CHARS = 300  # of the final failure reason kept per result
ERROR_CHARS = 4_000  # of a failure's feedback kept per result
CODE_CHARS = 20_000  # of a failure's final candidate kept per result


class PairedCalls:
    """The model as one strategy's run of one task sees it: the first call is the task's shared
    one (made by whichever run gets there first, later ones reuse its reply), and the n-th call
    sends the seed offset `seeds + n − 1` (n as the loop numbers its calls: candidates asked at
    once keep their seeds whatever order they are sent in)."""

    def __init__(
        self, model: Model, first_replies: FirstReplies, sample: int, task: str, seeds: int, clock: Callable[[], float]
    ):
        self.model, self.first_replies, self.sample, self.task = model, first_replies, sample, task
        self.name, self.banner = model.name, model.banner
        self.seeds, self.clock = seeds, clock
        self.reused_seconds = 0.0  # the shared call's wait, when another run made it

    def complete(self, messages: list[dict[str, str]]) -> Reply:
        call = SEED_OFFSET.get()  # the loop's call number, less one
        with seed_offset(self.seeds + call):
            return self.shared(messages) if call == 0 else self.model.complete(messages)

    def shared(self, messages: list[dict[str, str]]) -> Reply:
        prompt = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).hexdigest()
        kept = self.first_replies.get(self.sample, self.task, prompt)
        if kept is not None:
            self.reused_seconds = kept.seconds
            return Reply(kept.text, kept.input_tokens, kept.output_tokens, kept.cached_tokens)
        started = self.clock()
        reply = self.model.complete(messages)
        usage = (reply.input_tokens, reply.output_tokens, reply.cached_tokens)
        waited = round(self.clock() - started, 3)
        self.first_replies.add(FirstReply(self.sample, self.task, prompt, reply.text, *usage, waited))
        return reply


class TimedValidator(Validator):
    """Adds up the time spent validating, for the share of time outside validation."""

    seconds = 0.0

    def check(self, code: str) -> Verdict:
        verdict = super().check(code)
        self.seconds += verdict.seconds
        return verdict


def run_pair(
    task: Task,
    strategy: str,
    attempts: int,
    model: Model,
    sandbox: Sandbox,
    solutions: Path,
    first_replies: FirstReplies,
    sample: int = 1,
    clock: Callable[[], float] = time.monotonic,
    *,
    strength: bool = False,
    candidates: int = 1,
) -> Result:
    """Run one strategy on one task, in one sample of the eval. The passing code lands under
    `solutions` (a later sample's under solutions/sample-N), never in the task's own folder: an
    eval leaves the repository it reads untouched. With `strength`, a pass's code is mutated
    afterwards and the task's own checks judge the mutants (bot/judge/strength.py), outside the
    pair's times. `candidates`: replies asked at once per round; `calls` counts each."""
    calls = budget(strategy, attempts)
    if strategy == "side-by-side":
        candidates = max(candidates, 2)
    # Equal budgets mean equal calls: a spec's own token or time budget would cut some
    # strategies short and not others. Test strength is off in the loop: a gate would change what
    # a pass is, and the mutants would add up to 20 validations to every pass the harness times.
    spec = task.spec.model_copy(
        update={
            "max_attempts": calls,
            "max_tokens": None,
            "max_seconds": None,
            "strength": "off",
            "candidates": candidates,  # asked at once; every one a call of the budget
            "workdir": (solutions / f"sample-{sample}" if sample > 1 else solutions) / strategy / task.id,
        }
    )
    spec.target_path.parent.mkdir(parents=True, exist_ok=True)
    if task.spec.target_path.is_file():
        # A repair: the strategy's folder holds the file as it is, as `autofix run` would see it
        # (in the first prompt; edit mode where it applies). The original is never written.
        shutil.copyfile(task.spec.target_path, spec.target_path)
    else:
        # A pass left by a run killed before it was logged would be shown in the first prompt:
        # every strategy starts from nothing, or the prompts differ and the first call can't be shared.
        spec.target_path.unlink(missing_ok=True)
    validator = TimedValidator(task.spec, sandbox)
    paired = PairedCalls(model, first_replies, sample, task.id, (sample - 1) * attempts, clock)
    report = Report(model=model.name, sandbox=sandbox.describe(), target=spec.target, max_attempts=calls)
    started = clock()
    # Each the loop's own strategy (spec.strategy), as `autofix run` would run it.
    looped: dict[str, Strategy] = {"resample": "resample", "side-by-side": "repair+resample"}
    looped["repair+resample"] = "repair+resample"
    solve(spec, paired, validator, report, clock=clock, strategy=looped.get(strategy, "repair"))
    seconds, validation_seconds = clock() - started + paired.reused_seconds, validator.seconds
    killed = mutants = 0
    if strength and report.passed:
        measured = measure(
            validator,
            spec.target_path.read_text(encoding="utf-8"),
            spec.target,
            spec.strength_budget,
            spec.strength_seconds,
        )
        killed, mutants = measured.killed, measured.total
    return Result(
        task=task.id,
        strategy=strategy,
        passed=report.passed,
        calls=len(report.attempts),
        attempts=sum(a.kind not in (Kind.NO_CODE, Kind.REPEATED) for a in report.attempts),
        tokens_in=report.tokens["input"],
        tokens_out=report.tokens["output"],
        seconds=round(seconds, 3),
        validation_seconds=round(validation_seconds, 3),
        failure=None if report.passed else failure_reason(report),
        error="" if report.passed or not report.attempts else clip_head(report.attempts[-1].feedback, ERROR_CHARS),
        code="" if report.passed or not report.attempts else clip_head(report.attempts[-1].code, CODE_CHARS),
        sample=sample,
        replies=[hashlib.sha256(a.reply.encode()).hexdigest()[:16] for a in report.attempts],
        killed=killed,
        mutants=mutants,
    )


def failure_reason(report: Report) -> str:
    last = report.attempts[-1]
    first = next((line[2:] for line in last.feedback.splitlines() if line.startswith("- ")), None)
    reason = f"{report.stop_reason}; last: {first}" if first else report.stop_reason
    return reason if len(reason) <= FAILURE_CHARS else reason[: FAILURE_CHARS - 3] + "..."
