"""The static guard for Go code under repair: what reaches into `go test`'s machinery is refused,
whatever the tests would say (bot/judge/guard.py is Python's, bot/judge/js/guard.py JavaScript's).

The code under test is linked into the test binary, whose output `go test` turns into the events
autofix reads: a binary that prints test2json's framing, ends itself early, or tells a test run
from any other can forge them. Code a library is made of has no reason to do any of it, so this
guard refuses the ways in as classes: the `testing` packages, ending or replacing the process,
native code and linker tricks, text shaped like the runner's report or naming where it goes,
patching the standard library's variables, and what tells a test run (the command line, the
calling frames, the tests' files). It reads only the lines a change wrote, through ast-grep's tree.
"""

from __future__ import annotations

import re

from ast_grep_py import SgNode

from bot.judge.guard import Finding
from bot.judge.tree_guard import scan
from bot.lang.tree import parsed

# rule: (what it catches, why code under test may not). RULES_TABLE shows them in docs/judging.md.
RULES: dict[str, tuple[str, str]] = {
    "test-runner": (
        "imports `testing` or a package under it (`testing/fstest`, ...)",
        "code under test has no reason to load the test runner's package: it holds the tests' state",
    ),
    "process-end": (
        "`os.Exit`, `syscall.Exit`, `runtime.Goexit`, `syscall.Kill`, `os.FindProcess`, `os/signal`",
        "ending the test binary behind the runner's back leaves its report to whatever was printed last",
    ),
    "processes": (
        "imports `os/exec` or `plugin`; `syscall.Exec`, `syscall.ForkExec`, `os.StartProcess`",
        "another program started from the tests can run and report in their place",
    ),
    "native-code": (
        "imports `unsafe` or `C` (cgo); a `//go:linkname` or `//go:cgo_` directive",
        "native code and linked-in runtime symbols can rewrite the test binary's memory",
    ),
    "test-report": (
        "text shaped like `go test`'s report (`--- PASS`, `=== RUN`, `ok  \\t`, test2json's `\\x16` mark) or "
        "naming where it goes (`/dev/stdout`, `/dev/fd/`, `/proc/`); `os.NewFile`, `syscall.Write`, `syscall.Dup2`",
        "the report is the binary's output: text that looks like it, or a way around `os.Stdout`, forges it",
    ),
    "patching": (
        "assigns a variable of a standard-library package (`os.Stdout = ...`, `http.DefaultClient = ...`)",
        "swapping what the tests and the runner use changes the verdict, not the code",
    ),
    "test-detection": (
        "`os.Args`, `os.Executable`, `flag.Lookup`/`Parsed`/`CommandLine`/`Args`, `testing.Testing`, "
        "`runtime.Caller`/`Callers`/`Stack`/`FuncForPC`, `debug.Stack`",
        "code that knows it runs under `go test`, or who called it, can behave differently there",
    ),
    "test-files": (
        "text naming a test file (`_test.go`) or the tests' `testdata` folder",
        "the tests' files and data hold the expected answers",
    ),
}
RULES_TABLE = "| rule | what it catches | why |\n| --- | --- | --- |\n" + "\n".join(
    f"| `{rule}` | {what} | {why} |" for rule, (what, why) in RULES.items()
)
RUNNER_RULES = {"test-runner", "test-files"}  # lifted for a test file autofix adds

IMPORTS = {
    "testing": "test-runner", "os/exec": "processes", "plugin": "processes", "unsafe": "native-code",
    "C": "native-code", "os/signal": "process-end",
}  # fmt: skip
CALLS = {
    "os.Exit": "process-end", "syscall.Exit": "process-end", "runtime.Goexit": "process-end",
    "syscall.Kill": "process-end", "syscall.Tgkill": "process-end", "os.FindProcess": "process-end",
    "golang.org/x/sys/unix.Exit": "process-end", "golang.org/x/sys/unix.Kill": "process-end",
    "syscall.Exec": "processes", "syscall.ForkExec": "processes", "os.StartProcess": "processes",
    "os.NewFile": "test-report", "syscall.Write": "test-report", "syscall.Dup2": "test-report",
    "syscall.Dup3": "test-report", "golang.org/x/sys/unix.Write": "test-report",
    "golang.org/x/sys/unix.Dup2": "test-report", "golang.org/x/sys/unix.Dup3": "test-report",
    "os.Args": "test-detection", "os.Executable": "test-detection", "flag.Lookup": "test-detection",
    "flag.Parsed": "test-detection", "flag.CommandLine": "test-detection", "flag.Args": "test-detection",
    "flag.Arg": "test-detection", "flag.NArg": "test-detection", "testing.Testing": "test-detection",
    "runtime.Caller": "test-detection", "runtime.Callers": "test-detection", "runtime.Stack": "test-detection",
    "runtime.FuncForPC": "test-detection", "runtime/debug.Stack": "test-detection",
    "runtime/debug.PrintStack": "test-detection",
}  # fmt: skip
# The report's framing (`--- PASS: T (0.00s)`, `=== RUN   T`, `ok  \tpkg`), test2json's mark (0x16)
# however it is written, and the paths to the binary's output.
REPORT_TEXT = re.compile(
    r"---\s*(PASS|FAIL|SKIP)|===\s*(RUN|PAUSE|CONT|NAME)|^(ok|FAIL)\s+\\t|\\x16|\\u0016|\\026|\x16"
    r"|/dev/(stdout|stderr|fd/)|/proc/"
)
TEST_TEXT = re.compile(r"_test\.go\b|\btestdata\b")
DIRECTIVES = re.compile(r"^//go:(linkname|cgo_)")
STRINGS = {"interpreted_string_literal", "raw_string_literal", "rune_literal"}


def findings(code: str, original: str | None = None, path: str = "") -> list[Finding]:
    """What in `code` reaches into the test runner; with `original`, only on the lines a change wrote."""
    root = parsed(code, "go")
    imports = imported(root)
    return scan(root, code, original, path, lambda node: offence(node, imports), RULES)


def in_test_file(code: str, original: str | None = None, path: str = "") -> list[Finding]:
    """The guard over a test file autofix adds (a free-form issue's reproduction test): it imports
    `testing` and may read the tests' data by design; the rest holds."""
    return [finding for finding in findings(code, original, path) if finding.rule not in RUNNER_RULES]


def imported(root: SgNode) -> dict[str, str]:
    """The file's import names and the paths they stand for (`ex "os/exec"` is ex: os/exec)."""
    names = {}
    for spec in root.find_all(kind="import_spec"):
        source = spec.field("path")
        if source is None:
            continue
        path = source.text().strip('"`')
        alias = spec.field("name")
        names[alias.text() if alias is not None else path.rsplit("/", 1)[-1]] = path
    return names


def offence(node: SgNode, imports: dict[str, str]) -> str | None:
    kind = node.kind()
    if kind == "import_spec":
        source = node.field("path")
        path = "" if source is None else source.text().strip('"`')
        return IMPORTS.get(path) or ("test-runner" if path.startswith("testing/") else None)
    if kind == "comment":
        return "native-code" if DIRECTIVES.match(node.text()) else None
    if kind in STRINGS:
        if REPORT_TEXT.search(node.text()):
            return "test-report"
        return "test-files" if TEST_TEXT.search(node.text()) else None
    if kind == "selector_expression":
        return CALLS.get(qualified(node, imports) or "")
    if kind == "assignment_statement":
        return patched(node, imports)
    return None


def qualified(node: SgNode, imports: dict[str, str]) -> str | None:
    """`os.Exit` for a selector whose operand is the import `os` (`ex.Command` is `os/exec.Command`)."""
    operand, field = node.field("operand"), node.field("field")
    if operand is None or field is None or operand.kind() != "identifier" or operand.text() not in imports:
        return None
    return f"{imports[operand.text()]}.{field.text()}"


def patched(node: SgNode, imports: dict[str, str]) -> str | None:
    """An assignment to a standard-library package's variable (a path with no dot in its first part)."""
    left = node.field("left")
    for target in left.children() if left is not None else []:
        name = qualified(target, imports) if target.kind() == "selector_expression" else None
        if name is not None and "." not in name.rsplit(".", 1)[0].split("/", 1)[0]:
            return "patching"
    return None
