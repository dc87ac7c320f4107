"""What the model is shown of a red CI run, within a character budget; every cut is marked.

In order: the failing tests with their tracebacks; the files that matter with numbered lines
(those edited so far in full, those the pull request changed in full, and windows around the
lines the tracebacks point at; a long file as its outline, the windows, and the whole functions
whose lines the pull request changed: the likely cause, which a traceback ending in a test's
assertion never names); the pull request's diff against its base; the tail of the failed
jobs' logs. Each section has a share of the budget, so a huge log can't crowd out the tracebacks.

Files are read inside the work tree only and never through a symbolic link: a pull request's
`notes.txt -> /proc/self/environ` is shown as that link. A binary or huge file is named, not read.
"""

from __future__ import annotations

import re
from collections.abc import Set

from bot.core import source
from bot.core.edit_file import WHOLE_LINES
from bot.core.source import LOCATIONS
from bot.core.workspace import TEXT_CAP, Entry, Workspace
from bot.github.render import fence
from bot.judge.gate import Baseline
from bot.spec import is_protected
from bot.text import TRACEBACK_CHARS, clip_head, clip_tail
from bot.visible import plain

BUDGET = 24_000
SHARES = (("failures", 0.3), ("files", 0.4), ("diff", 0.2), ("log", 0.1))
CONTEXT = 6  # lines around a line a traceback points at
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(?P<start>\d+)(?:,\d+)? @@")
TIMESTAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z ", re.M)


def build(
    baseline: Baseline,
    work: Workspace,
    pr_paths: list[str],
    diff: str | None,
    logs: list[tuple[str, str]],
    budget: int = BUDGET,
) -> str:
    room = {name: int(budget * share) for name, share in SHARES}
    sections = [
        ("Failing tests (the target: make them pass)", clip_tail(failures(baseline), room["failures"])),
        (
            "Files (line numbers are not part of the files)",
            clip_head(files(baseline, work, pr_paths, changed_lines(diff)), room["files"]),
        ),
    ]
    if diff is not None:
        sections.append(
            (
                "The pull request's change against its base branch (the likely cause)",
                fence(clip_head(diff, room["diff"] - 20), "diff"),
            )
        )
    if logs:
        text = "\n\n".join(f"Job {name!r}:\n{clean_log(log)}" for name, log in logs)
        sections.append(("The failed CI jobs' logs (end)", clip_tail(text, room["log"])))
    return "\n\n".join(f"## {title}\n\n{body}" for title, body in sections)


def failures(baseline: Baseline) -> str:
    run = baseline.first
    parts = []
    for test_id in baseline.target:
        result = run.results[test_id]
        traceback = result.details.replace(run.root + "/", "").strip()
        parts.append(
            f"### {test_id}\n{result.outcome}: {result.message}\n{fence(clip_tail(traceback, TRACEBACK_CHARS))}"
            if traceback
            else f"### {test_id}\n{result.outcome}: {result.message}"
        )
    if baseline.flaky:
        parts.append("Flaky (their outcome changed between two runs; ignore them): " + ", ".join(baseline.flaky))
    return "\n\n".join(parts)


def referenced_lines(baseline: Baseline, work: Workspace) -> dict[str, set[int]]:
    """path -> the line numbers the target tests' tracebacks point at, for paths of the work tree."""
    found: dict[str, set[int]] = {}
    run = baseline.first
    for test_id in baseline.target:
        details = run.results[test_id].details
        for pattern in LOCATIONS:
            for match in pattern.finditer(details):
                found.setdefault(match["path"].removeprefix(run.root + "/"), set()).add(int(match["line"]))
    return {path: lines for path, lines in found.items() if work.look(path).kind != "missing"}


def changed_lines(diff: str | None) -> dict[str, set[int]]:
    """path -> the lines at the pull request's head its diff adds (for a removal, the line after it)."""
    found: dict[str, set[int]] = {}
    path, line, previous = None, 0, ""
    for text in (diff or "").splitlines():
        if text.startswith("diff --git "):
            path = None
        elif text.startswith("+++ ") and previous.startswith("--- "):
            path = text[4:].removeprefix("b/") if text[4:] != "/dev/null" else None
        elif (hunk := HUNK.match(text)) is not None:
            line = int(hunk["start"])
        elif path is not None and text.startswith("+"):
            found.setdefault(path, set()).add(line)
            line += 1
        elif path is not None and text.startswith("-"):
            found.setdefault(path, set()).add(line)
        elif path is not None and text.startswith(" "):
            line += 1
        previous = text
    return found


def enclosing(code: str, lines: Set[int]) -> list[str]:
    """The names of the innermost functions or classes holding `lines`."""
    spans = source.definitions(code)
    names = []
    for line in sorted(lines):
        holders = [(last - first, name) for name, first, last in spans if first <= line <= last]
        if holders:
            names.append(min(holders)[1])
    return list(dict.fromkeys(names))


def files(baseline: Baseline, work: Workspace, pr_paths: list[str], changed: dict[str, set[int]] | None = None) -> str:
    """`changed`: path -> the lines the pull request's diff changed (changed_lines)."""
    whole = list(dict.fromkeys([*work.originals, *pr_paths]))
    pointed = referenced_lines(baseline, work)
    changed = changed or {}
    parts = []
    for path in whole:
        entry = work.look(path)
        if entry.kind == "missing":  # removed by the pull request
            continue
        note = (
            " (edited by you so far: its current content)"
            if path in work.originals
            else " (changed by the pull request)"
        )
        edited = changed.get(path, set())
        around = pointed.get(path, set()) | edited
        parts.append(f"### {path}{note}{protection(work, path)}\n{content(entry, large=around, changed=edited)}")
    for path, wanted in sorted(pointed.items()):
        if path not in whole:
            heading = f"### {path} (lines the tracebacks point at){protection(work, path)}"
            parts.append(f"{heading}\n{content(work.look(path), wanted)}")
    return "\n\n".join(parts) or "(no repository file is named in the tracebacks)"


def content(
    entry: Entry, wanted: set[int] | None = None, large: set[int] | None = None, changed: Set[int] = frozenset()
) -> str:
    """A text file with numbered lines (only those around `wanted` when given; for a file longer
    than WHOLE_LINES, its outline, the lines around `large` and the functions holding the lines
    the pull request `changed`); a link or a binary file is named, never read."""
    if entry.kind == "link":
        return f"A symbolic link, not followed:\n{fence(entry.link or '')}"
    if entry.text is None:
        what = {"binary": "a binary file", "large": f"a file over {TEXT_CAP >> 20} MiB"}.get(
            entry.kind, "not a regular file"
        )
        return f"({what}: not shown)"
    lines = entry.text.splitlines()
    if wanted is None and large is not None and len(lines) > WHOLE_LINES:
        names = enclosing(entry.text, changed)
        shown = source.windows(entry.text, large, names) or "(no line of it is named in the tracebacks)"
        told = "the lines the tracebacks point at" + (" and the functions the pull request changed" if names else "")
        outline = fence(source.outline(entry.text, large))
        return f"({len(lines)} lines: its outline, then {told})\n{outline}\n{fence(shown)}"
    if wanted is None:
        return fence(source.numbered(lines))
    return fence(
        source.numbered(
            lines,
            sorted({n for line in wanted for n in range(line - CONTEXT, line + CONTEXT + 1) if 1 <= n <= len(lines)}),
        )
    )


def protection(work: Workspace, path: str) -> str:
    return " — protected: you may not edit it" if is_protected(path, work.protected, work.allowed) else ""


def clean_log(text: str) -> str:
    # A log is shown as text, not Markdown: what its viewer shows nothing for is all it hides.
    return TIMESTAMP.sub("", ANSI.sub("", plain(text.replace("\r\n", "\n")).text))
