"""Canaries for JavaScript runners: twins of the suite's own tests, planted in a copy of one of
its test files, whose outcomes autofix knows in advance.

A JavaScript runner's report can't be sealed as pytest's is: node:test's children report over
their stdout, Jest's and Vitest's workers over a channel to the parent, and code under test runs
in those processes. So every run carries tests whose outcomes are known, and a report that gets
one wrong was forged. They can't be told apart from the suite's tests, because they are the
suite's tests: the planted file is a copy of a test file that failed last (else of one the draw
picks), beside it, with its imports, hooks and describe blocks, and every test call removed but
the twins. Each twin is a test of that file under a title drawn from the suite's own words:

- a *broken* twin is its original with the last assertion of its own (one the body always
  reaches) made to fail whatever the code does: the same call of the code under repair, the same
  matcher, the expected value changed (a number moved, a string lengthened, a boolean flipped, an
  array's or object's last element changed or one added, any other value changed at run time by
  its type), or the matcher negated when it takes no expected value (`toBeNull()` ->
  `not.toBeNull()`). Whatever satisfies the original fails it, and while the bug is there it fails
  as its original does, so a forger keyed on the function, the message, the file or the kind of
  values compared flips it too. A test with no such assertion has its body run and then two
  different numbers compared, and is twinned broken only when none of its file's has one;
- an *echo* twin is its original unchanged: it must come back as its original does.

A twin missing, reported twice, a broken one passed, or an echo differing from its original is a
forged report. When the planted file can't load, neither can its original, and nothing is due.
"""

from __future__ import annotations

import hmac
import os
import random
import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from ast_grep_py import SgNode, SgRoot

from bot import safefs
from bot.judge.integrity import Case
from bot.judge.twins import Planted, Twin

TESTS = {"test", "it"}  # what declares a test in node:test, Jest and Vitest alike
SUITES = {"describe", "suite", "context"}
FUNCTIONS = {"arrow_function", "function_expression", "function"}
STRINGS = {"string", "template_string"}
NESTED = {*FUNCTIONS, "function_declaration", "generator_function", "generator_function_declaration", "class_body"}
LANGUAGES = {".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx"}
SPLIT = " > "  # between a test's describe titles and its own, as the reporters write ids
WORDS = ("empty", "single", "order", "repeat", "large", "negative", "nested", "mixed", "default", "boundary")
BROKEN, ECHOES = 2, 2  # twins of one file
FILES = 3  # planted files at most in a run (twice that in a calibration)
CALIBRATED = 24  # twins of one file tried at most when learning which come back as their originals
SOURCE_CAP = 1 << 20  # of a test file copied: a larger one gets no twins
FORGED = "the test run's report was tampered with"
NAME = re.compile(r"^(?P<stem>.*?)(?P<mark>[._-](?:test|spec))?(?P<ext>(?:\.[A-Za-z0-9]+)+)$")


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
    text = safefs.read_text(os.path.join(work, relative), SOURCE_CAP)
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
    typed = language != "javascript"
    draws = {test: drawn(test, typed) for test in choices}
    if every:
        broken, echoes = [t for t in choices if t in prefer][:CALIBRATED], choices[:CALIBRATED]
    else:
        # A test that fails on an assertion of its own first: its twin fails as it does.
        own = {test for test in choices if own_assertion(known[test].callback, drawn(test, typed))}
        broken = sorted(choices, key=lambda test: (test not in prefer, test not in own, pick.random()))[:BROKEN]
        echoes = pick.sample(choices, min(ECHOES, len(choices)))
    titles = {d.path[-1] for d in declared}
    edits: dict[int, list[str]] = {}
    twins = []
    for test, is_broken in [*((t, True) for t in broken), *((t, False) for t in echoes)]:
        found = known[test]
        title = fresh_title(words, titles)
        titles.add(title)
        new = twin_text(found, title, is_broken, runner, draws[test])
        edits.setdefault(found.statement.range().start.index, []).append(new)
        twins.append(Twin(f"{target}::{SPLIT.join((*found.path[:-1], title))}", test, is_broken))
    planted = rewritten(text, test_statements(root), edits)
    return Planted(target, unchecked(planted) if typed else planted, tuple(twins))


def unchecked(text: str) -> str:
    """A TypeScript copy with its type check off (`// @ts-nocheck`, after a `#!` line): ts-jest
    compiles it as the runs would, and a twin's changed value never fails to compile."""
    if text.startswith("#!"):
        first, _, rest = text.partition("\n")
        return f"{first}\n// @ts-nocheck\n{rest}"
    return "// @ts-nocheck\n" + text


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


def twin_text(found: Declared, title: str, broken: bool, runner: str, draw: Draw | None = None) -> str:
    """The test statement again, under `title`. A broken twin's last assertion of the test's own
    (`own_assertion`) is made to fail whatever the code does; a test without one gets its body
    awaited and then two different numbers compared (`failing_assertion`)."""
    statement = found.statement
    start = statement.range().start.index
    text = statement.text()
    title_node = [c for c in (found.node.field("arguments") or found.node).children() if c.is_named()][0]
    quote = title_node.text()[0]
    spans = [(title_node.range().start.index - start, title_node.range().end.index - start, f"{quote}{title}{quote}")]
    own = own_assertion(found.callback, draw or Draw(secrets.SystemRandom(), list(WORDS))) if broken else None
    if own is not None:
        node, new = own
        spans.append((node.range().start.index - start, node.range().end.index - start, new))
    elif broken:
        callback = found.callback
        body = callback.field("body")
        assert body is not None  # every function has one
        left = 1 + secrets.randbelow(1000)
        right = left + 1 + secrets.randbelow(1000)
        fails = failing_assertion(runner, left, right)
        inner = body.text() if body.kind() == "statement_block" else f"{{ return ({body.text()}); }}"
        wrapped = f"{{ await (async () => {inner})(); {fails} }}"
        spans.append((body.range().start.index - start, body.range().end.index - start, wrapped))
        if not callback.text().startswith("async"):
            offset = callback.range().start.index - start
            spans.append((offset, offset, "async "))
    for begin, end, new in sorted(spans, reverse=True):
        text = text[:begin] + new + text[end:]
    return text


@dataclass(frozen=True)
class Draw:
    """What a broken twin's expected value is changed by: drawn from `rng`, the same for a test
    all the process long (`drawn`), so a twin calibrated on the repository's own code is the one
    its runs carry."""

    rng: random.Random | secrets.SystemRandom
    words: list[str]
    typed: bool = False  # TypeScript: the value-changing function's parameter is annotated

    def number(self) -> int:
        return self.rng.randint(2, 9)

    def word(self, avoid: str = "") -> str:
        for _ in range(20):
            word = self.rng.choice(self.words)
            if word not in avoid:
                return word
        return f"{self.rng.choice(self.words)}{self.rng.randint(10, 99)}"


KEY = secrets.token_bytes(32)  # the draws' key, this process's alone


def drawn(test: str, typed: bool) -> Draw:
    """The draws of `test`'s broken twin, from its id alone (words of its title, or the stock)."""
    words = sorted({*re.findall(r"[a-z]{3,}", test.split("::", 1)[-1].lower()), *WORDS})
    return Draw(random.Random(hmac.digest(KEY, test.encode("utf-8"), "sha256")), words, typed)


def own_assertion(callback: SgNode, draw: Draw) -> tuple[SgNode, str] | None:
    """The test's last assertion that runs whenever the body reaches its end (a statement of the
    body itself, or the arrow's expression, with no `return` before it), and what takes its
    place in a broken twin (`failing_call`): the same call of the code under repair with the same
    matcher, its expected value changed; or, for an assertion without one, the assertion as it is
    and then its opposite (`expect(v).toBeNull(); expect(v).not.toBeNull();`), which fail
    whether the value is right or wrong. None when the test has none."""
    body = callback.field("body")
    if body is None:
        return None
    if body.kind() != "statement_block":
        call = unawaited(body)
        found = failing_call(call, draw, awaited(body)) if call is not None else None
        if call is None or found is None:
            return None
        new, both = found
        changed = spliced(body, call, new)
        return body, f"{{ {body.text()}; return {changed}; }}" if both else changed
    candidates: list[tuple[SgNode, SgNode, SgNode]] = []  # statement, its expression, the call
    for statement in (c for c in body.children() if c.is_named() and c.kind() != "comment"):
        expression = next((c for c in statement.children() if c.is_named()), None)
        call = unawaited(expression) if statement.kind() in ("expression_statement", "return_statement") else None
        if call is not None and expression is not None:
            candidates.append((statement, expression, call))
        if returns(statement):
            break  # what follows may not run
    for statement, expression, call in reversed(candidates):
        found = failing_call(call, draw, awaited(expression))
        if found is None:
            continue
        new, both = found
        changed = spliced(statement, call, new)
        if not both:
            return statement, changed
        if statement.kind() == "return_statement":
            return statement, f"{expression.text()}; {changed}"
        return statement, f"{statement.text().rstrip().removesuffix(';')}; {changed}"
    return None


def awaited(expression: SgNode) -> bool:
    """An expression that is its call awaited (through parentheses)."""
    node: SgNode | None = expression
    while node is not None and node.kind() in ("await_expression", "parenthesized_expression"):
        if node.kind() == "await_expression":
            return True
        node = next((c for c in node.children() if c.is_named()), None)
    return False


def unawaited(node: SgNode | None) -> SgNode | None:
    """The call an expression is, through `await`."""
    while node is not None and node.kind() in ("await_expression", "parenthesized_expression"):
        node = next((c for c in node.children() if c.is_named()), None)
    return node if node is not None and node.kind() == "call_expression" else None


def returns(statement: SgNode) -> bool:
    """A `return` of the test's own body in or at `statement` (one in a nested function is that
    function's)."""
    for found in [statement, *statement.find_all(kind="return_statement")]:
        if found.kind() != "return_statement":
            continue
        nested = False
        for ancestor in found.ancestors():
            if ancestor == statement:
                break
            nested = nested or ancestor.kind() in NESTED
        if not nested:
            return True
    return False


# Matchers whose expected argument (by index; -1: the last) decides alone: any value unlike it fails.
MUTABLE = {
    "toBe": (0, 1), "toEqual": (0, 1), "toStrictEqual": (0, 1), "toMatchObject": (0, 1), "toHaveLength": (0, 1),
    "toBeCloseTo": (0, 1), "toHaveProperty": (1, 2), "toHaveBeenCalledTimes": (0, 1), "toHaveReturnedTimes": (0, 1),
    "toHaveLastReturnedWith": (0, 1), "toHaveBeenLastCalledWith": (-1, 0), "lastCalledWith": (-1, 0),
}  # fmt: skip
MODIFIERS = {"not", "resolves", "rejects"}
# node:assert's (and chai's assert's) comparisons of an actual and an expected value, and the
# assertions whose opposite is another of theirs.
ASSERT_EQUAL = {"strictEqual", "deepStrictEqual", "equal", "deepEqual"}
ASSERT_OPPOSITE = {
    "notStrictEqual": "strictEqual", "notDeepStrictEqual": "deepStrictEqual", "notEqual": "equal",
    "notDeepEqual": "deepEqual", "match": "doesNotMatch", "doesNotMatch": "match", "throws": "doesNotThrow",
    "doesNotThrow": "throws", "rejects": "doesNotReject", "doesNotReject": "rejects",
}  # fmt: skip


def failing_call(call: SgNode, draw: Draw, awaited: bool = False) -> tuple[str, bool] | None:
    """An assertion's call made to fail whatever the value is, and whether the original must run
    before it (True: the call is the original's opposite, which fails where the original passes).
    The expected value changed: `expect(f(x)).toEqual([1, 2])` -> `expect(f(x)).toEqual([1, 7])`,
    `toBe("a")` -> `toBe("a order")`, `toBe(true)` -> `toBe(false)`, `toBe(want)` -> `want`'s
    value changed at run time by its type, `assert.deepStrictEqual(f(x), [1])` ->
    `assert.deepStrictEqual(f(x), [6])`. The opposite, for a matcher without an expected value
    of that kind: `toBeNull()` -> `not.toBeNull()`, `not.toContain(x)` -> `toContain(x)`,
    `assert.notEqual(a, b)` -> `assert.equal(a, b)`, `assert.ok(x)` -> `assert.ok(!(x))`. None
    when it is no assertion autofix knows (a snapshot, chai's chains, a helper), or a promise's
    whose opposite would go unawaited."""
    callee = call.field("function")
    arguments_node = call.field("arguments")
    if callee is None or arguments_node is None:
        return None
    arguments = [c for c in arguments_node.children() if c.is_named() and c.kind() != "comment"]
    if any(argument.kind() == "spread_element" for argument in arguments):
        return None
    start = call.range().start.index
    text = call.text()

    def replaced(node: SgNode, new: str) -> str:
        begin, end = node.range().start.index - start, node.range().end.index - start
        return text[:begin] + new + text[end:]

    if callee.kind() == "identifier":
        if callee.text() == "assert" and arguments:
            return replaced(arguments[0], f"!({arguments[0].text()})"), True
        return None
    if callee.kind() != "member_expression":
        return None
    method_node, subject = callee.field("property"), callee.field("object")
    if method_node is None or subject is None:
        return None
    method = method_node.text()
    if subject.text() == "assert" or subject.text().endswith(".assert"):
        if method in ASSERT_EQUAL and len(arguments) >= 2:
            return replaced(arguments[1], changed_value(arguments[1], draw)), False
        if method in ASSERT_OPPOSITE and arguments and (awaited or "eject" not in method):
            return replaced(method_node, ASSERT_OPPOSITE[method]), True
        if method == "ok" and arguments:
            return replaced(arguments[0], f"!({arguments[0].text()})"), True
        return None
    negation: SgNode | None = None
    promised = False
    node = subject
    while node.kind() == "member_expression":
        name = node.field("property")
        if name is None or name.text() not in MODIFIERS:
            return None
        negation = node if name.text() == "not" else negation
        promised = promised or name.text() != "not"
        inner = node.field("object")
        if inner is None:
            return None
        node = inner
    if node.kind() != "call_expression" or (node.field("function") or node).text() != "expect":
        return None
    if "Snapshot" in method:
        return None
    index, count = MUTABLE.get(method, (None, None))
    if negation is None and index is not None and arguments and (count == 0 or len(arguments) == count):
        expected = arguments[index]
        return replaced(expected, changed_value(expected, draw)), False
    if promised and not awaited:
        return None
    if negation is not None:  # `.not` dropped: what passed negated fails plain
        inner = negation.field("object")
        assert inner is not None
        return text[: inner.range().end.index - start] + text[negation.range().end.index - start :], True
    end = subject.range().end.index - start
    return text[:end] + ".not" + text[end:], True


def changed_value(node: SgNode, draw: Draw) -> str:
    """An expression whose value no value equal to `node`'s equals: a literal changed where it
    is written, anything else changed at run time by its type."""
    literal_text = changed_literal(node, draw)
    if literal_text is not None:
        return literal_text
    number, word = draw.number(), draw.word()
    parameter = "(v: any)" if draw.typed else "(v)"
    return (
        f'({parameter} => typeof v === "number" ? (v !== v ? 0 : v + {number} !== v ? v + {number} : -v)'
        f' : typeof v === "bigint" ? v + BigInt({number}) : typeof v === "string" ? v + " {word}"'
        f' : typeof v === "boolean" ? !v : v == null ? {number}'
        f" : Array.isArray(v) ? [...v, v.length ? v[v.length - 1] : {number}]"
        f' : typeof v === "object" ? {{ ...v, {word}: {number} }} : [v])({node.text()})'
    )


DECIMAL = re.compile(r"-?\s*(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
RADIX = re.compile(r"0[xXoObB][0-9a-fA-F]+")


def changed_literal(node: SgNode, draw: Draw) -> str | None:
    """A literal changed where it is written (`3` -> `8`, `"a"` -> `"a order"`, `true` ->
    `false`, `null` -> `6`, `[1, [2]]` -> `[1, [5]]`, `{a: x}` -> `{a: x, order: 4}`), None for
    what isn't one."""
    kind, text = node.kind(), node.text()
    named = [c for c in node.children() if c.is_named() and c.kind() != "comment"]
    if kind == "number" or (
        kind == "unary_expression" and text.startswith("-") and named[-1:] and named[-1].kind() == "number"
    ):
        return changed_number(text, draw.number())
    if kind in STRINGS:
        return f"{text[:-1]} {draw.word()}{text[-1]}"
    if kind in ("true", "false"):
        return "false" if kind == "true" else "true"
    if kind in ("null", "undefined") or (kind == "identifier" and text == "undefined"):
        return str(draw.number())
    if kind == "parenthesized_expression" and len(named) == 1:
        inner = changed_literal(named[0], draw)
        return f"({inner})" if inner is not None else None
    if kind in ("as_expression", "satisfies_expression") and named:
        inner = changed_literal(named[0], draw)
        offset = named[0].range().end.index - node.range().start.index
        return inner + text[offset:] if inner is not None else None
    if kind == "array":
        if not named:
            return f"[{draw.number()}]"
        last = named[-1]
        inner = changed_literal(last, draw) if last.kind() != "spread_element" else None
        if inner is not None:
            return spliced(node, last, inner)
        return appended(text, "]", last.text() if last.kind() != "spread_element" else str(draw.number()))
    if kind == "object":
        pair = named[-1] if named else None
        value = pair.field("value") if pair is not None and pair.kind() == "pair" else None
        inner = changed_literal(value, draw) if value is not None else None
        if value is not None and inner is not None:
            return spliced(node, value, inner)
        return appended(text, "}", f"{draw.word(text)}: {draw.number()}")
    return None


def changed_number(text: str, by: int) -> str:
    """A number literal's value moved by `by` (doubled where a double can't tell the two apart)."""
    plain = text.replace("_", "")
    if plain.endswith("n"):
        return f"{int(plain[:-1].replace(' ', ''), 0) + by}n"
    try:
        if RADIX.fullmatch(plain):
            value = Decimal(int(plain, 0))
        elif DECIMAL.fullmatch(plain):
            value = Decimal(plain.replace(" ", ""))
        else:
            return f"({text} + {by})"
    except (ValueError, InvalidOperation):
        return f"({text} + {by})"
    moved = value + by if abs(value) < 2**52 else value * 2
    return str(moved)


def spliced(node: SgNode, part: SgNode, new: str) -> str:
    start = node.range().start.index
    text = node.text()
    return text[: part.range().start.index - start] + new + text[part.range().end.index - start :]


def appended(text: str, closing: str, item: str) -> str:
    """An element or property added before a literal's closing bracket."""
    head = text[: text.rindex(closing)].rstrip()
    separator = " " if head.endswith(("[", "{", ",")) else ", "
    return f"{head}{separator}{item}{' ' if closing == '}' else ''}{closing}"


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
