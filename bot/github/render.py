"""The Markdown autofix writes to GitHub: pull request bodies, the issue comment, the job summary.

Untrusted text (feedback, test and file names, model text, error messages) only appears inside
code spans and fences long enough that it cannot close them, so it can't inject Markdown, HTML or
@-mentions: GitHub renders neither inside code. In a table cell `|` is escaped too, because
GitHub splits the row into cells before it finds the code spans. Where Markdown is not parsed at
all — a line that starts with `<details>` is raw HTML up to the next blank line, `<summary>`
included — a code span would be no code: there untrusted text goes through `html_code`.
"""

from __future__ import annotations

import ast
import html
import re
from collections.abc import Callable

from bot import syntax
from bot.core.report import Attempt, Report
from bot.judge.failures import node_id
from bot.lang import registry
from bot.models.prices import AS_OF
from bot.spec import Tests
from bot.text import FEEDBACK_CHARS, capped_markdown, count, fence

BODY_LIMIT = 65_536  # characters: GitHub refuses a longer comment or pull request body
BODY_CHARS = 60_000  # what the attempts' log aims at, leaving room for the rest of a body
FEW_MUTANTS = 5  # below this many judged, a score says little, and the body says so


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


def spans(text: str) -> str:
    """Text with Markdown code spans (autofix's own sentences, which may quote untrusted text in
    them) as raw HTML for a `<summary>`, where Markdown is not parsed: every character escaped,
    each code span a `<code>` element, on one line."""
    parts = re.split(r"(`+)(.+?)\1", re.sub(r"\s", " ", text))
    shown = []
    for n in range(0, len(parts), 3):
        shown.append(html.escape(parts[n]))
        if n + 2 < len(parts):
            shown.append(html_code(parts[n + 2]))
    return "".join(shown)


def details(summary: str, inside: str) -> str:
    """A fold: `summary` is raw HTML (untrusted text in it through `html_code`), `inside` is
    Markdown, which a blank line after the summary lets GitHub parse."""
    return f"<details><summary>{summary}</summary>\n\n{inside}\n\n</details>"


def cell(markdown: str) -> str:
    """A table cell: `\\|` stays in the cell, and in a code span GitHub shows it as `|`."""
    return markdown.replace("|", "\\|")


def tokens(report: Report) -> int:
    return sum(report.tokens.values())


def test_name(test_id: str) -> str:
    """A test as a reader pastes it into pytest (`tests/test_shop.py::test_minutes`); a check's name as it is."""
    return node_id(test_id) if "::" in test_id else test_id


def attempts_table(report: Report) -> str:
    """One row per attempt; a failing-tests cell holds the one name or a count, the names being in
    the attempt's fold below (a cell of ten long names, in every row, is a wall)."""
    rows = ["| # | outcome | failing tests | seconds | tokens |", "| ---: | --- | --- | ---: | ---: |"]
    for attempt in report.attempts:
        failing = attempt.failing_tests
        shown = code_span(test_name(failing[0])) if len(failing) == 1 else str(len(failing)) if failing else "—"
        used = attempt.tokens["input"] + attempt.tokens["output"]
        outcome = "✅ pass" if attempt.passed else "❌ fail"
        rows.append(f"| {attempt.number} | {outcome} | {cell(shown)} | {attempt.seconds:.2f} | {used} |")
    return "\n".join(rows)


def feedback_sections(report: Report) -> str:
    """One fold per run of failed attempts that failed the same way (the same tests, the same
    feedback), not one per attempt: the same text folded three times is a wall too. The last
    attempt's was never sent, so it is what failed, not feedback."""
    failed = [attempt for attempt in report.attempts if not attempt.passed]
    if not failed:
        return ""
    room = min(FEEDBACK_CHARS, (BODY_CHARS - 10_000) // len(report.attempts))
    runs: list[list[Attempt]] = []
    for attempt in failed:
        previous = runs[-1][-1] if runs else None
        if (
            previous is not None
            and previous.number == attempt.number - 1
            and (previous.feedback, previous.failing_tests) == (attempt.feedback, attempt.failing_tests)
        ):
            runs[-1].append(attempt)
        else:
            runs.append([attempt])
    last = report.attempts[-1].number
    sections = []
    shown: list[tuple[int, str]] = []
    for run in runs:
        first = run[0]
        if len(run) > 1:
            title = f"Attempts {first.number}–{run[-1].number}: the same failures"
        elif first.number == last:
            title = f"Attempt {first.number}: what failed"
        else:
            title = f"Attempt {first.number}: what failed, as the model was told"
        feedback = first.feedback or "(no feedback)"
        for number, before in shown:  # a repeat's feedback quotes the failures of one shown already
            if len(before) > 40 and before in feedback and before != feedback:
                feedback = feedback.replace(before, f"[the same failures as attempt {number}, shown above]")
        shown.append((first.number, first.feedback))
        if len(feedback) > room:
            feedback = f"[... {len(feedback) - room} characters cut ...]\n" + feedback[-room:]
        listed = ""
        if len(first.failing_tests) > 1:
            listed = (
                f"{count(len(first.failing_tests), 'failing test')}:\n\n"
                + "\n".join(f"- {code_span(test_name(name))}" for name in first.failing_tests)
                + "\n\n"
            )
        sections.append(details(html.escape(title), f"{listed}{fence(feedback)}"))
    return "\n\n".join(sections)


def tried(report: Report | None) -> str:
    """The code the tests last failed, folded: what a reader can't judge the failure without. A
    reply that ran no test (no code, refused edits, code sent again) is not it."""
    judged = [a for a in report.attempts if a.kind in ("failed", "") and not a.passed] if report else []
    last = judged[-1] if judged else None
    if last is None or not last.code.strip():
        return ""
    assert report is not None
    if last.diff.startswith("diff --git "):  # edits to a tree (red CI, free-form): the tree's patch, not the reply
        return details(f"The change attempt {last.number} made", fence(last.diff, "diff"))
    view = registry.for_path(report.target)  # the target's language names the fence: JavaScript's is no Python
    code = fence(last.code, view.name if view is not None else "python")
    return details(f"The code attempt {last.number} wrote for {html_code(report.target)}", code)


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
    few = (
        f" Only {count(measured.total, 'mutant')}: weak evidence either way."
        if 0 < measured.total < FEW_MUTANTS
        else ""
    )
    lines = [f"**Test strength** (mutants of the code autofix wrote): {measured.headline()}.{few}"]
    if measured.survivors:
        lines[0] += " The mutants that survived, the tests' weak spots:"
    lines += [f"- {code_span(str(survivor))}" for survivor in measured.survivors[:shown]]
    if len(measured.survivors) > shown:
        lines.append(f"- and {len(measured.survivors) - shown} more")
    return "\n".join(lines)


def judged_by(tests: Tests, counted: int | None = None) -> str:
    """The tests that judged the code, exactly: a reviewer sees what "passed" means. `counted`:
    how many of the command's tests passed in the run that judged it (`passed_tests`)."""
    asserted = checks(tests.code)
    named = [
        f"the {count(asserted, 'inline check')} of `tests.code`" if asserted else "the inline checks (`tests.code`)"
    ]
    named = named if tests.code else []
    command = (tests.command or "").strip()
    of = f"the {count(counted, 'test')} of " if counted is not None else ""
    if "\n" in command:
        return f"**Judged by:** {' and '.join([f'{of}this command', *named])}:\n\n{fence(command, 'sh')}"
    return f"**Judged by:** {' and '.join([of + code_span(command), *named] if command else named)}."


def passed_tests(report: Report | None) -> int | None:
    """How many of the command's tests passed in the run that passed the code, as that run
    reported them; None when the code didn't pass, or the run counted none (an exit code)."""
    last = report.attempts[-1] if report is not None and report.attempts else None
    return last.tests_passed if last is not None and last.passed else None


def checks(code: str | None) -> int:
    """How many assertions the inline checks make: what "the checks passed" counts."""
    if not code:
        return 0
    try:
        return sum(isinstance(node, ast.Assert) for node in ast.walk(syntax.parse(code)))
    except (SyntaxError, ValueError, RecursionError):  # the spec refused it already; say no number
        return 0


RETRY = (
    "_No branch was pushed. To run autofix again, remove the label and add it again, or comment `/autofix` "
    "followed by what to do differently._"
)


def pull_body(report: Report, mark: str, opening: list[str], tests: Tests) -> str:
    """`opening`: the verdict line, the change, the links (bot/github/lead.py); then the log."""
    return "\n\n".join(part for part in [mark, *opening, log(report), judged_by(tests, passed_tests(report))] if part)


def failure_comment(report: Report | None, mark: str, opening: list[str], tests: Tests | None) -> str:
    attempts = log(report) if report is not None and report.attempts else ""
    judged = judged_by(tests) if tests is not None else ""
    parts = [mark, *opening, tried(report), attempts, judged, RETRY]
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


def baseline_proof(
    total: int,
    before: list[str],
    after: tuple[int, int] | None,
    flaky: list[str],
    pre_existing: list[str] | None = None,
) -> str:
    """The numbers a CI fix is judged by: the whole suite before and after (the last candidate's
    target tests still failing, tests it broke), each run in a clean copy; the tests failing at the
    base branch too, which count for nothing."""
    judged = (
        f"{after[0]} of them still failing, {count(after[1], 'new failure')}"
        if after
        else "no candidate reached the tests"
    )
    old = f" Failing at the base branch too (pre-existing, not counted): {names(pre_existing)}." if pre_existing else ""
    return (
        f"**Proof** (the whole suite, {count(total, 'test')}, each run in the sandbox in a clean copy): "
        f"before the change, {len(before)} failing ({names(before)}); after it, {judged}; "
        f"flaky: {names(flaky) + ' (left out of the judgement)' if flaky else 'none'}.{old}"
    )


DIFF_LINES = 40  # a diff longer than this is folded: the verdict and the next step stay on the first screen


def diff(patch: str) -> str:
    """The proposed change as a reviewer reads it: shown, or folded when long."""
    if not patch.strip():
        return ""
    lines = patch.count("\n")
    shown = fence(patch, "diff")
    return shown if lines <= DIFF_LINES else details(f"The change ({count(lines, 'line')} of diff)", shown)


def names(tests: list[str], shown: int = 20) -> str:
    return ", ".join(code_span(test_name(test)) for test in tests[:shown]) + (
        f" and {len(tests) - shown} more" if len(tests) > shown else ""
    )
