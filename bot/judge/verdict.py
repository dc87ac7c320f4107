"""One run of a test command in the sandbox, and what autofix can believe about it.

pytest reports through autofix's plugin, `python -m unittest` through its sitecustomize hook
(bot/judge/sandboxed/, generated for the run by hooks.py), on a memfd that autofix keeps open:
the hook takes the run's nonce and canaries from it before any test code is imported, and writes
one line signed with the nonce (an HMAC) when the suite has run, with every test's outcome (unittest: the counts)
and what it found changed in the runner's machinery. The line is read here, bounded; without it
the run did not finish, whatever its exit code says; with a canary reported wrongly it was forged
(canaries.py). A plain pytest command is started without a shell (launch.py). Other commands
are judged by their exit code alone.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
import shlex
import stat
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from bot import safefs, syntax
from bot.errors import UserError
from bot.judge import canaries, editables, hooks, launch, nodeids
from bot.judge.integrity import Case
from bot.sandbox.tiers import Limits, Outcome, Sandbox, allowed_environ, kept_workdir, within
from bot.text import clip_line

DETERMINISTIC = {"PYTHONHASHSEED": "0"}  # the same candidate gets the same verdict every run
RECORD_BYTES = 64 * 2**20  # of the hook's lines, at most; more is no verdict
# No assertion rewriting: the sandbox never writes bytecode, so every run rewrote each test module
# and plugin package afresh, half of a small run's time (toolz: 0.3 of 0.6 s). The failure messages
# lose pytest's introspection; a test whose outcome needs the rewriting is run again as the gate
# runs wherever it could change what autofix concludes (gate.Baseline.measure, proof.ProofJudge).
PLAIN = ("--assert=plain",)
AUTOLOAD_OFF = "PYTEST_DISABLE_PLUGIN_AUTOLOAD"  # pytest loads no entry point's plugin but those `-p` names


@dataclass(frozen=True)
class Plugins:
    """The plugins pytest loaded on its own from the tests' environment, on the tree as the
    repository has it, before any candidate: (module, file) each, a file inside the work folder
    named from it (`./src/plugin.py`). Every later run starts with autoloading off and loads
    exactly these by name, so nothing a candidate adds is discovered (distribution metadata on
    sys.path is, by pytest and by hypothesis); the plugin checks each came from its file."""

    modules: tuple[tuple[str, str], ...] = ()
    # Where the repository's own code reached for what the audit hook guards (file, line, what):
    # let be in later runs (attrs calls sys._getframe), any other place refused.
    sites: tuple[tuple[str, str, str], ...] = ()
    # What each test ran on that tree, layer by layer (file, name, first line): a later run whose
    # test runs anything else (a function put in its place before collection) was tampered with.
    functions: tuple[tuple[str, tuple[tuple[str, str, int], ...]], ...] = ()

    def options(self) -> list[str]:
        return [word for name, _ in self.modules for word in ("-p", name)]

    def ran(self) -> dict[str, list[list]]:
        """`functions` as the plugin's header takes it."""
        return {test: [list(layer) for layer in layers] for test, layers in self.functions}


@dataclass
class TestRun:
    outcome: Outcome
    cases: list[Case] | None  # None: no pytest session finished and reported
    tampered: list[str] = field(default_factory=list)  # what changed in pytest's machinery
    paths: list[str] = field(default_factory=list)  # where the tests' Python imported from
    loaded: list[tuple[str, str]] = field(default_factory=list)  # (module, file) named like the target
    exitstatus: int | None = None  # pytest's own
    unittest: UnittestCounts | None = None  # `python -m unittest`'s result, when that ran
    maxfail: int = 0  # what the command's -x / --maxfail asked for; autofix's plugin lifts it
    forged: list[str] = field(default_factory=list)  # how the canaries came back wrong, when they did
    plugin: str = ""  # the module name the plugin had in this run
    by_node_ids: bool = False  # `only` went on pytest's command line: it collected those files alone
    plugins: Plugins | None = None  # what pytest loaded on its own, in a run that let it (discover)
    # A run stopped before its session ended: the test that was running, and for how long (seconds)
    running: tuple[str, float] | None = None


@dataclass
class UnittestCounts:
    run: int
    failures: int
    errors: int
    skipped: int
    unexpected_successes: int

    def failing(self) -> list[str]:
        if self.failures or self.errors or self.unexpected_successes:
            return [
                f"{self.failures} failed, {self.errors} errors, "
                f"{self.unexpected_successes} unexpected successes of {self.run} tests"
            ]
        return []

    def violations(self, now: UnittestCounts) -> list[str]:
        """Why `now` doesn't count as the suite of this baseline passing."""
        problems = now.failing()
        if now.run < self.run:
            problems.append(f"{now.run} tests ran, {self.run} ran before the change")
        if now.skipped > self.skipped:
            problems.append(f"{now.skipped} tests skipped, {self.skipped} before the change; tests may not be skipped")
        return problems


def run_tests(
    sandbox: Sandbox,
    command: str,
    work: Path,
    limits: Limits,
    target: str = "",
    extra_options: str = "",
    only: Iterable[str] | None = None,
    known: Iterable[str] = (),
    hint: str = "",
    writable: Sequence[str] | None = None,
    outcomes_only: bool = False,
    *,
    plugins: Plugins | None,
    prefer: Iterable[str] = (),
    avoid: Iterable[str] = (),
) -> TestRun:
    """The test command in the sandbox; with pytest, its verdict through autofix's plugin, and
    with `only`, just those tests (ids as the verdict names them; a module's id selects it whole).
    `known`: the suite's test ids, whose words the canaries' names take; `hint`: the test module
    to plant them in; `prefer`: the tests to make the must-fail canaries twins of (those failing
    last); `avoid`: tests never twinned (the flaky ones). `writable`: what the run may write in
    `work` (Sandbox.run). `outcomes_only`: no one reads why a test failed, so pytest skips
    rewriting asserts (PLAIN). `plugins`: the
    environment's, loaded by name with autoloading off; None lets pytest discover them, which only
    a run of the tree as the repository has it may (the run reports what it found)."""
    nonce = f"@@autofix-verdict-{secrets.token_hex(16)}@@"
    drawn = canaries.draw(known, hint)
    payload = "\n".join([nonce, *(canary.line() for canary in drawn)]) + "\n"
    env = allowed_environ(DETERMINISTIC)
    kept = kept_workdir(work)
    moved = editables.moves(env, work, Path(kept.origin) if kept and kept.origin else None)
    with (
        channel(payload) as fd,
        selection(only) as only_fd,
        hooks.generated(
            fd,
            only_fd,
            work,
            target,
            moved,
            None if plugins is None else plugins.modules,
            sorted(prefer),
            None if plugins is None else plugins.sites,
            sorted(avoid),
            None if plugins is None else plugins.ran(),
            time.time() + limits.wall_seconds - dump_margin(limits.wall_seconds),
        ) as hook,
    ):
        # What the run may write, pytest never collects: a conftest or test module planted there
        # during the run is never loaded.
        ignored = [f"--ignore={path}" for path in writable or ()]
        named = plugins.options() if plugins is not None else []
        options = ["-p", hook.plugin, *named, "-p", "no:cacheprovider", *ignored, *(PLAIN if outcomes_only else ())]
        if plugins is not None:
            env[AUTOLOAD_OFF] = "1"
        extra = shlex.split(extra_options)
        env["PYTHONPATH"] = str(hook.folder)
        fds = (fd,) if only_fd is None else (fd, only_fd)
        started = launch.direct(command, env)
        # The tests asked for by node id, in place of the paths the command and `extra` name: pytest
        # collects their files alone (the plugin still deselects the rest).
        selected = None if started is None or only is None else nodeids.arguments([*extra, *started.rest], only, work)
        if started is not None:
            argv = [*started.argv, *options, *([*extra, *started.rest] if selected is None else selected)]
            env.update(started.env)
        else:  # PYTEST_ADDOPTS reaches pytest however the command starts it; other runners ignore it
            argv = ["/bin/sh", "-c", command]
            env["PYTEST_ADDOPTS"] = launch.joined([*options, *extra])
        outcome = sandbox.run(argv, work, env, limits, pass_fds=fds, writable=writable)
        ended = time.time()
        record = read_record(fd, nonce)
    outcome.output = canaries.scrub(outcome.output, drawn)
    run = verdict_of(outcome, record, drawn, hook.plugin, ended)
    run.by_node_ids = selected is not None
    return run


def dump_margin(wall_seconds: float) -> float:
    """How long before a run is stopped a test still running dumps where it is: a second, or a
    tenth of a shorter run's time (the dump takes milliseconds; a busy machine may delay it)."""
    return min(1.0, wall_seconds / 10)


def verdict_of(
    outcome: Outcome, record: dict | None, drawn: list[canaries.Canary], plugin: str, ended: float = 0.0
) -> TestRun:
    """What the hook's record says of the run, or a run with no verdict. `ended`: when the run
    ended (seconds since the epoch), for how long a test still running then had run."""
    if record is None:
        return TestRun(outcome, None, plugin=plugin)
    try:
        if "running" in record and "cases" not in record:  # stopped while this test ran
            running = (str(record["running"]), max(0.0, ended - float(record["since"])))
            return TestRun(outcome, None, plugin=plugin, running=running)
        paths = [str(p) for p in record.get("paths", [])]
        if "unittest" in record:
            counts = {key: int(value) for key, value in record["unittest"].items()}
            return TestRun(
                outcome,
                None,
                [str(t) for t in record["tampered"]],
                unittest=UnittestCounts(**counts),
                plugin=plugin,
                plugins=found_plugins(record),
            )
        if "cases" not in record:  # pytest started, and ended before its session did
            return TestRun(outcome, None, paths=paths, plugin=plugin)
        cases = [
            Case(str(name), str(result), str(message), str(details), *shown(extra))
            for name, result, message, details, *extra in record["cases"]
        ]
        twins = {str(name): str(original) for name, original in record.get("twins", {}).items()}
        cases, forged = canaries.sift(cases, drawn, twins)
        return TestRun(
            outcome,
            cases,
            [str(t) for t in record["tampered"]],
            paths,
            [(str(m), str(f)) for m, f in record["loaded"]],
            int(record["exitstatus"]),
            maxfail=int(record.get("maxfail", 0)),
            forged=forged,
            plugin=plugin,
            plugins=found_plugins(record),
        )
    except (KeyError, TypeError, ValueError, AttributeError):
        return TestRun(outcome, None, plugin=plugin)


def shown(extra: list) -> tuple[tuple[str, str, str] | None, tuple[tuple[str, str], ...]]:
    """What the plugin saw of a failing test besides its traceback: the operands of the assertion
    that failed it (op, left, right, as reprs) and its parameters (name, repr); text the
    candidate's code made, so only ever shown."""
    found = extra[0] if extra and isinstance(extra[0], dict) else {}
    compared = found.get("compared")
    values = None
    if isinstance(compared, list) and len(compared) == 3:
        values = (str(compared[0]), str(compared[1]), str(compared[2]))
    params = tuple((str(name), str(value)) for name, value in found.get("params", ()))
    return values, params


def found_plugins(record: dict) -> Plugins | None:
    """What a discovering run found: the plugins pytest loaded, the places the audit hook noted."""
    if "plugins" not in record:
        return None
    modules = tuple((str(m), str(f)) for m, f in record["plugins"])
    sites = tuple((str(f), str(line), str(what)) for f, line, what in record.get("sites", []))
    functions = tuple(
        (str(test), tuple((str(f), str(name), int(line)) for f, name, line in layers))
        for test, layers in record.get("functions", {}).items()
    )
    return Plugins(modules, sites, functions)


GLOB = re.compile(r"[*?\[]")
# What a write into the read-only tree raises, with the path it named.
DENIED = re.compile(r"\[Errno (?:13|30)\] (?:Permission denied|Read-only file system): '([^'\n]+)'")


def writable_in(work: Path, exempt: Iterable[str]) -> list[str]:
    """What a run may write in its scratch copy `work`: the `tests.exempt` paths, each a folder
    made now when it isn't there (the copy puts back what the run leaves). A pattern with a
    wildcard names no path before the run, so it lends nothing: the run's TMPDIR and HOME are
    its own anyway."""
    root = os.path.realpath(work)
    lent = []
    for pattern in exempt:
        relative = pattern.strip("/")
        if not relative or GLOB.search(relative) or ".." in relative.split("/"):
            continue
        *folders, name = relative.split("/")
        try:  # the copy holds what the repository holds: nothing is made through one of its links
            parent = safefs.make_folders(root, folders)
        except OSError:
            continue  # a link or a file where a folder would go: the run gets nothing there
        try:
            os.mkdir(name, dir_fd=parent)
        except FileExistsError:  # a file or a folder the tree has is lent as it is, never a link
            if stat.S_ISLNK(os.lstat(name, dir_fd=parent).st_mode):
                continue
        except OSError:
            continue
        finally:
            os.close(parent)
        lent.append(os.path.join(root, relative))
    return lent


def refuse_tree_writes(run: TestRun, work: Path, where: str) -> None:
    """Stop (exit 2) when the suite, on the current code, writes into the tree it judges, which
    the run may only read: name the path and say how to let it."""
    root = os.path.realpath(work)
    texts = [run.outcome.output, *(case.details for case in run.cases or ())]
    for text in texts:
        for path in DENIED.findall(text):
            real = os.path.normpath(os.path.join(root, path))
            if within(real, root) and real != root:
                relative = os.path.relpath(real, root)
                raise UserError(
                    f"{where}: the tests write {relative}, and the tree under test is read-only to them: add "
                    f"`{relative}` to tests.exempt if it is a folder (autofix makes it before each run, and the run "
                    "may write in it), else have the tests write under $TMPDIR or into such a folder"
                )


def memfd_of(name: str, data: bytes) -> int:
    """A memfd holding `data`, to be read from its start: a file no path leads to, handed to a
    run in the sandbox by its number."""
    fd = os.memfd_create(name)
    os.write(fd, data)  # a memfd takes a whole write at once
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


@contextmanager
def selection(only: Iterable[str] | None) -> Iterator[int | None]:
    if only is None:
        yield None
        return
    fd = memfd_of("autofix-only", "".join(f"{test}\n" for test in only).encode())
    try:
        yield fd
    finally:
        os.close(fd)


@contextmanager
def channel(payload: str) -> Iterator[int]:
    fd = memfd_of("autofix-verdict", payload.encode())
    try:
        yield fd
    finally:
        os.close(fd)


MARK = b"@@autofix-verdict@@"  # sandboxed/seal.py's: a line of the hook's, then its HMAC, then the record
MAC_CHARS = 64


def literal(body: bytes) -> object:
    """The hook's record: a Python literal (sandboxed/seal.py)."""
    return syntax.literal_eval(body.decode("utf-8", "replace"))


def read_record(fd: int, nonce: str, parse: Callable[[bytes], object] = literal) -> dict | None:
    """The last line whose HMAC, keyed by the run's nonce, holds, its body parsed by `parse`; anything
    else in the file (a line someone else wrote, one replayed out of order being the only thing they
    could write) is ignored or ends the verdict. None when the file is over RECORD_BYTES or that body
    doesn't parse to a dict."""
    data = os.pread(fd, RECORD_BYTES + 1, 0)
    if len(data) > RECORD_BYTES:
        return None
    key = nonce.encode()
    for line in reversed(data.split(b"\n")):
        if not line.startswith(MARK):
            continue
        mac, body = line[len(MARK) : len(MARK) + MAC_CHARS], line[len(MARK) + MAC_CHARS :]
        if hmac.compare_digest(hmac.new(key, body, hashlib.sha256).hexdigest().encode(), mac):
            try:
                record = parse(body)
            except (ValueError, SyntaxError, MemoryError, RecursionError, TypeError):
                return None
            return record if isinstance(record, dict) else None
    return None


CANT_START = (126, 127)  # the shell's codes for a command it found but can't run, and one it can't find
PYTEST_INTERNAL_ERROR, PYTEST_USAGE_ERROR, PYTEST_NO_TESTS = 3, 4, 5


def refuse_broken_command(run: TestRun, command: str, where: str) -> None:
    """Stop (exit 2) before any model call when the test command, run on the current code, can't
    judge anything: it can't start, pytest isn't there, pytest refuses its arguments, stops with
    an internal error (what it reported before that counts for nothing), or it finds no tests.
    Each is the environment's or the spec's fault, never a candidate's; the message quotes the
    command's own words and says what fixes it."""
    output = run.outcome.output
    if run.cases is None and run.unittest is None:
        if "No module named pytest" in output:
            raise UserError(
                f"{where}: `{command}`: {quote(output, 'No module named pytest')}: pytest isn't installed where the "
                "tests run; the tests run with your PATH, so activate the environment that has your test "
                "dependencies (or install pytest there)"
            )
        if run.outcome.returncode in CANT_START and not run.outcome.killed:
            raise UserError(
                f"{where}: `{command}` can't start (exit code {run.outcome.returncode}): {quote(output)}; the "
                "tests run with your PATH: activate the environment that has your test dependencies, or name "
                "the program by a path that exists"
            )
        return
    if run.exitstatus == PYTEST_USAGE_ERROR:
        raise UserError(
            f"{where}: `{command}`: pytest refused it: {quote(output, 'ERROR')}; fix the test path or option"
        )
    if run.exitstatus == PYTEST_INTERNAL_ERROR:
        raised = [line for line in output.splitlines() if line.startswith("INTERNALERROR>") and line[14:].strip()]
        shown = repr(clip_line(raised[-1].strip(), 300)) if raised else quote(output)  # the exception's own line
        raise UserError(
            f"{where}: `{command}`: pytest stopped with an internal error: {shown}; a hook of a plugin or "
            "conftest raised, and nothing the run reported can be trusted: fix it, or leave that plugin out "
            "(`-p no:NAME`)"
        )
    if run.exitstatus == PYTEST_NO_TESTS:
        raise UserError(
            f"{where}: `{command}` collects no tests: {quote(output, 'no tests ran')}; name the folder or "
            "files that hold the tests"
        )
    if run.unittest is not None and run.unittest.run == 0:
        raise UserError(f"{where}: `{command}` ran no tests: {quote(output)}; name the module or folder of the tests")


def quote(output: str, wanted: str = "") -> str:
    """One line of the command's own output, quoted: the first holding `wanted`, else the last."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    chosen = next((line for line in lines if wanted and wanted in line), lines[-1] if lines else "(no output)")
    return repr(clip_line(chosen, 300))


def refuse_forging_suite(run: TestRun, command: str, where: str) -> None:
    """Stop (exit 2) when the suite itself, on the current code, reports autofix's canaries
    wrongly: its own hooks rewrite outcomes, and no verdict of it could be trusted."""
    if run.forged:
        raise UserError(
            f"{where}: `{command}`: on the current code, {canaries.FORGED} ({run.forged[0]}): a plugin or conftest "
            "of the suite changes what pytest reports, so autofix can't trust its verdict; remove that hook from "
            "the test run (`-p no:NAME`)"
        )


def refuse_hidden_plugin(run: TestRun, command: str) -> None:
    """pytest that can't load autofix's plugin has no verdict autofix could trust: say how to fix it."""
    if f'Error importing plugin "{run.plugin}"' in run.outcome.output:
        raise UserError(
            f"tests.command `{command}` sets PYTHONPATH without autofix's entry, so pytest can't load the plugin "
            f"that reports its verdict; extend it instead of replacing it: `PYTHONPATH=src:$PYTHONPATH ...`"
        )


def refuse_shadows(run: TestRun, original: Path, work: Path, target: str) -> None:
    """Stop (exit 2) when the tests did not import the target from the scratch copy: an
    installed or editable copy, or an import path into the original folder, would make them
    judge the original code instead of the candidate. A tree the copy shares read-only (a
    virtual environment) lies in the original folder and is no code under test."""
    home = os.path.realpath(original)
    kept = kept_workdir(work)
    shared = kept.shared if kept else ()
    # A relative entry is the run's own (an editable finder's path-hook marker, such as
    # "__editable__.pkg-1.0.finder.__path_hook__"): it names nothing outside the copy it ran in.
    inside = [
        p
        for p in run.paths
        if p and within(real := os.path.realpath(work / p), home) and not any(within(real, tree) for tree in shared)
    ]
    if inside:
        raise UserError(
            f"the tests import from {inside[0]}, inside the work folder autofix copies: an editable install "
            f"(pip install -e) or a PYTHONPATH entry would make them test the original, not the candidate; "
            f"remove the install from the environment the tests run with (pip uninstall) and let them import "
            f"the folder itself (`PYTHONPATH=src` in tests.command, or pytest's `pythonpath` setting)"
        )
    mine = os.path.realpath(work / target)
    for module, path in run.loaded:
        if os.path.realpath(path) != mine:
            raise UserError(
                f"the tests imported {module} from {path}, not from the copy under test ({target}): an installed "
                f"copy of the project shadows the candidate; uninstall it from the environment the tests run with "
                f"and let them import the folder itself (`PYTHONPATH=src` in tests.command, "
                f"or pytest's `pythonpath` setting)"
            )
