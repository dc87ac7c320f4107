"""Reproduce first: the model writes one test file from the issue, in the repository's own
framework (pytest's; in a JavaScript repository its runner's: Jest, Vitest or node:test; in a Go
module a `_test.go` file in the package the issue's code lives in, run alone by `go test -run`), and
autofix accepts it only when the runner runs it and it fails on the current code for a reason of
the code's: at an assertion, or at an exception raised inside the repository's code. Not the
test's own (an import of a module that isn't there, a name it never defined, a fixture that
doesn't exist, an exception its own lines raise), and not a name the repository lacks, `from calc
import add_fixed`, unless the issue names it (as a whole identifier in its text: a function the
issue asks for). Such a name is `wanted`: the fix must then make the test pass by running it
(bot/core/proof.py). A JavaScript test that calls a name the code lacks (`pass is not a function`)
is judged the same way, but its name is not `wanted`: it fails by calling it, and the fix's
mutants tell whether it runs what the fix wrote. A Go test fails for a reason of the code's when it
reports a failure (t.Errorf, t.Fatalf) or panics inside the repository's code; a file that doesn't
build (a name the package lacks, an unused import) is the test's own mistake, in the compiler's
words. The accepted test then judges the fix: failing before, passing after.

The file is written fd-relative, no link followed (bot/safefs.py): a pull request's tree may hold
a symbolic link at its path, and autofix writes as root.

The model never decides where the file goes, what it is called, or whether it reproduced the
bug: autofix places it, runs it in the sandbox and reads the verdict from its own pytest plugin
(a JavaScript runner's: from autofix's reporter, bot/judge/js/; go's: from its -json events,
bot/judge/go/).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from bot import safefs
from bot.core.extract import NoCode, extract_block, extract_code
from bot.core.report import Report
from bot.errors import UserError
from bot.judge import gate, guard, guards
from bot.judge.integrity import Case
from bot.lang import go as go_view
from bot.models.base import Model
from bot.text import clip_tail

SYSTEM = (
    "[autofix:reproduce] You write a test that reproduces a bug reported in an issue, before anyone fixes it. "
    "Answer with one ```python block holding one complete pytest test file. Import what you need inside the "
    "test functions (the module under test by its import path in the repository). Assert the behaviour the "
    "issue expects, so the test FAILS on the current code because of the bug and will pass once it is fixed: "
    "at an assertion, or at an exception the code raises. Use the names the code has; a name it lacks counts "
    "only when the issue asks for it. "
    "Keep it short: one to three test functions, no fixtures of your own files, no network."
)
RUNNERS = {"jest": "Jest", "vitest": "Vitest", "node": "node:test (node --test)"}  # a JavaScript runner's name
JS_SYSTEM = (
    "[autofix:reproduce] You write a test that reproduces a bug reported in an issue, before anyone fixes it. "
    "Answer with one ```{fence} block holding one complete {runner} test file, which autofix saves as {path}: "
    "import the module under test by its path relative to that file, the way the repository's own tests do{how}. "
    "Assert the behaviour the issue expects, so the test FAILS on the current code because of the bug and will "
    "pass once it is fixed: at an assertion, or at an exception the code raises. Use the names the code has. "
    "Keep it short: one to three tests, no files of your own, no network."
)
GO_SYSTEM = (
    "[autofix:reproduce] You write a test that reproduces a bug reported in an issue, before anyone fixes it. "
    "Answer with one ```go block holding one complete Go test file, which autofix saves as {path} and runs with "
    '`go test`: `package {package}`, as the package\'s other tests, importing "testing" and what else it uses; '
    "each test a `func TestXxx(t *testing.T)` that reports a failure with t.Errorf or t.Fatalf. "
    "Assert the behaviour the issue expects, so the test FAILS on the current code because of the bug and will "
    "pass once it is fixed. Use the names the code has: a file that doesn't compile is refused. "
    "Keep it short: one to three tests, no files of your own, no network."
)
# A Go test function, as go test finds one: `func TestXxx(t *testing.T)`.
GO_TEST_FUNC = re.compile(r"^func\s+(Test(?:[A-Z0-9_]\w*)?)\s*\(\s*\w+\s+\*testing\.T\s*\)", re.M)
HOW = {
    "vitest": ", with `test` and `expect` imported from vitest",
    "node": ", with `test` from node:test and `assert` from node:assert",
}
# A JavaScript test's own mistakes: a name or module it can't find, code that doesn't parse.
JS_OWN_MISTAKES = ("ReferenceError", "SyntaxError", "Cannot find module", "Error: Cannot find module")
# What a JavaScript test that checks something fails with: Jest's matchers, node:assert's and Vitest's (chai's).
JS_ASSERTIONS = re.compile(r"^(?:\w*Error: )?expect\(|^AssertionError\b")
# A name the code under test lacks, called: `pass is not a function`, `(0 , _grade.pass) is not a function`.
JS_MISSING = re.compile(r"^TypeError: \(?(?:0 , )?(?:[\w$]+\.)*(?P<name>[\w$]+)\)? is not a (?:function|constructor)")
# A stack frame: `at f (/abs/a.js:12:5)`, `at /abs/a.js:3:9`, `at file:///abs/a.mjs:4:2`.
JS_FRAME = re.compile(r"^\s+at (?:.*?\()?(?:file://)?(?P<path>[^\s()]+?\.[cm]?[jt]sx?):\d+:\d+\)?$")
# A failure that is the test's own mistake: it shows nothing about the code.
OWN_MISTAKES = ("ModuleNotFoundError", "NameError", "SyntaxError", "IndentationError", "fixture '")
# What a test that checks something fails with (`assert`, pytest.fail, pytest.raises' DID NOT RAISE).
ASSERTIONS = ("assert ", "assert\n", "AssertionError", "Failed: ")
# A name an existing module lacks, as the test's import or attribute access reports it.
MISSING = (
    re.compile(r"^ImportError: cannot import name '(?P<name>\w+)' from '(?P<module>[\w.]+)'"),
    re.compile(r"^AttributeError: module '(?P<module>[\w.]+)' has no attribute '(?P<name>\w+)'"),
)
# A frame's file in pytest's report: `path:12: ...` (long, short, line), `File "path", line 12` (native).
# Lines pytest prefixes with "E" hold the exception's own text, which the test chooses: never read.
# Source lines come indented or after ">", so a location starts its line (native: two spaces).
LOCATION = re.compile(r'^(?:(?P<path>[^\s":]+\.py):\d+: |  File "(?P<native>[^"\n]+\.py)", line \d+)')
FEEDBACK_CHARS = 4_000


@dataclass(frozen=True)
class Wanted:
    """A name the test imports that the repository doesn't define yet, and the issue names."""

    module: str
    name: str


@dataclass
class Tried:
    code: str
    refused: str  # why it doesn't show the bug, as the model is told


@dataclass
class Reproduction:
    path: str  # relative to the repository's root
    code: str
    failing: list[str]  # the test ids that fail on the current code: the fix must make them pass
    passing: list[str]  # the file's other tests, which must keep passing
    output: str  # the failing tests' tracebacks, for the repair prompt
    tried: list[Tried] = field(default_factory=list)  # the refused ones before it
    wanted: list[Wanted] = field(default_factory=list)  # the names it fails on, which the fix must run


def module_id(path: str) -> str:
    """How autofix's pytest plugin names a test module: `tests/autofix/test_x.py` is `tests.autofix.test_x`;
    a JavaScript runner's tests are named after their file's path (`test/x.test.js::title`), Go's after
    their package's folder (`./calc::TestX`, `.::TestX` at the module's root)."""
    if go(path):
        folder = str(PurePosixPath(path).parent)
        return "." if folder == "." else f"./{folder}"
    return path.removesuffix(".py").replace("/", ".") if python(path) else path


def python(path: str) -> bool:
    """Whether the test at `path` is pytest's; otherwise a JavaScript runner's."""
    return path.endswith(".py")


def go(path: str) -> bool:
    """Whether the test at `path` is a Go test file, which go test runs."""
    return path.endswith("_test.go")


def go_tests(code: str) -> list[str]:
    """The test functions a Go test file declares."""
    return GO_TEST_FUNC.findall(code)


def ours(test: str, path: str, code: str) -> bool:
    """Whether the test id is of the test file at `path` holding `code` (or its load error): a
    Go file's tests share their package's folder with the package's other tests."""
    module, _, name = test.partition("::")
    if module != module_id(path):
        return False
    return not go(path) or not name or name.split("/", 1)[0] in go_tests(code)


def fence_of(path: str) -> str:
    """The fence a test file's code is shown in."""
    if python(path):
        return "python"
    if path.endswith(".go"):
        return "go"
    return "typescript" if PurePosixPath(path).suffix in (".ts", ".mts", ".cts", ".tsx") else "javascript"


def system(path: str, runner: str, package: str = "") -> str:
    """The instructions: a pytest file, one of the JavaScript runner's, or a Go test file in `package`."""
    if python(path):
        return SYSTEM
    if go(path):
        return GO_SYSTEM.format(path=path, package=package or "<the package's name>")
    named = RUNNERS.get(runner, runner)
    return JS_SYSTEM.format(fence=fence_of(path), runner=named, path=path, how=HOW.get(runner, ""))


def reproduce(
    model: Model,
    suite: gate.Suite,
    root: Path,
    path: str,
    task: str,
    tries: int,
    report: Report,
    issue: str = "",
    runner: str = "pytest",
    package: str = "",
) -> Reproduction | list[Tried]:
    """Up to `tries` test files, each told why the one before was refused; the accepted one stays
    written at `path` in `root`. Every refused try comes back when none was accepted. `issue`: the
    text whose identifiers a missing name must be among. `runner`: the suite's (pytest, jest,
    vitest, node, go), whose test file a path not ending in .py holds; `package`: a Go test file's
    package clause, as the package's other tests have it. A link or file on the way to `path` is a
    UserError: nothing is written."""
    tried: list[Tried] = []
    messages = [{"role": "system", "content": system(path, runner, package)}, {"role": "user", "content": task}]
    fence = fence_of(path)
    for _ in range(tries):
        started = time.monotonic()
        reply = model.complete(messages)
        verdict: Reproduction | str
        try:
            code = extract_code(reply.text) if python(path) else extract_block(reply.text, fence)
        except NoCode as exc:
            code, verdict = "", f"your reply held no test file ({exc}); answer with one ```{fence} block"
        else:
            screen = guards.for_path(path, test_file=True)
            found = [] if screen is None else screen(code, None, path)
            if found:
                verdict = guard.feedback(found)
            elif go(path) and not go_tests(code):
                verdict = "your file declares no test go test runs: name each one `func TestXxx(t *testing.T)`"
            else:
                write(root, path, code)
                verdict = judge(collected(suite, root, path, code), path, code, tried, issue)
        report.stage("reproduce").add(reply, time.monotonic() - started)
        if isinstance(verdict, Reproduction):
            return verdict
        safefs.remove_file(root, path)
        tried.append(Tried(code, verdict))
        messages += [
            {"role": "assistant", "content": reply.text},
            {"role": "user", "content": f"The test file was refused: {verdict}\n\nWrite the whole file again."},
        ]
    return tried


def write(root: Path, path: str, code: str) -> None:
    try:
        safefs.write_file(root, path, code.encode("utf-8"))
    except OSError as exc:
        raise UserError(
            f"{exc.strerror}: autofix writes the reproduction test only where no link or file stands on its way; "
            "nothing was written"
        ) from None


def collected(suite: gate.Suite, root: Path, path: str, code: str = "") -> gate.SuiteRun:
    """The test file's run. A command that names its own test paths (`pytest tests/unit`) never
    collects it: then it is named to pytest too, for this run and every later one of the suite. A
    JavaScript runner is given the file in place of the command's own paths: it runs it or nothing.
    go runs the tests `code` declares alone, in their package (`-run '^(TestX)$' ./calc`)."""
    module = module_id(path)
    if go(path):
        return suite.run(root, only={f"{module}::{name}" for name in go_tests(code)})
    if not python(path):
        return suite.run(root, only={f"{module}::"})
    if suite.also or not suite.names_elsewhere(root, path):  # else no run is needed to know it collects nothing
        run = suite.run(root, only={module})
        if suite.also or any(test.split("::")[0] == module for test in run.results) or not run.sealed:
            return run
    suite.also = (path,)
    named = suite.run(root, only={module})
    if not any(test.split("::")[0] == module for test in named.results):
        suite.also = ()
    return named


def judge(run: gate.SuiteRun, path: str, code: str, tried: list[Tried], issue: str = "") -> Reproduction | str:
    """The accepted reproduction, or why the file doesn't show the bug."""
    module = module_id(path)
    if run.killed:
        return f"the test run was stopped: {run.killed}"
    mine = {test: case for test, case in run.results.items() if ours(test, path, code)}
    # (a JavaScript file that failed to load is `file::`, its tests `file::title`)
    tests = {test: case for test, case in mine.items() if "::" in test and not test.endswith("::")}
    if not tests:
        broken = mine.get(module) or mine.get(f"{module}::")
        if broken is not None:  # it couldn't be imported: its collection error is named after it
            why = "import" if python(path) else "build" if go(path) else "load"
            told = broken.details or broken.message
            if go(path):  # the compiler's words: an external test package's (`calc_test`) come under its own path
                told = "\n".join(case.details for test, case in run.results.items() if test.endswith("::")).strip()
            return f"your test file failed to {why}: {clip_tail(told, FEEDBACK_CHARS)}"
        output = clip_tail(run.output, FEEDBACK_CHARS)
        if not python(path):
            return f"the test runner ran no test from your file; output:\n{output}"
        return f"pytest collected no test from your file (name the test functions `test_...`); output:\n{output}"
    failing = sorted(test for test, case in tests.items() if case.outcome in ("failed", "error"))
    if not failing:
        return "your test passed on the current code, so it does not show the bug"
    identifiers = set(re.findall(r"\w+", issue))
    wanted = []
    for test in failing:
        case = tests[test]
        mistaken = own_mistake if python(path) else own_go_mistake if go(path) else own_js_mistake
        why = mistaken(case, path, run.root)
        if why:
            return f"{test} fails because of the test itself, not the bug ({why}); fix the test:\n" + clip_tail(
                case.details, FEEDBACK_CHARS
            )
        if go(path):
            continue
        if not python(path):
            absent = js_missing_name(case)
            if absent is not None and absent not in identifiers:
                return (
                    f"{test} fails only because the code has no `{absent}`, a name the issue doesn't mention: a "
                    "name that doesn't exist yet is not the bug. Test the behaviour the issue describes through "
                    "the code that exists"
                )
            continue
        missing = missing_name(case)
        if missing is not None and missing.name not in identifiers:
            return (
                f"{test} fails only because `{missing.module}` has no `{missing.name}`, a name the issue doesn't "
                "mention: a name that doesn't exist yet is not the bug. Test the behaviour the issue describes "
                "through the code that exists"
            )
        if missing is not None:
            wanted.append(missing)
    output = "\n\n".join(f"{test}:\n{tests[test].details.strip()}" for test in failing).replace(run.root + "/", "")
    passing = sorted(test for test, case in tests.items() if case.outcome == "passed")
    return Reproduction(
        path, code, failing, passing, clip_tail(output, FEEDBACK_CHARS), list(tried), sorted(set(wanted), key=str)
    )


def missing_name(case: Case) -> Wanted | None:
    for pattern in MISSING:
        found = pattern.match(case.message)
        if found:
            return Wanted(found["module"], found["name"])
    return None


def own_mistake(case: Case, path: str, root: str) -> str:
    """Why a failing test shows nothing about the code, or "": it errored outside its call (a
    fixture), it names what doesn't exist, or it raised an exception (not an assertion) whose
    traceback never reaches the repository's code."""
    if case.outcome == "error" or case.message.startswith(OWN_MISTAKES):
        return f"{case.outcome}: {case.message}"
    if case.message.startswith(ASSERTIONS) or case.message in ("assert", "AssertionError") or missing_name(case):
        return ""
    frames = [
        found["path"] or found["native"]
        for line in case.details.splitlines()
        if not line.startswith("E ")
        for found in [LOCATION.match(line)]
        if found
    ]
    if any(in_repository(frame, path, root) for frame in frames):
        return ""
    return f"{case.message}, raised by the test's own lines, not inside the repository's code"


def own_js_mistake(case: Case, path: str, root: str) -> str:
    """own_mistake's JavaScript twin: the file didn't load, the test names what doesn't exist, or
    it threw an error (not an assertion's, nor a call of a name the code lacks, which `judge`
    reads) from no frame of the repository's code."""
    if case.outcome == "error" or case.message.startswith(JS_OWN_MISTAKES):
        return f"{case.outcome}: {case.message}"
    if JS_ASSERTIONS.match(case.message) or js_missing_name(case):
        return ""
    frames = [found["path"] for line in case.details.splitlines() for found in [JS_FRAME.match(line)] if found]
    if any(in_repository(frame, path, root) for frame in frames):
        return ""
    return f"{case.message}, raised by the test's own lines, not inside the repository's code"


def own_go_mistake(case: Case, path: str, root: str) -> str:
    """own_mistake's Go twin: the package's tests didn't build or the binary ended inside the test
    (an error, or a test that never finished), or it panicked from no frame of the repository's
    code. A failure the test reported itself (t.Errorf, t.Fatalf) is an assertion's."""
    if case.outcome == "error" or case.message.startswith("did not finish"):
        return f"{case.outcome}: {case.message}"
    if not case.message.startswith("panic: "):
        return ""
    frames = [found["path"] for found in go_view.LOCATION.finditer(case.details)]
    if any(in_repository(frame, path, root) for frame in frames):
        return ""
    return f"{case.message}, raised by the test's own lines, not inside the repository's code"


def js_missing_name(case: Case) -> str | None:
    """The name a JavaScript test called that the code lacks, or None. Not `wanted`: the proof's
    check that the fix runs it reads Python; the fix's mutants still tell whether the test runs
    what the fix wrote (none failing it: unproven)."""
    found = JS_MISSING.match(case.message)
    return found["name"] if found else None


def in_repository(frame: str, test_path: str, root: str) -> bool:
    """A frame's file is the repository's code: inside the scratch copy, not the test file, not
    an installed package (a virtual environment inside the tree)."""
    relative = frame[len(root) + 1 :] if frame.startswith(root + "/") else frame
    parts = PurePosixPath(relative).parts
    if not parts or PurePosixPath(relative).is_absolute() or ".." in parts:
        return False
    return relative != test_path and not {"site-packages", "dist-packages", "node_modules"} & set(parts)
