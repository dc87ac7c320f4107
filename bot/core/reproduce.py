"""Reproduce first: the model writes one pytest file from the issue, and autofix accepts it only
when pytest collects it and it fails on the current code for a reason of the code's, not the
test's own (an import of a module that isn't there, a name it never defined, a fixture that
doesn't exist). The accepted test then judges the fix: failing before, passing after.

The model never decides where the file goes, what it is called, or whether it reproduced the
bug: autofix places it, runs it in the sandbox and reads the verdict from its own pytest plugin.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from bot.core.extract import NoCode, extract_code
from bot.core.report import Report
from bot.judge import gate, guard
from bot.models.base import Model
from bot.text import clip_tail

SYSTEM = (
    "[autofix:reproduce] You write a test that reproduces a bug reported in an issue, before anyone fixes it. "
    "Answer with one ```python block holding one complete pytest test file. Import what you need inside the "
    "test functions (the module under test by its import path in the repository). Assert the behaviour the "
    "issue expects, so the test FAILS on the current code because of the bug and will pass once it is fixed. "
    "Keep it short: one to three test functions, no fixtures of your own files, no network."
)
# A failure that is the test's own mistake: it shows nothing about the code. (An ImportError of a
# name an existing module lacks is allowed: a function the issue asks for doesn't exist yet.)
OWN_MISTAKES = ("ModuleNotFoundError", "NameError", "SyntaxError", "IndentationError", "fixture '")
FEEDBACK_CHARS = 4_000


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


def module_id(path: str) -> str:
    """How autofix's pytest plugin names a test module: `tests/autofix/test_x.py` is `tests.autofix.test_x`."""
    return path.removesuffix(".py").replace("/", ".")


def reproduce(
    model: Model, suite: gate.Suite, root: Path, path: str, task: str, tries: int, report: Report
) -> Reproduction | list[Tried]:
    """Up to `tries` test files, each told why the one before was refused; the accepted one stays
    written at `path` in `root`. Every refused try comes back when none was accepted."""
    tried: list[Tried] = []
    messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": task}]
    target = root / path
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
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(code, encoding="utf-8")
                verdict = judge(collected(suite, root, path), path, code, tried)
        report.stage("reproduce").add(reply, time.monotonic() - started)
        if isinstance(verdict, Reproduction):
            return verdict
        target.unlink(missing_ok=True)
        tried.append(Tried(code, verdict))
        messages += [
            {"role": "assistant", "content": reply.text},
            {"role": "user", "content": f"The test file was refused: {verdict}\n\nWrite the whole file again."},
        ]
    return tried


def collected(suite: gate.Suite, root: Path, path: str) -> gate.SuiteRun:
    """The test file's run. A command that names its own test paths (`pytest tests/unit`) never
    collects it: then it is named to pytest too, for this run and every later one of the suite."""
    module = module_id(path)
    run = suite.run(root, only={module})
    if suite.also or any(test.split("::")[0] == module for test in run.results) or not run.sealed:
        return run
    suite.also = (path,)
    named = suite.run(root, only={module})
    if not any(test.split("::")[0] == module for test in named.results):
        suite.also = ()
    return named


def judge(run: gate.SuiteRun, path: str, code: str, tried: list[Tried]) -> Reproduction | str:
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
    own = [test for test in failing if tests[test].message.startswith(OWN_MISTAKES) or tests[test].outcome == "error"]
    if own:
        case = tests[own[0]]
        return (
            f"{own[0]} fails because of the test itself, not the bug ({case.outcome}: {case.message}); "
            f"fix the test:\n{clip_tail(case.details, FEEDBACK_CHARS)}"
        )
    if not failing:
        return "your test passed on the current code, so it does not show the bug"
    output = "\n\n".join(f"{test}:\n{tests[test].details.strip()}" for test in failing).replace(run.root + "/", "")
    passing = sorted(test for test, case in tests.items() if case.outcome == "passed")
    return Reproduction(path, code, failing, passing, clip_tail(output, FEEDBACK_CHARS), list(tried))
