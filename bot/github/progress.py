"""A task's progress where it was asked for: 👀 on the issue or comment that started it, and one
status comment, edited as the task moves on ("autofix is working on it: reproducing…", "attempt 2
of 3…", with a link to the run) that the task's result then replaces, or a link to the pull request.

The status comment is the task's usual comment: it carries the task's hidden marker
(`render.marker`) and goes through `Forge.upsert_comment`, which finds it again by that marker. So
the result, a failure or an error edit the same comment, and a re-run (a second label, a re-run of
the workflow) edits it too instead of adding one.

Shown only in a workflow run (GITHUB_RUN_ID set, as the runner always sets it), since the status
exists to link the run, and never with `publish: false`, which writes nothing to GitHub. The flows
call `stage` where a stage or an attempt starts (the loop's `on_stage`), never per line of output:
one edit each. Progress never fails a task: a failed call is one line in the log, and after a
failed status edit no more are tried (the result is still posted, as without progress).
"""

from __future__ import annotations

from bot.github import render
from bot.github.forge import ForgeError, PullResult
from bot.github.step import Step


def shown(step: Step) -> bool:
    """Whether this step shows progress on GitHub at all."""
    return step.config.run_url is not None and step.config.publish


def react(step: Step, number: int, comment_id: int | None = None) -> None:
    """👀 on issue or pull request #number, or on its comment that asked for the task."""
    if not shown(step):
        return
    try:
        step.forge.react(number, comment_id)
    except ForgeError as exc:
        step.flow.print(f"autofix: no reaction on #{number}: {exc}")


class Progress:
    """The status comment of one task on issue or pull request #number."""

    def __init__(self, step: Step, number: int, mark: str):
        self.step, self.number, self.mark = step, number, mark
        self.on = shown(step)
        self.said: str | None = None  # the stage the comment shows now

    def stage(self, doing: str) -> None:
        """The comment says autofix is `doing` this now (autofix's own words, never untrusted text)."""
        if not self.on:
            return
        if self._post(render.status(self.mark, doing, self.step.config.run_url)):
            self.said = doing

    def linked(self, pull: PullResult | None) -> bool:
        """The status comment, once shown, becomes the link to the pull request the task opened or
        updated: True. False when there is no status comment to turn into it."""
        if self.said is None or pull is None:
            return False
        self._post(render.pull_link(self.mark, pull.number, pull.operation))
        return True

    def stopped(self, exc: Exception) -> None:
        """An error ended a task whose flow posts no comment for it: the status, once shown, says so."""
        if self.said is not None:
            self._post(f"{self.mark}\n\nautofix stopped with an error:\n\n{render.fence(str(exc))}")

    def _post(self, body: str) -> bool:
        try:
            self.step.forge.upsert_comment(self.number, self.mark, self.step.for_github(body))
        except ForgeError as exc:
            self.on = False
            self.step.flow.print(f"autofix: status on #{self.number} not updated, and no more will be tried: {exc}")
            return False
        return True
