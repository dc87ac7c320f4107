"""The other rounds on autofix's own pull request, each answered like a review (flow.py): one
proven commit on its branch, never a second pull request, never a force-push.

- `/autofix <text>` on it (comments.py sends it here): the request as one thread on no line; a
  reproduction test first when it asks for new behaviour; one comment answers it.
- a reply in an existing review thread (`pull_request_review_comment` `created`, with
  `in_reply_to_id`) by a writer, mentioning autofix: that thread alone. A comment that starts a
  thread belongs to a review, whose `pull_request_review` event batches it.
- a failed CI run of its branch (`workflow_run` or `check_run`): the failed jobs' logs as the
  evidence (as the red-CI flow reads them; the tests they name as failing are the target), the
  fix pushed on the same branch; at most `max_rounds` such rounds per pull request, counted from
  autofix's own round comments on it (never from memory), so two bots can't loop; after the last,
  one comment saying it stopped."""

from __future__ import annotations

import re
from pathlib import Path

from bot.core.report import Report
from bot.github import issues, render
from bot.github.forge import Forge, RunInfo
from bot.github.red_ci import named
from bot.github.red_ci.evidence import clean_log
from bot.github.red_ci.repair import on_workflow_run as repair_run
from bot.github.review import threads
from bot.github.review.flow import MENTION, Occasion, answer_round
from bot.github.step import Skip, Step
from bot.text import clip_tail
from bot.visible import plain, visible

LOG_CHARS = 12_000  # of the failed jobs' logs, in the model's prompt (their ends)
ROUND = re.compile(r"<!-- autofix:ci-(\d+) -->")
SPENT = re.compile(r"<!-- autofix:spent (\d+) ([\d.]+|-) -->")


def own_pull(step: Step, head_ref: str, head_repo: str, body: str | None) -> bool:
    """A pull request autofix opened: its branch `autofix/…` in this repository, its marker in the body."""
    return (
        head_repo.lower() == step.config.repository.lower()
        and head_ref.startswith("autofix/")
        and render.marked(body or "")
    )


def on_request(step: Step, number: int, comment_id: int, login: str, text: str) -> int:
    """`/autofix <text>` on autofix's own pull request #number, by the writer `login`."""
    shown = visible(text)
    if not shown.text.strip():
        raise Skip(f"ignored: the request on pull request #{number} is all text no reader sees ({shown.removed})")
    if shown.removed:
        step.flow.print(f"autofix: pull request #{number}: removed before prompting: {shown.removed}")
    request = threads.unanchored(comment_id, login, shown.text.strip(), shown)
    occasion = Occasion(
        "request",
        comment_id,
        login,
        f"`/autofix` (comment {comment_id})",
        intro=f"@{login} asks for a change to pull request #{number}, which you opened.",
    )
    step.flow.print(f"autofix: pull request #{number} is autofix's own: a follow-up commit on its branch")
    return answer_round(step, number, occasion, lambda forge: threads.Batch([request], []))


def on_review_comment(step: Step, event: dict) -> int:
    if event.get("action") != "created":
        raise Skip(
            f"ignored: pull_request_review_comment event {event.get('action')!r}: only a new comment starts autofix"
        )
    comment, pull = event.get("comment") or {}, event.get("pull_request") or {}
    number, comment_id = int(pull["number"]), int(comment["id"])
    if not comment.get("in_reply_to_id"):
        raise Skip(f"ignored: review comment {comment_id} starts a thread: its review batches it")
    head = pull.get("head") or {}
    head_repo = str((head.get("repo") or {}).get("full_name") or "")
    if not own_pull(step, str(head.get("ref") or ""), head_repo, pull.get("body")):
        raise Skip(f"ignored: pull request #{number} ({head.get('ref')}) is not one autofix opened")
    user = comment.get("user") or {}
    login = str(user.get("login") or "")
    if login.lower() == (step.forge.own_login() or "").lower():
        raise Skip(f"ignored: autofix's own comment (@{login})")
    if not MENTION.search(visible(str(comment.get("body") or "")).text):
        raise Skip(f"ignored: the reply {comment_id} by @{login} doesn't mention autofix")
    login, permission = issues.writer(step, user, "replied")
    step.flow.print(f"autofix: pull request #{number}, a reply in a review thread by @{login} ({permission})")
    occasion = Occasion(
        "thread",
        comment_id,
        login,
        f"the reply {comment_id}",
        intro=f"A reply in a review thread of pull request #{number} asks for a change.",
    )
    return answer_round(step, number, occasion, lambda forge: threads.holding(forge, number, comment_id))


def on_workflow_run(step: Step, event: dict) -> int:
    """A failed run of autofix's own pull request: a follow-up round; any other: red CI repair."""
    run = event.get("workflow_run") or {}
    branch = str(run.get("head_branch") or "")
    if event.get("action") != "completed" or run.get("conclusion") != "failure" or not branch.startswith("autofix/"):
        return repair_run(step, event)
    info = RunInfo(int(run["id"]), str(run.get("html_url") or ""), str(run.get("head_sha") or ""))
    number = pull_of(step, run.get("pull_requests") or [], info.head_sha, branch)
    pull = step.forge.rest("GET", f"/pulls/{number}") if number is not None else None
    if pull is None or not own_pull(step, pull["head"]["ref"], (pull["head"].get("repo") or {}).get("full_name") or "",
                                    pull.get("body")):  # fmt: skip
        return repair_run(step, event)  # says why it ignores autofix's branch
    logs, missing = step.forge.failed_job_logs(info.id)
    if missing:
        step.flow.print(f"autofix: {missing}")
    said = "\n\n".join(f"Job {name!r}:\n{clean_log(log)}" for name, log in logs)
    return red_round(step, int(pull["number"]), info, said, logs)


def on_check_run(step: Step, event: dict) -> int:
    """A failed check run of autofix's own pull request: a follow-up round, its output the evidence."""
    check = event.get("check_run") or {}
    branch = str((check.get("check_suite") or {}).get("head_branch") or "")
    if event.get("action") != "completed" or check.get("conclusion") != "failure":
        raise Skip(f"ignored: check run {check.get('id')} is not a failed one")
    if not branch.startswith("autofix/"):
        raise Skip(f"ignored: check run {check.get('id')} is of {branch or 'no branch'}, not autofix's own")
    info = RunInfo(int(check["id"]), str(check.get("html_url") or ""), str(check.get("head_sha") or ""))
    number = pull_of(step, check.get("pull_requests") or [], info.head_sha, branch)
    pull = step.forge.rest("GET", f"/pulls/{number}") if number is not None else None
    if pull is None or not own_pull(step, pull["head"]["ref"], (pull["head"].get("repo") or {}).get("full_name") or "",
                                    pull.get("body")):  # fmt: skip
        raise Skip(f"ignored: check run {info.id} ({branch}) belongs to no pull request autofix opened")
    output = check.get("output") or {}
    text = "\n\n".join(str(output.get(k) or "") for k in ("title", "summary", "text") if output.get(k))
    said = f"Check {str(check.get('name') or '')!r}:\n{clean_log(text)}"
    return red_round(step, int(pull["number"]), info, said, [(str(check.get("name") or ""), text)])


def pull_of(step: Step, listed: list[dict], head_sha: str, branch: str) -> int | None:
    repository = step.config.repository.lower()
    mine = [
        p["number"] for p in listed if str(p["base"]["repo"].get("url", "")).lower().endswith(f"/repos/{repository}")
    ]
    if mine:
        return int(mine[0])
    return step.forge.pull_of_commit(head_sha, f"{step.config.repository.split('/')[0]}:{branch}")


def red_round(step: Step, number: int, run: RunInfo, said: str, logs: list[tuple[str, str]]) -> int:
    config, forge = step.config, step.forge
    pull = forge.pull(number)
    if run.head_sha != pull.head_sha:
        raise Skip(
            f"ignored: pull request #{number} moved on from {run.head_sha[:12]}; the run of its new head decides"
        )
    if not said.strip():
        raise Skip(f"ignored: run {run.id} of #{number}: no failed job's log to go on")
    most = config.repo.max_rounds
    before, tokens, dollars = rounds(forge, number)
    if before >= most:
        stopped(step, number, run, before, tokens, dollars)
        return 0
    step.flow.print(f"autofix: pull request #{number} is autofix's own: red CI round {before + 1} of {most}")

    def note(report: Report) -> str:
        spent = tokens + sum(report.tokens.values())
        cost = (dollars + report.cost) if report.cost is not None else None
        return (
            f"**Round {before + 1} of {most}** of red CI on this pull request (`max_rounds`); spent so far: "
            f"{spent:,} tokens{f', ${cost:.4f}' if cost is not None else ''}.\n"
            f"<!-- autofix:spent {spent} {f'{cost:.6f}' if cost is not None else '-'} -->"
        )

    evidence = plain(clip_tail(said, LOG_CHARS))
    text = f"CI run {run.id} failed at the branch's head ({run.url}). The failed jobs' logs (their end):\n\n"
    thread = threads.unanchored(run.id, "CI", text + evidence.text, evidence)
    occasion = Occasion(
        "ci",
        run.id,
        "",
        f"run {run.id}",
        reproduce=False,
        intro=(
            f"CI failed on pull request #{number}, which you opened. Make the failed jobs pass by changing the code, "
            "never the tests or the CI configuration, without breaking any test that passes now."
        ),
        note=note,
        expected=lambda root: set(named.failing_tests(logs, Path(root))),
    )
    return answer_round(step, number, occasion, lambda forge: threads.Batch([thread], []))


def rounds(forge: Forge, number: int) -> tuple[int, int, float]:
    """autofix's red CI rounds on #number so far, read from its own round comments: how many, and
    the tokens and dollars the last one says were spent so far."""
    own = (forge.own_login() or "").lower()
    count, tokens, dollars = 0, 0, 0.0
    page = 1
    while True:
        listed = forge.call(f"list comments of #{number}", lambda: comments_page(forge, number, page))  # noqa: B023
        for c in listed:
            user, body = c.get("user") or {}, str(c.get("body") or "")
            if not (user.get("type") == "Bot" or str(user.get("login") or "").lower() == own):
                continue
            if ROUND.search(body):
                count += 1
                if spent := SPENT.search(body):
                    tokens = max(tokens, int(spent[1]))
                    dollars = max(dollars, float(spent[2]) if spent[2] != "-" else 0.0)
        if len(listed) < 100:
            return count, tokens, dollars
        page += 1


def stopped(step: Step, number: int, run: RunInfo, before: int, tokens: int, dollars: float) -> None:
    most = step.config.repo.max_rounds
    mark = render.marker("ci-stop", number)
    body = (
        f"{mark}\n\n⏹️ autofix stopped: CI failed again ([run {run.id}]({run.url})) after {before} "
        f"{'round' if before == 1 else 'rounds'} of red CI fixes on this pull request, and `max_rounds` in "
        f"`{step.config.config_path}` is {most}, so that two bots can't answer each other forever. "
        f"Spent so far: {tokens:,} tokens{f', ${dollars:.4f}' if dollars else ''}. Nothing was pushed; "
        "the failure is a person's to look at now (or comment `/autofix <what to change>`)."
    )
    step.forge.upsert_comment(number, mark, step.for_github(body))
    step.flow.print(f"autofix: pull request #{number}: {before} red CI rounds of {most}: stopped, nothing pushed")


def comments_page(forge: Forge, number: int, page: int) -> list[dict]:
    return forge.rest("GET", f"/issues/{number}/comments?per_page=100&page={page}")
