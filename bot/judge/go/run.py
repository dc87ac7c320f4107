"""One `go test` run in the sandbox, and what autofix can believe about it.

autofix starts go itself (command.py: no shell) as `go test -json -count=1 -p N`, the command's
flags and packages after: a small launcher (the tests' own Python, `-S -s`) puts a memfd on go's
stdout and execs go, so the event stream (report.py) goes to autofix whole, beside the run's
capped output (go's stderr). go sets `-test.paniconexit0` on every test binary: `os.Exit(0)`
during a test panics and fails it.

The environment: GOFLAGS empty (go's default is -mod=readonly, or vendor), GOPROXY=off (modules
come from the machine's module cache, read-only, filled during setup by `go mod download`),
GOTOOLCHAIN=local (a go.mod's toolchain line downloads nothing), GOENV=off, GOTELEMETRY=off, HOME
private. GOCACHE: once per toolchain and set of packages, a run compiles the standard packages
the repository imports into a folder autofix then keeps read-only (`warm`: code autofix wrote,
importing them, in a sandboxed run of its own), on disk across autofix's processes
(std_cache.py); every later run starts from a copy of it in its private temporary folder (go
refuses a cache it can't write), builds the repository's own packages there, and nothing of it
outlives the run. Without a warm cache each run's starts empty.

What the stream says is believed only together with the twins planted among the package's own
tests (canaries.py): the test binary runs as the run's uid beside go, and code under test can
print test2json's framing for every test and leave with `syscall.Exit(0)`.

What the stream can't show is a test it never mentions: at the baseline autofix lists each
package's tests (`go test -list .`, in the sandbox, on the repository's own code) and a listed
test the baseline's run didn't report is a failing test of the baseline, which every later run
must report; a package whose tests didn't build declares the `func TestX(t *testing.T)` of its
`_test.go` files (`declared`). The listing is left out when the run already reported every test
function the packages' test files declare and every package ended (`reported_all`): then it
could add nothing.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import tempfile
import threading
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from bot import safefs
from bot.errors import UserError
from bot.judge import hooks, verdict
from bot.judge.go import canaries, report, std_cache
from bot.judge.go.command import GoTest
from bot.judge.go.staged import STAGED
from bot.judge.integrity import Case
from bot.judge.twins import decided
from bot.sandbox.tiers import Limits, Outcome, Sandbox, allowed_environ, within

# The launcher: go's stdout becomes the memfd argv[1] names (closed as itself); GOCACHE is a
# folder in the run's private temporary folder, a copy of the warm cache when there is one (go
# fails on a cache it can't write); then go runs.
LAUNCH = (
    "import os, shutil, sys, tempfile\n"
    "fd = int(sys.argv[1])\n"
    "os.dup2(fd, 1)\n"
    "os.close(fd)\n"
    "cache = os.path.join(tempfile.gettempdir(), 'autofix-go-build')\n"
    "seed = os.environ.pop('AUTOFIX_GOCACHE_SEED', '')\n"
    "if seed:\n"
    "    shutil.copytree(seed, cache, copy_function=shutil.copyfile, dirs_exist_ok=True)\n"
    "os.environ['GOCACHE'] = cache\n"
    "os.execv(sys.argv[2], sys.argv[2:])\n"
)
ENV = {
    "GOFLAGS": "",
    "GOPROXY": "off",
    "GOSUMDB": "off",
    "GOTOOLCHAIN": "local",
    "GOENV": "off",
    "GOTELEMETRY": "off",
    "GOWORK": "off",
}
PARALLEL = 4  # test binaries at once (go test -p), at most
STREAM_CAP = verdict.RECORD_BYTES  # of go's events read; more is no verdict
MODULE = re.compile(rb"^\s*module\s+\"?([^\s\"/][^\s\"]*)\"?", re.M)
IMPORT = re.compile(r'^\s*(?:[\w.]+\s+)?"([^"\n]+)"', re.M)
IMPORTS = re.compile(r"^import\s*(?:\(\s*(.*?)\)|((?:[\w.]+\s+)?\"[^\"\n]+\"))", re.M | re.S)
TEST_FUNC = re.compile(r"^func\s+((?:Test|Fuzz)[A-Z0-9_]\w*|Test)\s*\(\s*\w+\s+\*testing\.[TF]\s*\)", re.M)
# Any function named like a test or fuzz target, whatever its parameters (a generic one too).
LOOSE_TEST_FUNC = re.compile(r"^func\s+((?:Test|Fuzz)\w*)\s*[\[(]", re.M)
SOURCE_CAP = 1 << 20  # bytes of a .go file read for its imports or tests
FILES_CAP = 5000  # .go files read for the standard packages to warm


def module_of(work: Path) -> str:
    """The module path go.mod at the work folder's root declares, or ""."""
    data = safefs.read_regular(work / "go.mod", SOURCE_CAP)
    found = MODULE.search(data or b"")
    return found.group(1).decode("utf-8", "replace") if found else ""


def environment(go: GoTest, cache: str | None) -> dict[str, str]:
    env = allowed_environ({**ENV, **go.env})
    if cache:
        env["AUTOFIX_GOCACHE_SEED"] = cache
    modules = module_cache()
    if modules:
        env["GOMODCACHE"] = modules
    return env


def module_cache() -> str:
    """The machine's module cache, which the sandbox shows read-only (bot/judge/validate.py)."""
    found = os.environ.get("GOMODCACHE") or os.path.join(
        os.environ.get("GOPATH", "").split(os.pathsep)[0] or os.path.expanduser("~/go"), "pkg", "mod"
    )
    return found if os.path.isdir(found) else ""


def launched(go: GoTest, fd: int, words: Sequence[str], staged: bool = False) -> list[str]:
    """The launcher's command line; `staged`: the run that carries twins (staged.py)."""
    code = LAUNCH.rsplit("os.execv", 1)[0] + STAGED if staged else LAUNCH
    return [sys.executable, "-S", "-s", "-c", code, str(fd), go.go, *words]


def parallel() -> int:
    return max(1, min(PARALLEL, len(os.sched_getaffinity(0))))


def run_go(
    sandbox: Sandbox,
    go: GoTest,
    work: Path,
    limits: Limits,
    *,
    last: Mapping[str, str] | None = None,
    prefer: Iterable[str] = (),
    avoid: Iterable[str] = (),
    only: Iterable[str] | None = None,
    writable: Sequence[str] | None = None,
    baseline: bool = False,
    planted: Sequence[canaries.Planted] | bool | None = True,
    sift: bool = True,
) -> verdict.TestRun:
    """`go test` on the scratch copy `work`, with twins (canaries.py) of the tests whose outcomes
    `last` knows (none when it knows none, or when the command runs some tests alone by -run or
    -skip). `only`: test ids (`./DIR::TestName`) whose top-level tests run alone, in their
    packages. `planted`: True draws the twins; a list plants those; None plants none. `sift`:
    False keeps the twins' cases among the others (a calibration's run). `baseline`: the run on
    the repository's own code, which also lists each package's tests (see the module's
    docstring)."""
    module = module_of(work)
    cache = warm(sandbox, go, work, limits)
    twins, words = selected(go, work, module, last, prefer, avoid, only, planted)
    try:
        write_twins(work, twins)
        outcome, stream = started(sandbox, go, work, limits, words, cache, writable, twins, module)
    finally:
        for one in twins:
            safefs.remove_file(work, one.path)
    outcome.output = canaries.scrub(outcome.output, twins)
    found = report.cases(report.events(stream), module) if stream is not None else None
    if found is None:
        if baseline and not outcome.killed:
            raise UserError(
                f"tests.command `go test`: go tested no package (exit code {outcome.returncode}): "
                f"{verdict.quote(outcome.output)}"
            )
        return verdict.TestRun(outcome, None)
    if baseline and not outcome.killed and not go.filtered and not reported_all(work, stream or b"", module, found):
        found += unreported(sandbox, go, work, limits, module, cache, writable, found)
    kept, forged = sifted(found, twins) if sift else (scrubbed(found, twins), [])
    return decided(outcome, kept, forged, bool(twins) and sift)


def sifted(found: list[Case], twins: Sequence[canaries.Planted]) -> tuple[list[Case], list[str]]:
    """The run's cases without the twins, and why the report is forged, their words scrubbed."""
    kept, forged = canaries.sift(found, twins) if twins else (found, [])
    return scrubbed(kept, twins), forged


def scrubbed(found: list[Case], twins: Sequence[canaries.Planted]) -> list[Case]:
    """The cases with no line naming the planted file or a twin in their words."""
    for case in found:
        case.message = canaries.scrub(case.message, twins)
        case.details = canaries.scrub(case.details, twins)
    return found


def selected(
    go: GoTest,
    work: Path,
    module: str,
    last: Mapping[str, str] | None,
    prefer: Iterable[str],
    avoid: Iterable[str],
    only: Iterable[str] | None,
    planted: Sequence[canaries.Planted] | bool | None,
) -> tuple[list[canaries.Planted], list[str]]:
    """The twins a run plants (run_go's `planted`) and go's words for it: with `only`, those
    tests' top-level tests and their twins' alone, in their packages."""
    last = dict(last or {})
    if only is not None:  # twins of the tests that run: an echo's original must come back beside it
        only = set(only)
        tops = {canaries.top(test) for test in only}
        last = {test: outcome for test, outcome in last.items() if canaries.top(test) in tops}
    elif go.filtered:
        last = {}  # the command's own -run/-skip would leave the twins out
    drawn = canaries.plant(str(work), last, prefer, avoid) if planted is True and last else []
    twins = drawn if planted is True else list(planted) if planted else []
    flags: list[str] = list(go.flags)
    packages: list[str] = list(go.packages)
    if only is not None:
        chosen: dict[str, set[str]] = {}
        for test in [*only, *(twin.test_id for one in twins for twin in one.twins)]:
            folder, _, name = test.partition("::")
            if name:
                chosen.setdefault(folder, set()).add(name.split("/", 1)[0])
        names = sorted(set().union(*chosen.values())) if chosen else []
        flags = [*go.without_filters(), f"-run=^({'|'.join(re.escape(n) for n in names)})$"] if names else flags
        packages = sorted(package_arg(folder, module) for folder in chosen) or packages
    return twins, ["test", "-json", "-count=1", f"-p={parallel()}", *flags, *packages]


def write_twins(work: Path, twins: Sequence[canaries.Planted]) -> None:
    for one in twins:
        safefs.write_file(work, one.path, one.text.encode("utf-8"))
        like = os.path.join(work, os.path.dirname(one.path), one.like)
        if one.like and os.path.isfile(like) and not os.path.islink(like):
            stat = os.stat(like)  # the copy's times are its neighbour's
            os.utime(os.path.join(work, one.path), ns=(stat.st_atime_ns, stat.st_mtime_ns), follow_symlinks=False)


def calibrate(
    sandbox: Sandbox,
    go: GoTest,
    work: Path,
    limits: Limits,
    cases: Iterable[Case],
    writable: Sequence[str] | None,
) -> tuple[dict[str, str], str]:
    """Which of the suite's tests can be twinned, and their outcomes: in the packages of the
    tests that failed (else one drawn), an echo of each test and a broken twin of each failing
    one, run alone on the repository's own code; those whose twins came back as they must. The
    note for the log says why there are none, when there are none."""
    if go.filtered:
        return {}, "tests.command runs some tests alone (-run, -skip): go test's runs carry no canaries"
    last = {case.test_id: case.outcome for case in cases}
    failing = {test for test, outcome in last.items() if outcome == "failed"}
    planting = canaries.plant(str(work), last, prefer=failing, every=True)
    if not planting:
        return {}, "no test of the suite can be twinned: go test's runs carry no canaries"
    only = {twin.test_id for one in planting for twin in one.twins}
    run = run_go(sandbox, go, work, limits, last=last, only=only, writable=writable, planted=planting, sift=False)
    trusted = canaries.trusted(run.cases or [], planting, last)
    if not trusted:
        return {}, "no test's twin came back as the test does: go test's runs carry no canaries"
    return {test: last[test] for test in trusted}, ""


def package_arg(folder: str, module: str) -> str:
    """How go's command line names the package of a test id: its id's folder already."""
    return folder


def started(
    sandbox: Sandbox,
    go: GoTest,
    work: Path,
    limits: Limits,
    words: Sequence[str],
    cache: str | None,
    writable: Sequence[str] | None,
    twins: Sequence[canaries.Planted] = (),
    module: str = "",
    variants: Mapping[str, object] | None = None,
    hidden: Sequence[str] = (),
) -> tuple[Outcome, bytes | None]:
    """go with `words` in the sandbox, its stdout on a memfd: the run's outcome, and the stream
    (None when it is over STREAM_CAP). With `twins` planted, or `variants` (variants.py), the run
    is staged (staged.py): every test binary is built before any runs, and the planted files and
    those `hidden` are emptied in between (the run may write them, then, whatever `writable`
    says)."""
    env = environment(go, cache)
    staged = bool(twins) or variants is not None
    emptied = [*(one.path for one in twins), *hidden]
    if staged:
        env.update(
            AUTOFIX_GO_PLANTED=json.dumps(emptied),
            AUTOFIX_GO_MODULE=module,
            AUTOFIX_GO_PARALLEL=str(parallel()),
        )
        if writable is not None:
            writable = [*writable, *(os.path.join(os.path.realpath(work), path) for path in emptied)]
    if variants is not None:
        env["AUTOFIX_GO_VARIANTS"] = json.dumps(variants)
    fd = os.memfd_create("autofix-go-events")
    try:
        argv = launched(go, fd, words, staged=staged)
        outcome = sandbox.run(argv, work, env, limits, pass_fds=(fd,), writable=writable)
        data = os.pread(fd, STREAM_CAP + 1, 0)
    finally:
        os.close(fd)
    return outcome, data if len(data) <= STREAM_CAP else None


def unreported(
    sandbox: Sandbox,
    go: GoTest,
    work: Path,
    limits: Limits,
    module: str,
    cache: str | None,
    writable: Sequence[str] | None,
    found: list[Case],
) -> list[Case]:
    """The tests `go test -list .` lists that the baseline's run didn't report (a test binary that
    ended early), each a failing case: every later run must report them."""
    words = ["test", "-json", "-list=.", f"-p={parallel()}", *go.build_flags(), *go.packages]
    outcome, stream = started(sandbox, go, work, limits, words, cache, writable)
    if stream is None or outcome.killed:
        return []
    seen = {case.test_id for case in found}
    missing = []
    for folder, names in sorted(report.listed(report.events(stream), module).items()):
        for name in sorted(names):
            test_id = f"{folder}::{name}"
            if test_id not in seen:
                missing.append(Case(test_id, "failed", "did not run: the test binary ended before it", ""))
    return missing


def reported_all(work: Path, stream: bytes, module: str, found: list[Case]) -> bool:
    """Whether the baseline's run reported every test go could list, so that `go test -list` (a
    run of its own) can't add one: no package failed outside its tests or didn't end (a `pkg::`
    error), and every `func Test…`/`func Fuzz…` of each tested package's `_test.go` files (read
    loosely: a superset of what go lists, whatever the signature or build constraints) came back
    as a top-level test. go builds a package's test main from those functions alone, so a test go
    would list and the run left out has one of them."""
    if any(case.test_id.endswith("::") for case in found):
        return False
    reported = {canaries.top(case.test_id) for case in found}
    for folder in report.tested(report.events(stream), module):
        for name in declared(str(work), folder, LOOSE_TEST_FUNC):
            if f"{folder}::{name}" not in reported:
                return False
    return True


def declared(workdir: str, folder: str, pattern: re.Pattern[str] | None = None) -> set[str]:
    """The tests (`func TestX(t *testing.T)`, fuzz targets) the `_test.go` files of the package
    in `folder` declare, read from their source: what a run must report of a package whose tests
    didn't build on the repository's own code."""
    names: set[str] = set()
    root = os.path.join(workdir, folder)
    try:
        entries = sorted(os.listdir(root))
    except OSError:
        return names
    for entry in entries:
        if entry.endswith("_test.go") and not entry.startswith((".", "_")):
            data = safefs.read_regular(Path(root) / entry, SOURCE_CAP)
            names |= set((pattern or TEST_FUNC).findall((data or b"").decode("utf-8", "replace")))
    return names


# ---------------------------------------------------------------------------------------------
# the warm build cache

WARMING = threading.Lock()
# What a candidate's code commonly reaches for beyond what the repository imports.
BASE = frozenset({"errors", "fmt", "math", "os", "sort", "strconv", "strings", "sync", "testing", "time", "unicode"})
WARMED: dict[str, str | None] = {}  # by the toolchain: the first work folder's imports decide


def standard_imports(work: Path, goroot: str) -> frozenset[str]:
    """The standard packages the work folder's Go files import (read as text), and testing's."""
    found = {"testing"}
    files = 0
    for folder, dirs, names in os.walk(work):
        dirs[:] = [d for d in dirs if not d.startswith((".", "_")) and d not in ("testdata", "vendor", "node_modules")]
        for name in names:
            if not name.endswith(".go") or files >= FILES_CAP:
                continue
            files += 1
            data = safefs.read_regular(Path(folder) / name, SOURCE_CAP)
            for block in IMPORTS.finditer((data or b"").decode("utf-8", "replace")):
                found |= set(IMPORT.findall(block.group(1) or block.group(2) or ""))
    return frozenset(
        path
        for path in found
        if "." not in path.split("/", 1)[0]
        and "internal" not in path.split("/")
        and path != "C"
        and os.path.isdir(os.path.join(goroot, "src", path))
    )


def warm(sandbox: Sandbox, go: GoTest, work: Path, limits: Limits) -> str | None:
    """The read-only build cache holding the standard packages the work folder imports (and BASE),
    found on disk or compiled once (std_cache.py: kept across processes where no run can write
    it, else in this process's hooks.home()): a package a later candidate imports besides is
    compiled in its run. None when it couldn't be made."""
    key = os.path.realpath(go.go)
    with WARMING:
        if key in WARMED:
            return WARMED[key]
        goroot = os.path.dirname(os.path.dirname(key))
        wanted = standard_imports(work, goroot) | BASE
        facts = toolchain(sandbox, go, limits)
        made = None
        if facts is not None:
            facts.update(GOBIN=key)
            name = std_cache.key(facts, wanted)
            found = std_cache.entry(
                cache_root(sandbox),
                name,
                lambda folder: make_cache(sandbox, go, wanted, limits, folder),
                {"facts": facts, "packages": sorted(wanted)},
            )
            made = str(found / "cache") if found else None
        WARMED[key] = made
        return made


FACTS = ("GOVERSION", "GOOS", "GOARCH", "CGO_ENABLED", "GOROOT", "GOAMD64", "GOARM64", "GOEXPERIMENT", "CC")


def toolchain(sandbox: Sandbox, go: GoTest, limits: Limits) -> dict[str, str] | None:
    """What go says of itself with the runs' environment (`go env -json`, in the sandbox: the go
    found on the tests' PATH is no code autofix runs itself), or None."""
    folder = tempfile.mkdtemp(prefix="go-env-", dir=hooks.home())
    try:
        os.chmod(folder, 0o755)
        env = environment(go, None)
        env["GOCACHE"] = "off"
        outcome = sandbox.run([go.go, "env", "-json", *FACTS], Path(folder), env, limits)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    text = outcome.output
    try:
        found = json.loads(text[text.find("{") : text.rfind("}") + 1]) if outcome.returncode == 0 else None
    except ValueError:
        return None
    if not isinstance(found, dict) or not found.get("GOVERSION"):
        return None
    return {str(name): str(value) for name, value in found.items()}


def cache_root(sandbox: Sandbox) -> Path:
    """Where the warm caches lie: std_cache.root() when the runs see it and can't write it (bwrap's
    bind and Landlock's ruleset keep it read-only, the process tier another uid), else a folder
    of this process's hooks.home(), gone when it ends."""
    lasting = std_cache.root()
    guarded = sandbox.tier in ("bwrap", "landlock") or (sandbox.tier == "process" and os.geteuid() == 0)
    shown = any(within(os.path.realpath(lasting), os.path.realpath(path)) for path in sandbox.readable)
    if guarded and shown and std_cache.prepared(lasting):
        return lasting
    here = hooks.home() / "go-std"
    here.mkdir(mode=0o755, exist_ok=True)
    return here


def make_cache(sandbox: Sandbox, go: GoTest, wanted: frozenset[str], limits: Limits, folder: str | Path) -> bool:
    """The standard packages `wanted` compiled into `folder`/cache by a sandboxed `go test` of a
    test file autofix writes, importing them; True when it worked."""
    imports = "\n".join(f'\t_ "{path}"' for path in sorted(wanted - {"testing"}))
    (Path(folder) / "go.mod").write_text("module autofix.invalid/warm\n\ngo 1.21\n", encoding="utf-8")
    (Path(folder) / "warm_test.go").write_text(
        f'package warm\n\nimport (\n{imports}\n\t"testing"\n)\n\nfunc TestWarm(t *testing.T) {{}}\n',
        encoding="utf-8",
    )
    cache = os.path.join(folder, "cache")
    env = environment(go, None)
    env["GOCACHE"] = cache
    env["GOMODCACHE"] = os.path.join(folder, "mod")  # nothing to download: the standard library only
    outcome = sandbox.run([go.go, "test", "-count=1", f"-p={parallel()}", "."], Path(folder), env, limits)
    if outcome.returncode != 0 or not os.path.isdir(cache):
        return False
    # go's test2json, which a staged run (staged.py) converts its binaries' output with: built once here
    tool = sandbox.run([go.go, "tool", "-n", "test2json"], Path(folder), env, limits)
    return tool.returncode == 0
