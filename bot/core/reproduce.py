"""Reproduce first: the model writes one pytest file from the issue, and autofix accepts it only
when pytest collects it and it fails on the current code for a reason of the code's: at an
assertion, or at an exception raised inside the repository's code. Not the test's own (an import
of a module that isn't there, a name it never defined, a fixture that doesn't exist, an exception
its own lines raise), and not a name the repository lacks, `from calc import add_fixed`, unless
the issue names it (as a whole identifier in its text: a function the issue asks for). Such a name
is `wanted`: the fix must then make the test pass by running it (bot/core/proof.py). The accepted
test then judges the fix: failing before, passing after.

The file is written fd-relative, no link followed (bot/safefs.py): a pull request's tree may hold
a symbolic link at its path, and autofix writes as root.

The model never decides where the file goes, what it is called, or whether it reproduced the
bug: autofix places it, runs it in the sandbox and reads the verdict from its own pytest plugin.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from bot import safefs
from bot.core.extract import NoCode, extract_code
from bot.core.report import Report
from bot.errors import UserError
from bot.judge import gate, guard
from bot.judge.integrity import Case
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
    """How autofix's pytest plugin names a test module: `tests/autofix/test_x.py` is `tests.autofix.test_x`."""
    return path.removesuffix(".py").replace("/", ".")


def reproduce(
    model: Model, suite: gate.Suite, root: Path, path: str, task: str, tries: int, report: Report, issue: str = ""
) -> Reproduction | list[Tried]:
    """Up to `tries` test files, each told why the one before was refused; the accepted one stays
    written at `path` in `root`. Every refused try comes back when none was accepted. `issue`: the
    text whose identifiers a missing name must be among. A link or file on the way to `path` is a
    UserError: nothing is written."""
    tried: list[Tried] = []
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": task}]
    for _ in range(tries):
        started = time.monotonic()
        reply = model.complete(messages)
        verdict: Reproduction | str
        try:
            code = extract_code(reply.text)
        except NoCode as exc:
            code, verdict = "", f"your reply held no test file ({exc}); answer with one ```python block"
        else:
            found = guard.findings(code, None, path)
            if found:
                verdict = guard.feedback(found)
            else:
                write(root, path, code)
                verdict = judge(collected(suite, root, path), path, code, tried, issue)
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


def collected(suite: gate.Suite, root: Path, path: str) -> gate.SuiteRun:
    """The test file's run. A command that names its own test paths (`pytest tests/unit`) never
    collects it: then it is named to pytest too, for this run and every later one of the suite."""
    module = module_id(path)
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
    mine = {test: case for test, case in run.results.items() if test.split("::")[0] == module}
    tests = {test: case for test, case in mine.items() if "::" in test}
    if not tests:
        broken = mine.get(module)
        if broken is not None:  # pytest couldn't import the file: its collection error is named after it
            return f"your test file failed to import: {clip_tail(broken.details or broken.message, FEEDBACK_CHARS)}"
        output = clip_tail(run.output, FEEDBACK_CHARS)
        return f"pytest collected no test from your file (name the test functions `test_...`); output:\n{output}"
    failing = sorted(test for test, case in tests.items() if case.outcome in ("failed", "error"))
    if not failing:
        return "your test passed on the current code, so it does not show the bug"
    identifiers = set(re.findall(r"\w+", issue))
    wanted = []
    for test in failing:
        case = tests[test]
        why = own_mistake(case, path, run.root)
        if why:
            return f"{test} fails because of the test itself, not the bug ({why}); fix the test:\n" + clip_tail(
                case.details, FEEDBACK_CHARS
            )
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


def in_repository(frame: str, test_path: str, root: str) -> bool:
    """A frame's file is the repository's code: inside the scratch copy, not the test file, not
    an installed package (a virtual environment inside the tree)."""
    relative = frame[len(root) + 1 :] if frame.startswith(root + "/") else frame
    parts = PurePosixPath(relative).parts
    if not parts or PurePosixPath(relative).is_absolute() or ".." in parts:
        return False
    return relative != test_path and not {"site-packages", "dist-packages"} & set(parts)
