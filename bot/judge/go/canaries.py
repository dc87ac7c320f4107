"""Canaries for `go test`: twins of a package's own tests, planted in a file of that package,
whose outcomes autofix knows in advance.

go's event stream reaches autofix whole (run.py), but the test binary runs as the run's uid beside
go, and code under test can print test2json's marked framing for every test and leave with
`syscall.Exit(0)` before any test runs, or write to go's stdout through `/proc`: then the stream
says what the binary wants. So every run carries tests whose outcomes are known, and a report
that gets one wrong was forged. They can't be told apart from the suite's tests by where they are
or what they call, because they are the suite's tests: in each package holding a test that failed
last (those decide the verdict; else one the draw picks), a file named like the package's own
test files from two words of the suite's test names drawn for the run (`order_add_test.go`; no
fixed prefix or suffix a forger could look for), sorting after the package's other test files so
that its own tests run first, in the same package clause as the test it copies (`package calc` or `package
calc_test`), with that file's imports the twins use, and twins under names drawn from the same
words (`TestOrderAdd`):

- a *broken* twin is its original, a top-level `func TestX(t *testing.T)` (its subtests, `t.Run`,
  come with it), with its last check (`if got != want { t.Errorf(…) }`, `if
  !reflect.DeepEqual(got, want) { … }`, in the body or a subtest's) expecting another value: a
  literal changed where it is written (`3` -> `8`, `"ab"` -> `"ab order"`, `true` -> `false`),
  anything else changed at run time by its type (a function of the planted file, through
  `reflect`: a number moved, a word added to a string, an element to a slice, …). It calls the
  code under repair as the test does and fails on the test's own check, as the test does while
  the bug is there, so a forger keyed on the function, the message or the package flips it too;
- an *echo* twin is its original unchanged: it must come back as the original does.

Which tests' twins behave is learned once, on the repository's own code (`calibrate`: a test
whose check isn't reached, or whose twin doesn't build, is never twinned). A twin reported
twice, a broken one passed, an echo differing from its original (when that was reported), or a
twin missing from a package none of whose tests failed is a forged report; when the package's
tests don't build at all (the candidate broke them), nothing is due.
"""

from __future__ import annotations

import hmac
import os
import random
import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ast_grep_py import SgNode, SgRoot

from bot import safefs
from bot.judge.integrity import Case
from bot.judge.twins import Planted, Twin

FORGED = "the test run's report was tampered with"
WORDS = ("empty", "single", "order", "repeat", "large", "negative", "nested", "mixed", "default", "boundary")
BROKEN, ECHOES = 2, 2  # twins of one package
PACKAGES = 3  # packages planted in at most in a run (twice that in a calibration)
CALIBRATED = 24  # twins of one package tried at most when learning which come back as their originals
SOURCE_CAP = 1 << 20  # of a test file read: a larger one gets no twins
TEST = re.compile(r"^\(\s*(\w+)\s+\*\s*testing\.T\s*\)$")
REPORTS = re.compile(r"\b\w+\.(?:Error|Errorf|Fatal|Fatalf|Fail|FailNow)\s*\(")
LITERALS = {"int_literal", "float_literal", "interpreted_string_literal", "raw_string_literal", "true", "false"}
BLANKED = {"comment", "interpreted_string_literal", "raw_string_literal", "rune_literal"}
PURE = {"identifier", "selector_expression", "field_identifier", "package_identifier", "index_expression"}
# A file name ending in one of these before `_test.go` is built for that system alone.
SYSTEMS_TEXT = (
    "aix android darwin dragonfly freebsd hurd illumos ios js linux nacl netbsd openbsd plan9 solaris wasip1 "
    "windows zos 386 amd64 amd64p32 arm armbe arm64 arm64be loong64 mips mipsle mips64 mips64le mips64p32 "
    "mips64p32le ppc ppc64 ppc64le riscv riscv64 s390 s390x sparc sparc64 wasm"
)
SYSTEMS = frozenset(SYSTEMS_TEXT.split())


@dataclass(frozen=True)
class Declared:
    """A top-level test function of a package's test file."""

    name: str
    file: str  # the file's name in its folder
    node: SgNode
    package: str  # the file's package clause
    imports: tuple[tuple[str, str, str], ...]  # (local name or "" when guessed, guessed name, spec text)
    dotted: bool  # the file has a dot import: no twins (what its body uses can't be told)


def top(test_id: str) -> str:
    """`./calc::TestAdd/zero` -> `./calc::TestAdd`."""
    folder, _, name = test_id.partition("::")
    return f"{folder}::{name.split('/', 1)[0]}"


def plant(
    work: str,
    last: Mapping[str, str],
    prefer: Iterable[str] = (),
    avoid: Iterable[str] = (),
    every: bool = False,
) -> list[Planted]:
    """Planted files of twins: one in the package of each test in `prefer` (those failing last),
    at most PACKAGES of them, else in one package the draw picks. `last`: each test id's outcome
    in the last run, only those tests twinned (top-level tests, passed or failed); `avoid`: never
    twinned (flaky). `every`: an echo and a broken twin of every test of those packages (the
    preferred first), to learn which come back as they must (`trusted`)."""
    avoid = {top(test) for test in avoid}
    usable = {
        test: outcome
        for test, outcome in last.items()
        if outcome in ("passed", "failed") and "/" not in test.partition("::")[2] and test not in avoid
    }
    prefer = {top(test) for test in prefer} & set(usable)
    folders = sorted({test.split("::", 1)[0] for test in usable})
    preferred = sorted({test.split("::", 1)[0] for test in prefer})
    order = preferred or secrets.SystemRandom().sample(folders, len(folders))
    words = vocabulary(last)
    found: list[Planted] = []
    for folder in order:
        if len(found) >= (PACKAGES * 2 if every else PACKAGES) or (found and not preferred):
            break
        planted = plant_in(work, folder, usable, prefer, words, every)
        if planted is not None:
            found.append(planted)
    return found


def plant_in(
    work: str, folder: str, usable: Mapping[str, str], prefer: set[str], words: list[str], every: bool
) -> Planted | None:
    root = os.path.normpath(os.path.join(work, folder))
    declared = declarations(root)
    known = {f"{folder}::{d.name}": d for d in declared if not d.dotted}
    choices = [test for test in known if test in usable]
    if not choices:
        return None
    pick = secrets.SystemRandom()
    # One file of one package clause: the clause of a preferred test (else of one drawn).
    first = sorted(choices, key=lambda test: (test not in prefer, pick.random()))[0]
    clause = known[first].package
    choices = [test for test in choices if known[test].package == clause]
    if every:
        # Every test's broken twin is tried, a passing one's too: a failing test whose check sits
        # in a helper (`tests.validate(t)`) has none, and its package still needs one.
        tried = sorted(choices, key=lambda test: test not in prefer)[:CALIBRATED]
        broken, echoes = tried, tried
    else:
        # A failing test's broken twin first (it fails on the check the bug fails), then a
        # passing one's: every test here came back right at the calibration, its broken twin too.
        broken = sorted(choices, key=lambda test: (usable[test] != "failed", test not in prefer, pick.random()))
        echoes = pick.sample(choices, min(ECHOES, len(choices)))
    taken = identifiers(root)
    helper = fresh_name(words, taken, lower=True)
    taken.add(helper)
    generic = generics(work, folder)
    texts: list[str] = []
    twins: list[Twin] = []
    helped = False
    made = 0
    for test, is_broken in [*((t, True) for t in broken), *((t, False) for t in echoes)]:
        if is_broken and not every and made >= BROKEN:
            continue
        found = known[test]
        name = fresh_name(words, taken)
        taken.add(name)
        text = twin_text(found, name, is_broken, drawn(test), helper, generic)
        if text is None:
            continue
        made += is_broken
        helped = helped or (is_broken and f"{helper}(" in text)
        texts.append(text)
        twins.append(Twin(f"{folder}::{name}", test, is_broken))
    if not twins:
        return None
    like = known[first].file
    target = planted_name(root, words)
    if target is None:
        return None
    imports = used_imports([known[t.original] for t in twins], "\n".join(texts))
    if helped and generic and not any(spec == '"reflect"' or spec.endswith(' "reflect"') for spec in imports):
        imports.append('"reflect"' if "reflect" not in {local_name(spec) for spec in imports} else 'reflect "reflect"')
    body = "\n\n".join(texts + ([changer(helper) if generic else always(helper)] if helped else []))
    head = f"package {clause}\n\nimport (\n" + "".join(f"\t{spec}\n" for spec in imports) + ")\n\n"
    relative = os.path.normpath(os.path.join(folder, target))
    return Planted(relative, head + body + "\n", tuple(twins), (helper,) if helped else (), like)


def local_name(spec: str) -> str:
    name, _, path = spec.rpartition(" ")
    return name or guessed(path.strip('"`'))


def declarations(root: str) -> list[Declared]:
    """Every `func TestX(t *testing.T)` of the folder's test files (not a build-constrained one:
    a `//go:build` line, or a system's name before `_test.go`)."""
    found: list[Declared] = []
    try:
        entries = sorted(os.listdir(root))
    except OSError:
        return found
    for entry in entries:
        if not entry.endswith("_test.go") or entry.startswith((".", "_")) or constrained(entry):
            continue
        text = safefs.read_text(os.path.join(root, entry), SOURCE_CAP)
        if text is None or "//go:build" in text or "// +build" in text:
            continue
        tree = SgRoot(text, "go").root()
        clause = next((c for c in tree.children() if c.kind() == "package_clause"), None)
        package = next((c.text() for c in clause.children() if c.kind() == "package_identifier"), "") if clause else ""
        if not package:
            continue
        imports = []
        dotted = False
        for spec in tree.find_all(kind="import_spec"):
            named, path = spec.field("name"), spec.field("path")
            if path is None:
                continue
            alias = named.text() if named is not None else ""
            dotted = dotted or alias == "."
            literal = path.text().strip('"`')
            imports.append((alias, alias or guessed(literal), spec.text()))
        for node in tree.children():
            if node.kind() != "function_declaration":
                continue
            name_node, parameters = node.field("name"), node.field("parameters")
            name = name_node.text() if name_node is not None else ""
            if not re.fullmatch(r"Test[A-Z0-9_]\w*|Test", name) or parameters is None:
                continue
            if not TEST.match(parameters.text()) or node.field("type_parameters") is not None:
                continue
            found.append(Declared(name, entry, node, package, tuple(imports), dotted or text.count('import "C"') > 0))
    return found


def constrained(name: str) -> bool:
    parts = name.removesuffix("_test.go").split("_")
    return len(parts) > 1 and (parts[-1] in SYSTEMS or (len(parts) > 2 and parts[-2] in SYSTEMS))


def guessed(path: str) -> str:
    """The name an import is used by when it has no alias: its path's last element, without a
    major version (`/v2`, `yaml.v3`)."""
    parts = path.split("/")
    last = parts[-1]
    if re.fullmatch(r"v\d+", last) and len(parts) > 1:
        last = parts[-2]
    return re.sub(r"\.v\d+$", "", last)


def used_imports(originals: Sequence[Declared], text: str) -> list[str]:
    """The imports of the twins' files their code uses (`name.`, not in a comment or a string:
    go refuses an import nothing uses), and every blank import of them."""
    text = code_only(text)
    specs: list[str] = []
    for one in originals:
        for alias, name, spec in one.imports:
            used = alias == "_" or re.search(rf"(?<![\w.]){re.escape(name)}\.", text) is not None
            if used and spec not in specs:
                specs.append(spec)
    return specs


def code_only(text: str) -> str:
    """Go source with its comments and literals (strings, runes) blanked."""
    spans = [
        (node.range().start.index, node.range().end.index)
        for node in SgRoot(text, "go").root().find_all(any=[{"kind": kind} for kind in sorted(BLANKED)])
    ]
    for begin, end in sorted(spans, reverse=True):
        text = text[:begin] + " " * (end - begin) + text[end:]
    return text


def twin_text(found: Declared, name: str, broken: bool, draw: Draw, helper: str, generic: bool = True) -> str | None:
    """The test function again under `name`; a broken twin's last check made to expect another
    value (`last_check`), None when it has none autofix can change."""
    node = found.node
    start = node.range().start.index
    text = node.text()
    name_node = node.field("name")
    assert name_node is not None
    spans = [(name_node.range().start.index - start, name_node.range().end.index - start, name)]
    if broken:
        change = last_check(node, draw, helper, generic)
        if change is None:
            return None
        part, new = change
        spans.append((part.range().start.index - start, part.range().end.index - start, new))
    for begin, end, new in sorted(spans, reverse=True):
        text = text[:begin] + new + text[end:]
    return text


def last_check(function: SgNode, draw: Draw, helper: str, generic: bool = True) -> tuple[SgNode, str] | None:
    """The test's last check (an `if` whose block reports a failure: `t.Errorf`, `t.Fatal`, ...,
    anywhere in the function, a subtest's too) comparing a value with what it expects, and what
    replaces the expected value: `if got != want` -> `want` changed, `if !reflect.DeepEqual(got,
    want)` (any `…Equal(…)`) -> its last argument changed. Where the module's Go has no generics
    (go.mod's `go` line before 1.18, or none: go1.16) an expected value that isn't a literal can't
    be changed in place, typed; then the check's condition is made to hold (`cond || helper(want,
    …)`), a failure on the same check all the same."""
    body = function.field("body")
    if body is None:
        return None
    for check in reversed(body.find_all(kind="if_statement")):
        consequence, condition = check.field("consequence"), check.field("condition")
        if consequence is None or condition is None or not REPORTS.search(consequence.text()):
            continue
        compared = comparison(condition)
        if compared is None:
            continue
        like, expected = compared
        if not generic and expected.kind() not in LITERALS:
            number, word = draw.number(), draw.word()
            return condition, f'({condition.text()}) || {helper}({expected.text()}, {number}, "{word}")'
        return expected, changed_value(expected, like, draw, helper)
    return None


def comparison(condition: SgNode) -> tuple[SgNode | None, SgNode] | None:
    """(the value compared, when it can be read twice; the expected one) of a check's condition."""
    kind = condition.kind()
    if kind == "parenthesized_expression":
        inner = [c for c in condition.children() if c.is_named()]
        return comparison(inner[0]) if len(inner) == 1 else None
    if kind == "binary_expression":
        operator, left, right = condition.field("operator"), condition.field("left"), condition.field("right")
        if operator is None or operator.text() != "!=" or left is None or right is None or right.kind() == "nil":
            return None
        return (left if pure(left) else right if pure(right) else None), right
    if kind == "unary_expression":
        operator, operand = condition.field("operator"), condition.field("operand")
        if operator is None or operator.text() != "!" or operand is None or operand.kind() != "call_expression":
            return None
        callee, arguments = operand.field("function"), operand.field("arguments")
        if callee is None or arguments is None or not callee.text().endswith("Equal"):
            return None
        values = [c for c in arguments.children() if c.is_named() and c.kind() != "comment"]
        if len(values) < 2 or values[-1].kind() in ("nil", "variadic_argument") or "..." in arguments.text():
            return None
        return (values[0] if pure(values[0]) else values[-1] if pure(values[-1]) else None), values[-1]
    return None


def pure(node: SgNode) -> bool:
    """A value read again reads the same: names, fields, indexes of those."""
    if node.kind() in ("int_literal", "interpreted_string_literal", "raw_string_literal", "true", "false"):
        return True
    return node.kind() in PURE and all(pure(c) for c in node.children() if c.is_named())


def changed_value(node: SgNode, like: SgNode | None, draw: Draw, helper: str) -> str:
    """An expression whose value differs from `node`'s: a literal changed where it is written,
    anything else by the planted file's changer, typed as the value it is compared with."""
    kind, text = node.kind(), node.text()
    if kind == "int_literal":
        try:
            return str(int(text.replace("_", ""), 0) + draw.number())
        except ValueError:
            return f"({text} + {draw.number()})"
    if kind == "float_literal":
        return f"({text} + {draw.number()})"
    if kind == "interpreted_string_literal":
        return f'{text[:-1]} {draw.word()}"'
    if kind == "raw_string_literal":
        return f"{text[:-1]} {draw.word()}`"
    if kind in ("true", "false"):
        return "false" if kind == "true" else "true"
    typed = like.text() if like is not None else text
    return f'{helper}({typed}, {text}, {draw.number()}, "{draw.word()}")'


def changer(name: str) -> str:
    """The planted file's function that changes a value of any type (through reflect): what a
    broken twin expects when the test's expected value isn't a literal."""
    inner = name + "Value"
    return f"""func {name}[V any](_ V, v V, by int, word string) V {{
	x := v
	{inner}(reflect.ValueOf(&x).Elem(), by, word)
	return x
}}

func {inner}(r reflect.Value, by int, word string) bool {{
	switch r.Kind() {{
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		r.SetInt(r.Int() + int64(by))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		r.SetUint(r.Uint() + uint64(by))
	case reflect.Float32, reflect.Float64:
		if f := r.Float(); f+float64(by) != f {{
			r.SetFloat(f + float64(by))
		}} else {{
			r.SetFloat(-f - 1)
		}}
	case reflect.String:
		r.SetString(r.String() + " " + word)
	case reflect.Bool:
		r.SetBool(!r.Bool())
	case reflect.Slice:
		n := reflect.MakeSlice(r.Type(), r.Len(), r.Len()+1)
		reflect.Copy(n, r)
		r.Set(reflect.Append(n, reflect.Zero(r.Type().Elem())))
	case reflect.Map:
		n := reflect.MakeMapWithSize(r.Type(), r.Len()+1)
		iter := r.MapRange()
		for iter.Next() {{
			n.SetMapIndex(iter.Key(), iter.Value())
		}}
		if keys := n.MapKeys(); len(keys) > 0 {{
			n.SetMapIndex(keys[0], reflect.Value{{}})
		}} else {{
			n.SetMapIndex(reflect.Zero(r.Type().Key()), reflect.Zero(r.Type().Elem()))
		}}
		r.Set(n)
	case reflect.Pointer:
		n := reflect.New(r.Type().Elem())
		if !r.IsNil() {{
			n.Elem().Set(r.Elem())
			{inner}(n.Elem(), by, word)
		}}
		r.Set(n)
	case reflect.Array:
		for i := r.Len() - 1; i >= 0; i-- {{
			if {inner}(r.Index(i), by, word) {{
				return true
			}}
		}}
		return false
	case reflect.Struct:
		for i := r.NumField() - 1; i >= 0; i-- {{
			if r.Field(i).CanSet() && {inner}(r.Field(i), by, word) {{
				return true
			}}
		}}
		return false
	case reflect.Interface:
		if r.IsNil() {{
			return false
		}}
		n := reflect.New(r.Elem().Type()).Elem()
		n.Set(r.Elem())
		if !{inner}(n, by, word) {{
			return false
		}}
		r.Set(n)
	default:
		return false
	}}
	return true
}}"""


def always(name: str) -> str:
    """The planted file's function a broken twin's check calls where there are no generics: true
    for every value (`by` is drawn from 2 to 9)."""
    return f"""func {name}(_ interface{{}}, by int, word string) bool {{
	return by > 0 || word != ""
}}"""


GO_LINE = re.compile(rb"^go\s+(\d+)\.(\d+)", re.M)


def generics(work: str, folder: str) -> bool:
    """Whether the package in `folder` may use generics: the nearest go.mod at or above it (within
    `work`) says `go 1.18` or later; go reads a go.mod without a `go` line as go 1.16."""
    here = os.path.normpath(os.path.join(work, folder))
    top = os.path.normpath(work)
    while True:
        data = safefs.read_regular(Path(here) / "go.mod", SOURCE_CAP)
        if data is not None:
            found = GO_LINE.search(data)
            return found is not None and (int(found.group(1)), int(found.group(2))) >= (1, 18)
        if here == top or not here.startswith(top + os.sep):
            return True  # no go.mod: go's own language version
        here = os.path.dirname(here)


@dataclass(frozen=True)
class Draw:
    """What a broken twin's expected value is changed by, the same for a test all the process long
    (`drawn`), so the twin calibrated on the repository's own code is the one its runs carry."""

    rng: random.Random

    def number(self) -> int:
        return self.rng.randint(2, 9)

    def word(self) -> str:
        return self.rng.choice(WORDS)


KEY = secrets.token_bytes(32)  # the draws' key, this process's alone


def drawn(test: str) -> Draw:
    return Draw(random.Random(hmac.digest(KEY, test.encode("utf-8"), "sha256")))


def words_of(name: str) -> list[str]:
    """`TestParseURL_empty` -> parse, url, empty."""
    return [w.lower() for w in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+", name.removeprefix("Test")) if len(w) >= 3]


def vocabulary(last: Iterable[str]) -> list[str]:
    found = {w for test in last for w in words_of(test.partition("::")[2].split("/", 1)[0])}
    words = sorted(found - SYSTEMS - {"test"})
    return words + list(WORDS) if len(words) >= 4 else list(WORDS) + words


def fresh_name(words: list[str], taken: set[str], lower: bool = False) -> str:
    """A test's name (`TestOrderAdd`), or a helper's (`orderAdd`), taken by nothing in the package."""
    while True:
        parts = [secrets.choice(words).capitalize() for _ in range(2)]
        name = (parts[0].lower() + parts[1]) if lower else "Test" + "".join(parts)
        if name not in taken:
            return name


def identifiers(root: str) -> set[str]:
    """Every word of the folder's Go files: a name drawn is none of them."""
    found: set[str] = set()
    try:
        entries = os.listdir(root)
    except OSError:
        return found
    for entry in entries:
        if entry.endswith(".go"):
            found |= set(re.findall(r"\w+", safefs.read_text(os.path.join(root, entry), SOURCE_CAP) or ""))
    return found


def planted_name(root: str, words: list[str]) -> str | None:
    """A test file's name of two of the suite's words (`order_add_test.go`) that sorts after every
    test file of the folder: go runs a package's tests in the order of its files' names, so the
    suite's own tests run before any twin, and a panic in the code under test (which ends the
    test binary) shows on the suite's own test as it would without twins. Never one a system's
    name constrains (`…_linux_test.go`), never one that exists."""
    try:
        existing = sorted(e for e in os.listdir(root) if e.endswith("_test.go"))
    except OSError:
        return None
    last = existing[-1] if existing else ""
    usable = [w for w in words if w not in SYSTEMS and re.fullmatch(r"[a-z]+", w)] or list(WORDS)
    for _ in range(40):
        later = [w for w in usable if f"{w}_" > last] or [f"{last.split('_', 1)[0]}{w}" for w in usable]
        name = f"{secrets.choice(later)}_{secrets.choice(usable)}_test.go"
        if name > last and not os.path.lexists(os.path.join(root, name)):
            return name
    return None


def mine(test_id: str, planted: Planted) -> bool:
    """Whether a case is one of the planted file's twins (or a subtest of one)."""
    return any(test_id == twin.test_id or test_id.startswith(twin.test_id + "/") for twin in planted.twins)


def sift(cases: Sequence[Case], planting: Sequence[Planted]) -> tuple[list[Case], list[str]]:
    """The run's cases without the twins, and why the report is forged ([] when it isn't)."""
    kept = [case for case in cases if not any(mine(case.test_id, planted) for planted in planting)]
    outcomes = {case.test_id: case.outcome for case in kept}
    problems = []
    for planted in planting:
        folder = planted.twins[0].test_id.split("::", 1)[0]
        if outcomes.get(f"{folder}::") == "error":
            continue  # the package's tests don't build or run at all: that fails the run, nothing is due
        # A test of the package failed: the binary may have ended there (a panic), before the
        # twins (their file sorts last); the run fails anyway, so a twin left out forges nothing.
        ended = any(case.outcome in ("failed", "error") and case.test_id.startswith(folder + "::") for case in kept)
        for twin in planted.twins:
            seen = [case for case in cases if case.test_id == twin.test_id]
            title = twin.test_id.split("::", 1)[1]
            original = outcomes.get(twin.original)
            if not seen and ended:
                continue
            if not seen:
                problems.append(f"a test autofix planted (a canary) is missing from the report: {title}")
            elif len(seen) > 1:
                problems.append(f"a canary was reported {len(seen)} times: {title}")
            elif twin.broken and seen[0].outcome != "failed":
                problems.append(f"a canary that fails by construction was reported {seen[0].outcome}: {title}")
            elif not twin.broken and original is not None and seen[0].outcome != original:
                problems.append(f"a canary was reported {seen[0].outcome}, the test it copies {original}: {title}")
    return kept, problems


def trusted(cases: Sequence[Case], planting: Sequence[Planted], last: Mapping[str, str]) -> set[str]:
    """The tests whose twins came back as they must, in a run of the twins alone on the
    repository's own code."""
    outcomes: dict[str, list[str]] = {}
    for case in cases:
        outcomes.setdefault(case.test_id, []).append(case.outcome)
    bad = {
        twin.original
        for planted in planting
        for twin in planted.twins
        if outcomes.get(twin.test_id) != ["failed" if twin.broken else last.get(twin.original, "?")]
    }
    return {twin.original for planted in planting for twin in planted.twins} - bad


def scrub(text: str, planting: Sequence[Planted]) -> str:
    """`text` (go's output, a case's details) without a line naming the planted file, a twin or
    the planted file's functions."""
    if not planting or not text:
        return text
    words = [os.path.basename(planted.path) for planted in planting]
    words += [twin.test_id.split("::", 1)[1] for planted in planting for twin in planted.twins]
    words += [helper for planted in planting for helper in planted.helpers]
    named = re.compile("|".join(rf"\b{re.escape(word)}\b" for word in words))
    return "\n".join(line for line in text.split("\n") if not named.search(line))
