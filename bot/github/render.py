"""The Markdown autofix writes to GitHub: pull request bodies, the issue comment, the job summary.

Untrusted text (feedback, test and file names, model text, error messages) only appears inside
code spans and fences long enough that it cannot close them, so it can't inject Markdown, HTML or
@-mentions: GitHub renders neither inside code. In a table cell `|` is escaped too, because
GitHub splits the row into cells before it finds the code spans. Where Markdown is not parsed at
all — a line that starts with `<details>` is raw HTML up to the next blank line, `<summary>`
included — a code span would be no code: there untrusted text goes through `html_code`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

from bot.core.report import Report
from bot.models.prices import AS_OF
from bot.spec import Tests
from bot.text import FEEDBACK_CHARS, capped_markdown, count, fence

BODY_LIMIT = 65_536  # characters: GitHub refuses a longer comment or pull request body
BODY_CHARS = 60_000  # what the attempts' log aims at, leaving room for the rest of a body


def marker(kind: str, name: str | int) -> str:
    """Hidden in what autofix writes, so a re-run finds its own comment."""
    return f"<!-- autofix:{kind}-{name} -->"


def marked(body: str) -> bool:
    """Whether `body` carries a marker `marker` writes: autofix wrote it."""
    return re.search(r"<!-- autofix:[\w.-]+ -->", body) is not None


def code_span(text: str) -> str:
    """`text` as inline code, exactly but on one line: a line break would end a table row."""
    text = re.sub(r"\s", " ", text)
    ticks = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith(("`", " ")) or text.endswith(("`", " ")) else ""  # GitHub strips one space each side
    return f"{ticks}{pad}{text}{pad}{ticks}"


def html_code(text: str) -> str:
    """`text` as inline code inside raw HTML (a `<summary>`), escaped as HTML, on one line."""
    return "<code>" + html.escape(re.sub(r"\s", " ", text)) + "</code>"


def details(summary: str, inside: str) -> str:
    """A fold: `summary` is raw HTML (untrusted text in it through `html_code`), `inside` is
    Markdown, which a blank line after the summary lets GitHub parse."""
    return f"<details><summary>{summary}</summary>\n\n{inside}\n\n</details>"


def cell(markdown: str) -> str:
    """A table cell: `\\|` stays in the cell, and in a code span GitHub shows it as `|`."""
    return markdown.replace("|", "\\|")


def tokens(report: Report) -> int:
    return sum(report.tokens.values())


def attempts_table(report: Report) -> str:
    rows = ["| # | outcome | failing tests | seconds | tokens |", "| ---: | --- | --- | ---: | ---: |"]
    for attempt in report.attempts:
        failing = ", ".join(code_span(name) for name in attempt.failing_tests[:10])
        if len(attempt.failing_tests) > 10:
            failing += f" and {len(attempt.failing_tests) - 10} more"
        used = attempt.tokens["input"] + attempt.tokens["output"]
        outcome = "✅ pass" if attempt.passed else "❌ fail"
        rows.append(f"| {attempt.number} | {outcome} | {cell(failing) or '—'} | {attempt.seconds:.2f} | {used} |")
    return "\n".join(rows)


def feedback_sections(report: Report) -> str:
    if not report.attempts:
        return ""
    room = min(FEEDBACK_CHARS, (BODY_CHARS - 10_000) // len(report.attempts))
    sections = []
    for attempt in report.attempts:
        if attempt.passed:
            continue
        feedback = attempt.feedback or "(no feedback)"
        if len(feedback) > room:
            feedback = f"[... {len(feedback) - room} characters cut ...]\n" + feedback[-room:]
        sections.append(details(f"Attempt {attempt.number}: feedback", fence(feedback)))
    return "\n\n".join(sections)


def totals(report: Report) -> str:
    spent = report.tokens
    return (
        f"**Model:** {code_span(report.model)} · **Sandbox:** {report.sandbox} · "
        f"**Total:** {tokens(report)} tokens ({spent['input']} in, {spent['output']} out), {report.seconds:.2f} s"
        + (f", ${report.cost:.4f} (list prices of {AS_OF}, or the spec's `price`)" if report.cost is not None else "")
    )


def log(report: Report) -> str:
    """The attempts table, each failed attempt's feedback, the test strength and the totals."""
    parts = (
        [attempts_table(report), feedback_sections(report), strength(report), totals(report)]
        if report.attempts
        else [totals(report)]
    )
    return "\n\n".join(part for part in parts if part)


def strength(report: Report, shown: int = 20) -> str:
    """The score, and each surviving mutant on a line of its own: the tests' weak spots."""
    if report.strength is None:
        return ""
    measured = report.strength
    lines = [f"**Test strength** (mutants of the code autofix wrote): {measured.headline()}."]
    if measured.survivors:
        lines[0] += " The mutants that survived, the tests' weak spots:"
    lines += [f"- {code_span(str(survivor))}" for survivor in measured.survivors[:shown]]
    if len(measured.survivors) > shown:
        lines.append(f"- and {len(measured.survivors) - shown} more")
    return "\n".join(lines)


def judged_by(tests: Tests) -> str:
    """The tests that judged the code, exactly: a reviewer sees what "passed" means."""
    named = ["the inline checks (`tests.code`)"] if tests.code else []
    command = (tests.command or "").strip()
    if "\n" in command:
        return f"**Judged by:** {' and '.join([*named, 'this command'])}:\n\n{fence(command, 'sh')}"
    return f"**Judged by:** {' and '.join([code_span(command), *named] if command else named)}."


def pull_body(report: Report, mark: str, summary: str, fixes: int | None, tests: Tests) -> str:
    parts = [mark, summary]
    if fixes is not None:
        parts.append(f"Fixes #{fixes}")
    parts += [log(report), judged_by(tests)]
    return "\n\n".join(parts)


def failure_comment(report: Report | None, mark: str, headline: str, tests: Tests | None) -> str:
    attempts = log(report) if report is not None and report.attempts else ""
    judged = judged_by(tests) if tests is not None else ""
    parts = [
        mark,
        headline,
        attempts,
        judged,
        "_No branch was pushed. Remove and add the label again to re-run autofix._",
    ]
    return "\n\n".join(part for part in parts if part)


def status(mark: str, doing: str, run_url: str | None) -> str:
    """The status comment while a task runs: what autofix does now, in its own words, and the run."""
    link = f" ([the run]({run_url}))" if run_url else ""
    return f"{mark}\n\n⏳ autofix is working on it: {doing}…{link}"


def pull_link(mark: str, number: int, operation: str) -> str:
    """What the status comment becomes once the task's pull request is opened, updated or left as it was."""
    done = {"created": "opened", "updated": "updated"}.get(operation)
    what = f"autofix {done} #{number}" if done else f"#{number} already holds autofix's change"
    return f"{mark}\n\n✅ {what}: the pull request says how the tests judged it."


def capped(markdown: str, limit: int = BODY_LIMIT, size: Callable[[str], int] = len) -> str:
    """`markdown` as GitHub takes it, cut with a visible mark when too long (bot/text.py)."""
    return capped_markdown(markdown, limit, "too long for GitHub", size)


def passed_summary(report: Report) -> str:
    return (
        f"autofix wrote {code_span(report.target)}; the repository's tests passed on attempt "
        f"{len(report.attempts)} of {report.max_attempts}, run in the sandbox named below."
    )


def baseline_proof(
    total: int, before: int, after: tuple[int, int] | None, flaky: list[str], pre_existing: list[str] | None = None
) -> str:
    """The numbers a CI fix is judged by: the whole suite before and after (the last candidate's
    target tests still failing, tests it broke), each run in a clean copy; the tests failing at the
    base branch too, which count for nothing."""
    judged = f"{after[0]} failing, {count(after[1], 'new failure')}" if after else "no candidate reached the tests"
    old = f" Failing at the base branch too (pre-existing, not counted): {names(pre_existing)}." if pre_existing else ""
    return (
        f"**Baseline proof** (the whole suite, {total} tests, run in the sandbox in a clean copy): "
        f"before: {before} failing; after: {judged}; "
        f"flaky: {names(flaky) + ' (left out of the judgement)' if flaky else 'none'}.{old}"
    )


def names(tests: list[str], shown: int = 20) -> str:
    return ", ".join(code_span(test) for test in tests[:shown]) + (
        f" and {len(tests) - shown} more" if len(tests) > shown else ""
    )
