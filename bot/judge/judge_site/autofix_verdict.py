"""autofix's pytest plugin: records every test's outcome for the verdict, and refuses a session
whose test machinery changed while it ran.

pytest loads it with `-p autofix_verdict` (through PYTEST_ADDOPTS, from a folder on PYTHONPATH that
holds only autofix's hooks) while it parses its options: after its own modules and installed plugins,
before any conftest, test module or candidate code is imported. At that moment it takes the
run's nonce from the file descriptor named by AUTOFIX_VERDICT_FD (autofix wrote it there) and
empties that file, and it notes the identity of the functions and classes that run tests and
make reports. At the end of the session it checks they are what they were, that every hook
implementation comes from outside the work folder or from one of its conftest.py files (which
autofix protects), and that each test item still runs its own test function; then it writes one
line, the nonce and a Python literal, to that descriptor. A run that ends before this line
(os._exit, a kill, a crash) has no verdict and fails; a forged line needs the nonce, which was
in no file, argument or environment variable the candidate could read.

Code running inside this process could still search memory for the nonce; autofix's static
guard refuses the means (gc, frames, sys.modules), and the sandbox contains the rest.
Written for every Python that pytest supports (no annotations, no newer syntax).
"""

import os
import sys

import pytest
from autofix_seal import WORKDIR, identities, inside_workdir, replaced, source_file, take_nonce, test_like, write_line

TARGET_VARIABLE = "AUTOFIX_TARGET"
DETAIL_CHARS = 4000  # bot.text.DETAIL_CHARS: this file runs in the sandbox without autofix on its path
# The modules whose functions and classes run tests, make reports and call hooks.
MACHINERY = (
    "_pytest.python",
    "_pytest.runner",
    "_pytest.reports",
    "_pytest.main",
    "_pytest.nodes",
    "_pytest.skipping",
    "_pytest.outcomes",
    "_pytest.fixtures",
    "_pytest.unittest",
    "_pytest.doctest",
    "_pytest.terminal",
    "_pytest.capture",
    "pluggy",
    "pluggy._hooks",
    "pluggy._callers",
    "pluggy._manager",
    "pluggy._result",
    "pluggy._caller",
    "pluggy._execution",
)


ONLY_VARIABLE = "AUTOFIX_ONLY_FD"  # a descriptor holding the test ids to run, one a line: a quick first run


def read_only():
    """The test ids this session runs, when autofix asked for some: the ones that failed last,
    so a candidate that still fails them is told in seconds. A quick run only ever rejects:
    a pass is decided by the whole suite."""
    fd = os.environ.get(ONLY_VARIABLE)
    if not fd:
        return None
    try:
        data = os.pread(int(fd), 64 << 20, 0)
    except (OSError, ValueError):
        return None
    return set(data.decode("utf-8", "replace").split("\n")) - {""}


FD, NONCE = take_nonce()
ORIGINAL = identities(MACHINERY) if NONCE else {}
TARGET = os.environ.get(TARGET_VARIABLE, "")
ONLY = read_only()


def test_id(nodeid):
    """The test's id as pytest's JUnit report names it: `tests.test_x::TestY::test_z[1]`."""
    path, bracket, params = nodeid.partition("[")
    names = path.split("::")
    names[0] = names[0].replace("/", ".")
    if names[0].endswith(".py"):
        names[0] = names[0][:-3]
    names[-1] += bracket + params
    return "::".join(names)


def message_of(report):
    if report.skipped and isinstance(report.longrepr, tuple):
        reason = str(report.longrepr[2])
        return reason[len("Skipped: ") :] if reason.startswith("Skipped: ") else reason
    text = report.longreprtext or ""
    lines = [line for line in text.splitlines() if line.startswith("E ")]
    first = lines[0][1:].strip() if lines else text.strip().splitlines()[-1:] or [""]
    return first if isinstance(first, str) else first[0]


class Recorder:
    def __init__(self, maxfail=0):
        self.cases = {}  # test id -> [outcome, message, details]
        self.items = []
        self.maxfail = maxfail  # what -x / --maxfail asked for, before the plugin lifted it

    def note(self, report, outcome):
        case = self.cases.setdefault(test_id(report.nodeid), ["passed", "", ""])
        if case[0] in ("failed", "error") and outcome in ("passed", "skipped"):
            return  # a teardown that passed doesn't undo a failed call
        case[0] = outcome
        if outcome != "passed":
            case[1] = message_of(report)[:1000]
            case[2] = (report.longreprtext or "")[-DETAIL_CHARS:]

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_logreport(self, report):
        if report.when == "call":
            if report.failed:
                self.note(report, "failed")
            elif report.skipped:
                self.note(report, "skipped")
            else:
                self.note(report, "passed")
        elif report.failed:
            self.note(report, "error")
        elif report.skipped:
            self.note(report, "skipped")
        elif report.when == "setup":
            self.note(report, "passed")

    @pytest.hookimpl(trylast=True)
    def pytest_collectreport(self, report):
        if report.failed:
            self.note(report, "error")
        elif report.skipped:
            self.note(report, "skipped")

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, session, config, items):
        if ONLY is None:
            return
        keep, drop = [], []
        for item in items:
            name = test_id(item.nodeid)
            (keep if name in ONLY or name.split("::")[0] in ONLY else drop).append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session):
        self.items = list(session.items)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session, exitstatus):
        config = session.config
        result = {
            "exitstatus": int(exitstatus),
            "cases": [[name] + case for name, case in self.cases.items()],
            "tampered": tampering(config, self.items),
            "paths": import_paths(),
            "loaded": loaded_as(TARGET),
            "maxfail": self.maxfail,
        }
        write_line(FD, NONCE, result)


def tampering(config, items):
    """What changed in the test machinery during the session, one line each."""
    found = replaced(ORIGINAL, "pytest")
    manager = config.pluginmanager
    for name in dir(manager.hook):
        caller = getattr(manager.hook, name, None)
        if not hasattr(caller, "get_hookimpls"):
            continue
        if getattr(getattr(caller, "_hookexec", None), "__self__", manager) is not manager:
            found.append("the hook " + name + " calls through something else than pytest's plugin manager")
        for impl in caller.get_hookimpls():
            where = source_file(impl.function)
            if where and inside_workdir(where) and not test_like(where):
                found.append("the hook " + name + " was implemented by " + os.path.relpath(where, WORKDIR))
    for item in items:
        if "runtest" in vars(item):
            found.append(item.nodeid + ": its runtest was replaced")
        function = getattr(item, "obj", None) if hasattr(item, "function") else None
        where = source_file(function) if function is not None else None
        if where and inside_workdir(where) and not test_like(where):
            found.append(
                item.nodeid + ": runs a function from " + os.path.relpath(where, WORKDIR) + " instead of its own"
            )
    return found[:50]


def import_paths():
    """Where this Python imports from: sys.path, editable installs' mappings, and the folders
    .pth files name (site drops those it can't see, such as a source folder the sandbox hides)."""
    paths = [p for p in sys.path if isinstance(p, str)]
    for finder in sys.meta_path:
        mapping = getattr(sys.modules.get(getattr(finder, "__module__", ""), None), "MAPPING", None)
        if isinstance(mapping, dict):
            paths += [p for p in mapping.values() if isinstance(p, str)]
    return (paths + pth_entries())[:500]


def pth_entries():
    import site

    found = []
    for folder in getattr(site, "getsitepackages", lambda: [])():
        try:
            names = sorted(n for n in os.listdir(folder) if n.endswith(".pth"))
        except OSError:
            continue
        for name in names[:100]:
            try:
                with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as pth:
                    lines = pth.read(65536).splitlines()
            except OSError:
                continue
            found += [
                os.path.join(folder, line.strip())
                for line in lines
                if line.strip() and not line.startswith(("#", "import ", "import\t"))
            ]
    return found


def loaded_as(target):
    """The files of loaded modules named as the target could be: `src/pkg/mod.py` is
    `src.pkg.mod` or `pkg.mod` (a one-part name only for a target at the top of the folder)."""
    if not target.endswith(".py"):
        return []
    parts = target[:-3].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    names = {".".join(parts[i:]) for i in range(len(parts) - 1 if len(parts) > 1 else 1)}
    found = []
    for name in names:
        path = getattr(sys.modules.get(name), "__file__", None)
        if isinstance(path, str):
            found.append([name, path])
    return sorted(found)


def pytest_configure(config):
    if NONCE:
        # A candidate is judged by the whole suite: -x or --maxfail in the command would stop the
        # run at the first failures and hide the others from the judgement and the feedback.
        maxfail = getattr(config.option, "maxfail", 0) or 0
        config.option.maxfail = 0
        config.pluginmanager.register(Recorder(maxfail), "autofix-verdict-recorder")


if NONCE:
    # Where this Python imports from, now: a conftest that can't import the project (an editable
    # install whose source the sandbox doesn't show) ends pytest before any session, and autofix
    # should still be able to say why. The session's line, if it comes, follows this one.
    write_line(FD, NONCE, {"paths": import_paths()})
