"""Localize, deterministic first: the repository map ranks the files toward what the issue names
(bot/core/repomap.py); one model call then picks at most MAX_FILES of the outline it was shown.
Files the issue's author named (`files:`) are taken as they are, with no model call. Whatever the
model answers, only files of the outline count, and the ranking's first files stand in when it
names none."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from bot.core import repomap
from bot.core.report import Report
from bot.models.base import Model

SYSTEM = (
    "[autofix:localize] You find where a bug reported in an issue lives in a repository. You are shown the "
    "issue and an outline of the repository's {languages} files, most relevant first. Answer with the paths of "
    "the files to read to fix it, at most 5, most likely first, one per line in one fenced block, and nothing else."
)
MAX_FILES = 5


@dataclass(frozen=True)
class Located:
    shown: tuple[str, ...]  # the files the outline showed the model
    chosen: list[str]  # the files whose content the next stages see
    outline: str


def localize(model: Model, root: Path, issue: str, named: list[str], report: Report) -> Located:
    started = time.monotonic()
    repo_map = repomap.RepoMap.build(root)
    ranked = repomap.rank(repo_map, repomap.mentions(issue))
    shown = repomap.render(repo_map, ranked, repomap.budget_of(model))
    given = [path for path in named if path in repo_map.files]
    if given:
        report.stage("localize").seconds += time.monotonic() - started
        return Located(shown.files, given[:MAX_FILES], shown.text)
    reply = model.complete(
        [
            {"role": "system", "content": SYSTEM.format(languages=spelled(repo_map.languages))},
            {"role": "user", "content": f"The issue:\n\n{issue}\n\nThe repository's outline:\n\n{shown.text}"},
        ]
    )
    picked = [path for path in paths_in(reply.text) if path in shown.files]
    report.stage("localize").add(reply, time.monotonic() - started)
    return Located(shown.files, picked[:MAX_FILES] or list(shown.files[:3]), shown.text)


def spelled(languages: tuple[str, ...]) -> str:
    """`Python`, `Python and JavaScript`, `TypeScript, JavaScript and Python`; `source` for none."""
    if len(languages) < 2:
        return languages[0] if languages else "source"
    return f"{', '.join(languages[:-1])} and {languages[-1]}"


def paths_in(reply: str) -> list[str]:
    """The reply's paths, in its order, once each: one per line of its fenced block (of the whole
    reply when it has none), with list marks and backticks taken off."""
    text = fenced(reply)
    found: dict[str, None] = {}  # a dict, not a list searched per line: a reply of 100,000 lines
    for line in (reply if text is None else text).splitlines():
        path = line.strip().lstrip("-*0123456789.) ").strip("`'\" ").removeprefix("./")
        if path:
            found.setdefault(path)
    return list(found)


def fenced(reply: str) -> str | None:
    """The first fenced block's body (from the line after its opening ``` to the next ```), by
    three finds: the regex that did this retried at each offset of a run of backticks with no
    newline after it, a time quadratic in the reply inside one C call no deadline stops."""
    start = reply.find("```")
    newline = reply.find("\n", start + 3) if start >= 0 else -1
    end = reply.find("```", newline + 1) if newline >= 0 else -1
    return reply[newline + 1 : end] if end >= 0 else None
