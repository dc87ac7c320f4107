"""Canaries for JavaScript runners: twins of the suite's own tests, planted in a copy of one of
its test files, whose outcomes autofix knows in advance.

A JavaScript runner's report can't be sealed as pytest's is: node:test's children report over
their stdout, Jest's and Vitest's workers over a channel to the parent, and code under test runs
in those processes. So every run carries tests whose outcomes are known, and a report that gets
one wrong was forged. They can't be told apart from the suite's tests, because they are the
suite's tests: the planted file is a copy of a test file that failed last (else of one the draw
picks), beside it, with its imports, hooks and describe blocks, and every test call removed but
the twins. Each twin is a test of that file under a title drawn from the suite's own words:

- a *broken* twin runs its original's body and then fails (an assertion of two different
  numbers, in the runner's own words): it fails whatever the code does, the same way its
  original fails while the bug is there, so a forger keyed on the function, the message or the
  file flips it too;
- an *echo* twin is its original unchanged: it must come back as its original does.

A twin missing, reported twice, a broken one passed, or an echo differing from its original is a
forged report. When the planted file can't load, neither can its original, and nothing is due.
"""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ast_grep_py import SgNode, SgRoot

from bot import safefs
from bot.judge.integrity import Case

TESTS = {"test", "it"}  # what declares a test in node:test, Jest and Vitest alike
SUITES = {"describe", "suite", "context"}
FUNCTIONS = {"arrow_function", "function_expression", "function"}
STRINGS = {"string", "template_string"}
LANGUAGES = {".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx"}
SPLIT = " > "  # between a test's describe titles and its own, as the reporters write ids
WORDS = ("empty", "single", "order", "repeat", "large", "negative", "nested", "mixed", "default", "boundary")
BROKEN, ECHOES = 2, 2  # twins of one file
FILES = 3  # planted files at most in a run (twice that in a calibration)
CALIBRATED = 24  # twins of one file tried at most when learning which come back as their originals
# Assertion methods that two different numbers don't fail.
NOT_FAILING = re.compile(r"\.not\b|[Nn]ot[A-Z]|notEqual|throws|rejects|match|Truthy|Defined|close|Greater|Less|ok$")
SOURCE_CAP = 1 << 20  # of a test file copied: a larger one gets no twins
FORGED = "the test run's report was tampered with"
NAME = re.compile(r"^(?P<stem>.*?)(?P<mark>[._-](?:test|spec))?(?P<ext>(?:\.[A-Za-z0-9]+)+)$")


@dataclass(frozen=True)
class Twin:
    test_id: str  # as the reporter will name it
    original: str  # the suite's test it copies
    broken: bool  # True: fails by construction; False: comes back as the original does


@dataclass(frozen=True)
class Planted:
    path: str  # relative to the work folder
    text: str
    twins: tuple[Twin, ...]


@dataclass(frozen=True)
class Declared:
    """A test call of a file, with its literal title and the literal titles of its suites."""

    node: SgNode
    statement: SgNode
    path: tuple[str, ...]
    callback: SgNode


def plant(
    work: str,
    last: Mapping[str, str],
    runner: str,
    prefer: Iterable[str] = (),
    avoid: Iterable[str] = (),
    every: bool = False,
) -> list[Planted]:
    """Planted files of twins, none when no test file of the suite can carry one: one beside each
    test file of a test in `prefer` (those failing last: what a forger must flip lives there), at
    most FILES of them, and one beside a file the draw picks. `last`: each test id's outcome in
    the last run ("passed" or "failed"), only those tests twinned; `avoid`: never twinned (flaky).
    `every`: an echo of every test of those files and a broken twin of each preferred one, to
    learn which tests' twins come back as they do (`trusted`)."""
    avoid = set(avoid)
    usable = {test: outcome for test, outcome in last.items() if outcome in ("passed", "failed") and test not in avoid}
    files = sorted({test.split("::", 1)[0] for test in usable})
    preferred = sorted({test.split("::", 1)[0] for test in prefer if test in usable})
    order = preferred + [f for f in secrets.SystemRandom().sample(files, len(files)) if f not in preferred]
    words = vocabulary(last)
    found: list[Planted] = []
    drawn = 0  # files planted beside that no preferred test holds
    for relative in order:
        if len(found) >= (FILES * 2 if every else FILES) or (relative not in preferred and drawn):
            continue
        planted = plant_in(work, relative, usable, set(prefer), runner, words, every, {p.path for p in found})
        if planted is not None:
            found.append(planted)
            drawn += relative not in preferred
    return found


def plant_in(
    work: str,
    relative: str,
    usable: Mapping[str, str],
    prefer: set[str],
    runner: str,
    words: list[str],
    every: bool,
    taken_paths: set[str],
) -> Planted | None:
    text = read(os.path.join(work, relative))
    target = planted_name(relative, words)
    if text is None or target is None or target in taken_paths or os.path.lexists(os.path.join(work, target)):
        return None
    language = LANGUAGES.get(os.path.splitext(relative)[1], "javascript")
    root = SgRoot(text, language).root()
    declared = declarations(root, runner)
    known = {f"{relative}::{SPLIT.join(d.path)}": d for d in declared}
    choices = [test for test in known if test in usable]
    if not choices:
        return None
    pick = secrets.SystemRandom()
    if every:
        broken, echoes = [t for t in choices if t in prefer][:CALIBRATED], choices[:CALIBRATED]
    else:
        broken = sorted(choices, key=lambda test: (test not in prefer, pick.random()))[:BROKEN]
        echoes = pick.sample(choices, min(ECHOES, len(choices)))
    titles = {d.path[-1] for d in declared}
    edits: dict[int, list[str]] = {}
    twins = []
    for test, is_broken in [*((t, True) for t in broken), *((t, False) for t in echoes)]:
        found = known[test]
        title = fresh_title(words, titles)
        titles.add(title)
        edits.setdefault(found.statement.range().start.index, []).append(twin_text(found, title, is_broken, runner))
        twins.append(Twin(f"{target}::{SPLIT.join((*found.path[:-1], title))}", test, is_broken))
    return Planted(target, rewritten(text, test_statements(root), edits), tuple(twins))


def declarations(root: SgNode, runner: str) -> list[Declared]:
    """Every test call whose title and suites' titles are literal text, with its callback."""
    found = []
    for call in root.find_all(kind="call_expression"):
        callee = call.field("function")
        if callee is None or callee.kind() != "identifier" or callee.text() not in TESTS:
            continue
        statement = call.parent()
        arguments = [c for c in (call.field("arguments") or call).children() if c.is_named()]
        if statement is None or statement.kind() != "expression_statement" or len(arguments) < 2:
            continue
        title, callback = literal(arguments[0]), arguments[-1]
        if title is None or callback.kind() not in FUNCTIONS or not plain_callback(callback, runner):
            continue
        suites = enclosing_suites(call)
        if suites is None:
            continue
        found.append(Declared(call, statement, (*suites, title), callback))
    return found


def test_statements(root: SgNode) -> list[SgNode]:
    """Every statement that declares tests, in whatever form (`test.each(...)(...)`,
    `it.skip`, a title made at run time): none of them stays in a planted copy."""
    found = []
    for statement in root.find_all(kind="expression_statement"):
        call = next((c for c in statement.children() if c.is_named()), None)
        if call is not None and call.kind() == "call_expression" and callee_root(call) in TESTS:
            found.append(statement)
    return found


def callee_root(call: SgNode) -> str:
    """The name a call's callee starts from: `test` for `test.each(rows)("t", fn)`."""
    node: SgNode | None = call
    while node is not None and node.kind() in ("call_expression", "member_expression"):
        node = node.field("function") if node.kind() == "call_expression" else node.field("object")
    return node.text() if node is not None and node.kind() == "identifier" else ""


def plain_callback(callback: SgNode, runner: str) -> bool:
    """A callback autofix can wrap: no `done` parameter (node:test's context `t` is one)."""
    parameters = callback.field("parameters") or callback.field("parameter")
    named = [c for c in parameters.children() if c.is_named()] if parameters is not None else []
    if parameters is not None and parameters.kind() == "identifier":
        named = [parameters]
    return not named or (runner == "node" and len(named) == 1)


def enclosing_suites(node: SgNode) -> list[str] | None:
    titles: list[str] = []
    for ancestor in node.ancestors():
        if ancestor.kind() != "call_expression":
            continue
        callee = ancestor.field("function")
        name = callee.text() if callee is not None else ""
        if name in SUITES:
            arguments = [c for c in (ancestor.field("arguments") or ancestor).children() if c.is_named()]
            title = literal(arguments[0]) if arguments else None
            if title is None:
                return None
            titles.append(title)
        elif name.split(".")[0] in TESTS:
            return None  # a test inside a test (node:test's subtests): its own id differs
    return list(reversed(titles))


def literal(node: SgNode) -> str | None:
    """The text of a string literal with no substitution and no escape, else None."""
    inner = {c.kind() for c in node.children()}
    if node.kind() not in STRINGS or inner & {"template_substitution", "escape_sequence"}:
        return None
    return node.text()[1:-1]


def twin_text(found: Declared, title: str, broken: bool, runner: str) -> str:
    """The test statement again, under `title`; a broken twin's callback awaits the original body
    and then fails."""
    statement = found.statement
    start = statement.range().start.index
    text = statement.text()
    title_node = [c for c in (found.node.field("arguments") or found.node).children() if c.is_named()][0]
    quote = title_node.text()[0]
    spans = [(title_node.range().start.index - start, title_node.range().end.index - start, f"{quote}{title}{quote}")]
    if broken:
        callback = found.callback
        body = callback.field("body")
        assert body is not None  # every function has one
        left = 1 + secrets.randbelow(1000)
        right = left + 1 + secrets.randbelow(1000)
        fails = own_assertion(callback, left, right) or failing_assertion(runner, left, right)
        inner = body.text() if body.kind() == "statement_block" else f"{{ return ({body.text()}); }}"
        wrapped = f"{{ await (async () => {inner})(); {fails} }}"
        spans.append((body.range().start.index - start, body.range().end.index - start, wrapped))
        if not callback.text().startswith("async"):
            offset = callback.range().start.index - start
            spans.append((offset, offset, "async "))
    for begin, end, new in sorted(spans, reverse=True):
        text = text[:begin] + new + text[end:]
    return text


def own_assertion(callback: SgNode, left: int, right: int) -> str | None:
    """The test's own last assertion again, on two different numbers (`assert.deepStrictEqual(a,
    b)` -> `assert.deepStrictEqual(3, 9)`, `expect(a).toEqual(b)` -> `expect(3).toEqual(9)`): what
    fails the broken twin goes through the same call its original's assertions do, so one who
    silences that call silences the twin's failure too. None when the test has no assertion
    whose shape fails on those numbers (a negated one, `throws`, `match`)."""
    for statement in reversed(callback.find_all(kind="expression_statement")):
        call = next((c for c in statement.children() if c.is_named()), None)
        callee = call.field("function") if call is not None and call.kind() == "call_expression" else None
        if callee is None or callee.kind() != "member_expression" or NOT_FAILING.search(callee.text()):
            continue
        method = callee.field("property")
        subject = callee.field("object")
        if method is None or subject is None:
            continue
        if subject.kind() == "call_expression" and (subject.field("function") or subject).text() == "expect":
            return f"expect({left}).{method.text()}({right});"
        if subject.text().split(".")[-1] == "assert" or subject.text() == "assert":
            return f"{callee.text()}({left}, {right});"
    return None


def failing_assertion(runner: str, left: int, right: int) -> str:
    """Two different numbers compared in the runner's own words."""
    if runner == "jest":
        return f"expect({left}).toBe({right});"
    if runner == "vitest":
        return f'(await import("vitest")).expect({left}).toBe({right});'
    return f'(await import("node:assert")).strictEqual({left}, {right});'


def rewritten(text: str, statements: Sequence[SgNode], edits: Mapping[int, list[str]]) -> str:
    """The test file with every test statement replaced: by its twins where it has any, else by
    an empty statement (valid wherever a statement is, a loop's body included). A statement
    inside one already replaced (a test declared in a test's body) goes with it."""
    spans: list[tuple[int, int, str]] = []
    for statement in sorted(statements, key=lambda s: s.range().start.index):
        start, end = statement.range().start.index, statement.range().end.index
        if spans and start < spans[-1][1]:
            continue
        indent = "\n" + " " * statement.range().start.column
        spans.append((start, end, indent.join(edits.get(start, [])) or ";"))
    for start, end, new in reversed(spans):
        text = text[:start] + new + text[end:]
    return text


def planted_name(relative: str, words: list[str]) -> str | None:
    """A name beside `relative` that the runner's patterns collect as they collect it:
    `chunk.test.js` -> `chunk-empty-order.test.js`, `parse_test.js` -> `parse-empty-order_test.js`."""
    folder, name = os.path.split(relative)
    match = NAME.match(name)
    if match is None or not match["stem"]:
        return None
    extra = "-".join(secrets.choice(words) for _ in range(2))
    return os.path.join(folder, f"{match['stem']}-{extra}{match['mark'] or ''}{match['ext']}")


def vocabulary(last: Iterable[str]) -> list[str]:
    words = sorted({w for test in last for w in re.findall(r"[a-z]{3,}", test.split("::", 1)[-1].lower())})
    return words + list(WORDS) if len(words) >= 4 else list(WORDS) + words


def fresh_title(words: list[str], taken: set[str]) -> str:
    while True:
        title = " ".join(secrets.choice(words) for _ in range(3))
        if title not in taken:
            return title


def read(path: str) -> str | None:
    data = safefs.read_regular(path, SOURCE_CAP + 1)
    if data is None or len(data) > SOURCE_CAP:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def sift(cases: Sequence[Case], planting: Sequence[Planted]) -> tuple[list[Case], list[str]]:
    """The run's cases without the twins, and why the report is forged ([] when it isn't)."""
    paths = {planted.path for planted in planting}
    kept = [case for case in cases if case.test_id.split("::", 1)[0] not in paths]
    outcomes = {case.test_id: case.outcome for case in kept}
    problems = []
    for planted in planting:
        mine = [case for case in cases if case.test_id.split("::", 1)[0] == planted.path]
        original_file = planted.twins[0].original.split("::", 1)[0]
        if any(case.outcome == "error" for case in mine) and any(
            case.outcome == "error" and case.test_id.startswith(original_file + "::") for case in kept
        ):
            continue  # the copy can't load because its original can't: nothing is due
        for twin in planted.twins:
            seen = [case for case in mine if case.test_id == twin.test_id]
            title = twin.test_id.rsplit(SPLIT, 1)[-1].split("::")[-1]
            original = outcomes.get(twin.original)
            if not seen:
                problems.append(f"a test autofix planted (a canary) is missing from the report: {title}")
            elif len(seen) > 1:
                problems.append(f"a canary was reported {len(seen)} times: {title}")
            elif twin.broken and seen[0].outcome != "failed" and not (seen[0].outcome == original == "skipped"):
                problems.append(f"a canary that fails by construction was reported {seen[0].outcome}: {title}")
            elif not twin.broken and seen[0].outcome != original:
                problems.append(f"a canary was reported {seen[0].outcome}, the test it copies {original}: {title}")
    return kept, problems


def trusted(cases: Sequence[Case], planting: Sequence[Planted], last: Mapping[str, str]) -> set[str]:
    """The tests whose twins came back as they must, in a run of the planted file alone on the
    repository's own code: a test that leans on another's state, on its file's name or on
    running once may not, and is never twinned."""
    outcomes = {case.test_id: case.outcome for case in cases}
    bad = {
        twin.original
        for planted in planting
        for twin in planted.twins
        if outcomes.get(twin.test_id) != ("failed" if twin.broken else last.get(twin.original, "?"))
    }
    return {twin.original for planted in planting for twin in planted.twins} - bad


RULE = re.compile(r"^\s*⎯{3,}")  # Vitest's line between failures
# The runners' counts of files and tests, which count the twins too (Jest, Vitest, node:test).
# Vitest's have no colon: "      Tests  7 failed | 11 passed (18)".
COUNTS = (r"^\s*(Test Suites|Tests|Test Files):?\s+\d", r"^\s*[#ℹ] (tests|suites|pass|fail)\b")


def scrub(output: str, planting: Sequence[Planted]) -> str:
    """The run's output without what tells of the twins: a line naming the planted file or a
    twin's title, with the block under it (Jest's and node's failure details, indented deeper;
    Vitest's, up to its next rule of "⎯"), and the runner's counts, which count the twins."""
    if not planting:
        return output
    titles = [twin.test_id.rsplit("::", 1)[-1].rsplit(SPLIT, 1)[-1] for planted in planting for twin in planted.twins]
    bases = [os.path.basename(planted.path) for planted in planting]
    named = re.compile("|".join(re.escape(word) for word in [*bases, *titles]))
    counts = re.compile("|".join(COUNTS))
    kept: list[str] = []
    depth: int | None = None  # the indentation of the named line whose block is being left out
    ruled = False  # that block ends at Vitest's rule
    for line in output.split("\n"):
        if depth is not None:
            if ruled:
                if RULE.match(line):
                    depth, ruled = None, False
                continue
            if not line.strip() or indentation(line) > depth:
                continue
            depth = None
        if counts.search(line):  # a line alone, with no block under it
            continue
        if named.search(line):
            depth, ruled = indentation(line), line.lstrip().startswith("FAIL ") and SPLIT in line
            continue
        kept.append(line)
    return "\n".join(kept)


def indentation(line: str) -> int:
    return len(line) - len(line.lstrip())
