"""`/autofix` in a new comment, by someone with write access (asked of the API, like the label):

- on an issue: the issue's flow, the comment's text added to the task as instructions;
- on a pull request, with no text: the red-CI repair of that pull request;
- on a pull request, with text: that change to the pull request, the comment's text the task
  and its head the code, proven like a free-form issue, proposed into its branch;
- on autofix's own pull request, with text: a follow-up commit on its branch, proven like a
  review's (review/followups.py), never a pull request into the pull request;
- on a fork's pull request: one comment pointing at the forks example, and nothing of the fork
  runs: this job's token can write (red_ci/repair.py, `refuse_fork`).

Edited comments, comments by bots and autofix's own comments (its account's, carrying its marker)
never start anything: an edit could turn an old comment into a command nobody saw given. With a
personal access token, autofix's account is a person's: their own `/autofix` and labels count."""

from __future__ import annotations

import re

from bot.github import freeform, issues, progress, render
from bot.github.red_ci.repair import refuse_fork, repair
from bot.github.review import followups
from bot.github.step import Skip, Step

COMMAND = re.compile(r"\A[ \t]*/autofix(?![\w-])[ \t]*(?P<text>.*)\Z", re.S)


def on_comment(step: Step, event: dict) -> int:
    if event.get("action") != "created":
        raise Skip(f"ignored: issue_comment event {event.get('action')!r}: only a new comment starts autofix")
    comment = event.get("comment") or {}
    body = str(comment.get("body") or "").replace("\r\n", "\n")
    found = COMMAND.match(body)
    if found is None:
        raise Skip("ignored: the comment doesn't start with /autofix")
    sender = event.get("sender") or {}
    if render.marked(body) and str(sender.get("login", "")).lower() == (step.forge.own_login() or "").lower():
        raise Skip(f"ignored: autofix's own comment (its marker, by its account @{sender.get('login')})")
    login, permission = issues.writer(step, sender, "commented")
    issue = event.get("issue") or {}
    number, text = int(issue["number"]), found["text"].strip()
    progress.react(step, number, int(comment["id"]))
    if issue.get("pull_request") is None:
        step.flow.print(f"autofix: issue #{number}, /autofix by @{login} ({permission})")
        return issues.solve(step, issue, login, permission, text)
    step.flow.print(f"autofix: pull request #{number}, /autofix by @{login} ({permission})")
    pull = step.forge.pull(number)
    if pull.head_repo.lower() != step.config.repository.lower():
        return refuse_fork(step, pull, "`/autofix`" if not text else "the change asked for")
    if text and followups.own_pull(step, pull.head_ref, pull.head_repo, issue.get("body")):
        return followups.on_request(step, number, int(comment["id"]), login, text)
    if not text:
        return repair(step, number, None)
    return freeform.change_pull(step, number, login, text)
