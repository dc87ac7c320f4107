"""What every pull request body, comment and job summary autofix writes opens with, so a busy
maintainer reads the answer first: one verdict line (✅/❌, what autofix did, which tests decided
it and on which attempt), then the change (its files, the model's own explanation when it gave
one, labelled as the model's and shown as text), then the links (the Actions run, the issue, the
pull request or comment made)."""

from __future__ import annotations

import re
import textwrap

from bot.core.report import Report
from bot.github import render
from bot.spec import Tests
from bot.text import count, fence

EXPLANATION_CHARS = 700  # of the model's prose: a paragraph, not an essay
FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
SEARCH_LINE = re.compile(r"^<{5,} ?SEARCH\s*$")
REPLACE_LINE = re.compile(r"^>{5,} ?REPLACE\s*$")


def verdict(passed: bool, line: str) -> str:
    """The first paragraph: ✅ or ❌ and one sentence, autofix's own words."""
    return f"{'✅' if passed else '❌'} {line}"


def on_attempt(report: Report) -> str:
    """`on attempt 2 of 3`: the attempt that passed (of a round's candidates, the first, which may
    not be the last call)."""
    kept = next((a.number for a in report.attempts if a.passed and a.kind == "passed"), len(report.attempts))
    return f"on attempt {kept} of {report.max_attempts}"


def failed_attempts(report: Report) -> str:
    """`on all 3 attempts`, `on the one attempt`, or how many before the loop stopped, and why."""
    tried = len(report.attempts)
    if tried == report.max_attempts:
        return "on the one attempt" if tried == 1 else f"on all {tried} attempts"
    reason = report.stop_reason.removeprefix("stopped: ")
    return f"on {count(tried, 'attempt')} ({reason})" if reason else f"on {count(tried, 'attempt')}"


def still_failing(report: Report) -> list[str]:
    """The tests the last code that was judged failed. A reply that repeated code, or whose edits
    were refused, ran no test: its "(same code as attempt 1)" is a note, not a test."""
    for attempt in reversed(report.attempts):
        named = [name for name in attempt.failing_tests if not name.startswith("(")]
        if named:
            return named
    return []


def decided_by(tests: Tests, counted: int | None = None) -> str:
    """The tests that decided, in a sentence: "the 180 tests of `pytest -q` and the 4 inline
    checks", the command's tests `counted` as the judged run reported them; without a count (a
    command judged by its exit code), the command alone."""
    named = []
    command = " ".join((tests.command or "").split())
    if command:
        shown = render.code_span(command[:120] + ("…" if len(command) > 120 else ""))
        named.append(f"the {count(counted, 'test')} of {shown}" if counted is not None else shown)
    if tests.code:
        asserted = render.checks(tests.code)
        named.append(f"the {count(asserted, 'inline check')}" if asserted else "the inline checks")
    return " and ".join(named) or "the tests"


def change(files: list[str], report: Report | None) -> str:
    """The change in a few lines: its files, and the model's explanation if its reply gave one."""
    parts = [f"**The change:** {', '.join(render.code_span(path) for path in files)}." if files else ""]
    said = explanation(report.attempts[-1].reply) if report is not None and report.attempts else ""
    if said:
        parts.append(f"**The model's explanation** (its own words, unverified):\n\n{fence(said)}")
    return "\n\n".join(part for part in parts if part)


def explanation(reply: str) -> str:
    """The first paragraph of prose in a model's reply, outside its code and edit blocks; "" when
    it gave none. Untrusted: the caller fences it as text, so nothing in it renders or mentions."""
    kept: list[str] = []
    fenced: str | None = None
    editing = False
    for line in reply.splitlines():
        opened = FENCE_LINE.match(line)
        if fenced is not None:
            closing = line.strip()
            if opened and set(closing) == {fenced[0]} and len(closing) >= len(fenced):
                fenced = None
            kept.append("")
            continue
        if opened:
            fenced = opened[1]
            if kept and kept[-1].strip() and " " not in kept[-1].strip():
                kept[-1] = ""  # a path line before a fenced edit block
            kept.append("")
        elif SEARCH_LINE.match(line):
            editing = True
            if kept:
                kept[-1] = ""  # the path line an edit block starts with
        elif REPLACE_LINE.match(line):
            editing = False
            kept.append("")
        elif not editing:
            kept.append(line)
    paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", "\n".join(kept))]
    first = next((p for p in paragraphs if len(re.findall(r"[A-Za-z]", p)) >= 20), "")
    if len(first) > EXPLANATION_CHARS:
        first = first[: EXPLANATION_CHARS - 1].rsplit(" ", 1)[0] + " …"
    return textwrap.fill(first, 100)


def links(*named: tuple[str, str | None]) -> str:
    """One line of links, each `(text, url)`; those without a url left out."""
    shown = [f"[{text}]({url})" for text, url in named if url]
    return " · ".join(shown)


FIX = re.compile(r"(?i)fix(es|ed)?\b")  # a title already saying what to do
BUG_PREFIX = re.compile(r"(?i)^\s*(?:\[\s*bug\s*\]|bug\s*:)\s*")


def title(issue_title: str, unproven: bool = False) -> str:
    """A pull request's title says what it changes: "Fix parse_duration counts hours as minutes"
    from an issue titled for its bug; a title that starts with "fix" as it is. (A title's first
    word may be a name, "add subtracts": no other verb is guessed.)"""
    said = BUG_PREFIX.sub("", " ".join(issue_title.split())).rstrip(".")
    said = said[:1].upper() + said[1:] if FIX.match(said) else f"Fix {said}" if said else "Fix the issue"
    return (said + (" (unproven)" if unproven else ""))[:250]
