"""autofix's pytest plugin: records every test's outcome for the verdict, plants the run's
canaries, and refuses a session whose test machinery changed while it ran.

autofix never ships this file as it is: for each run bot/judge/hooks.py writes it, after seal.py
and a header with the run's descriptors, as one module under a name drawn at random for that run,
in a root-owned folder the run can only read. pytest loads it with `-p <that name>` while it
parses its options: after its own modules and installed plugins, before any conftest, test module
or candidate code is imported. So no file of the work folder can stand in for it or for anything
it imports (it imports nothing: os, sys and pytest are loaded already), and no candidate can
import it by a name known in advance. At load it takes the run's nonce and canaries from the memfd
RUN["fd"] and empties that file, and it notes the identity of the functions and classes that run
tests and make reports.

After collection it plants the canaries: tests with names autofix drew, placed among the suite's
own in its test modules, some failing and some passing by construction. autofix knows which must
fail: a run whose line reports one of them otherwise, or leaves one out, was forged (bot/judge/
canaries.py). At the end of the session it checks the machinery is what it was, that every hook
implementation comes from outside the work folder or from one of its conftest.py files (which
autofix protects), and that each test item still runs its own test function; then it writes one
line, the nonce and a Python literal, to that descriptor. A run that ends before this line
(os._exit, a kill, a crash) has no verdict and fails; a forged line needs the nonce, which was in
no file, argument or environment variable the candidate could read.

Code running inside this process could still search memory for the nonce or the canaries;
autofix's static guard refuses the means (gc, frames, sys.modules), and the sandbox contains the
rest. Written for every Python that pytest supports (no annotations, no newer syntax).
"""

import ast as _ast
import os
import sys

import pytest
from _pytest.assertion.rewrite import rewrite_asserts as _rewrite

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


# Bound now: a candidate imported later may replace the built-ins, never these names.
_compile, _exec, _Function, _Module = compile, exec, pytest.Function, pytest.Module


def read_only():
    """The test ids this session runs, when autofix asked for some: the ones that failed last,
    so a candidate that still fails them is told in seconds. A quick run only ever rejects:
    a pass is decided by the whole suite."""
    fd = RUN["only_fd"]
    if fd < 0:
        return None
    try:
        data = os.pread(fd, 64 << 20, 0)
    except OSError:
        return None
    return set(data.decode("utf-8", "replace").split("\n")) - {""}


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


def recorder_class(fd, sign, canaries, only, original, target):
    """The class of the plugin object that records the session, its state and every function it
    calls bound here: not one is looked up in a module's globals, which code under test could
    rebind, and the nonce's signer and the canaries are in no global at all."""
    planted = set()  # the canaries' node ids, once planted
    note_id, message, planter, tampered = test_id, message_of, plant, tampering
    named, discovered, elsewhere = RUN["plugins"], autoloaded, loaded_elsewhere
    prefer, avoid = set(RUN["prefer"]), set(RUN["avoid"])
    paths, loaded, write, hookimpl = import_paths, loaded_as, write_line, pytest.hookimpl

    class Recorder:
        def __init__(self, maxfail=0):
            self.cases = {}  # test id -> [outcome, message, details]
            self.items = []
            self.twins = {}  # a twin canary's name: the id of the test it contradicts
            self.maxfail = maxfail  # what -x / --maxfail asked for, before the plugin lifted it
            self.session = None

        def note(self, report, outcome):
            case = self.cases.setdefault(note_id(report.nodeid), ["passed", "", ""])
            if case[0] in ("failed", "error") and outcome in ("passed", "skipped"):
                return  # a teardown that passed doesn't undo a failed call
            case[0] = outcome
            if outcome != "passed":
                case[1] = message(report)[:1000]
                case[2] = (report.longreprtext or "")[-DETAIL_CHARS:]

        @hookimpl(tryfirst=True)
        def pytest_report_teststatus(self, report, config):
            if report.nodeid in planted:
                return "", "", ""  # the terminal neither shows nor counts a canary

        @hookimpl(trylast=True)
        def pytest_runtest_logreport(self, report):
            if report.nodeid in planted and report.failed and self.session is not None:
                self.session.testsfailed -= 1  # a canary's failure is no failure of the suite's
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

        @hookimpl(trylast=True)
        def pytest_collectreport(self, report):
            if report.failed:
                self.note(report, "error")
            elif report.skipped:
                self.note(report, "skipped")

        @hookimpl(trylast=True)
        def pytest_collection_modifyitems(self, session, config, items):
            if only is not None:
                keep, drop = [], []
                for item in items:
                    name = note_id(item.nodeid)
                    (keep if name in only or name.split("::")[0] in only else drop).append(item)
                if drop:
                    config.hook.pytest_deselected(items=drop)
                    items[:] = keep
            self.session = session
            rewrite = getattr(config.option, "assertmode", "plain") == "rewrite"
            made, self.twins = planter(items, canaries, prefer, avoid, rewrite)
            planted.update(canary.nodeid for canary in made)

        @hookimpl(trylast=True)
        def pytest_collection_finish(self, session):
            self.items = list(session.items)

        @hookimpl(tryfirst=True)
        def pytest_runtestloop(self, session):
            session.testscollected -= len(planted)  # the terminal's progress counts the suite's own

        @hookimpl(trylast=True)
        def pytest_sessionfinish(self, session, exitstatus):
            config = session.config
            result = {
                "exitstatus": int(exitstatus),
                "cases": [[name] + case for name, case in self.cases.items()],
                "tampered": tampered(config, self.items, original) + elsewhere(config.pluginmanager, named),
                "paths": paths(),
                "loaded": loaded(target),
                "maxfail": self.maxfail,
                "twins": self.twins,
            }
            if named is None:  # pytest discovered the environment's plugins: autofix names them from now on
                result["plugins"] = discovered(config.pluginmanager)
            result["tampered"] += self.refusals()  # what the audit hook refused (audit.py)
            if named is None:  # the repository's own code's places the audit hook lets be from now on
                result["sites"] = self.observed()
            write(fd, sign, result)

    return Recorder


def plantable(module_id):
    """A test module by its id's shape (`tests.test_x`, `pkg.x_test`, `tests.sub.helpers`):
    bot/judge/canaries.py asks the same of the ids it reads back."""
    parts = module_id.split(".")
    return parts[-1].startswith("test_") or parts[-1].endswith("_test") or "tests" in parts[:-1]


def plant(items, canaries, prefer, avoid, rewrite):
    """Each canary (name, left, right, module hint, module pick, place pick) becomes a test of one
    of the suite's test modules that no mark skips. A must-fail one is, where it can be, the twin
    of one of the suite's tests (those autofix names in `prefer` first: the ones failing last),
    placed right after it: its own code with the expected value of its last `==` assertion
    changed, so it calls the code under repair as that test does, fails as it does, and the two
    can't both pass. Else, and for a must-pass one, placed after one of the module's own tests:
    its body asserts left == right, and its code names the module's file, as the module's own
    tests do. The planted items come back, and the twins' originals by canary name."""
    modules, members = [], {}
    for index, item in enumerate(items):
        module = item.getparent(_Module)
        if module is None or type(module) is not _Module or not plantable(test_id(module.nodeid)):
            continue
        if module not in members:
            modules.append(module)
            members[module] = []
        members[module].append(index)
    modules = [m for m in modules if not any(mark.name in ("skip", "skipif", "xfail") for mark in m.iter_markers())]
    usable = set(modules)
    placed, twins, taken = [], {}, set()
    for name, left, right, hint, module_pick, place_pick in canaries if modules else ():
        if left != right:
            made = twin(items, name, prefer, avoid, usable, taken, int(module_pick), rewrite)
            if made is not None:
                after, canary, original = made
                placed.append((after, canary))
                twins[name] = original
                continue
        hinted = [m for m in modules if test_id(m.nodeid) == hint]
        module = hinted[0] if hinted else modules[int(module_pick) % len(modules)]
        source = "def " + name + "():\n    assert " + left + " == " + right + "\n"
        namespace = {"__name__": module.obj.__name__}
        _exec(_compile(source, str(module.path), "exec"), namespace)
        # A global of its module, as the module's own tests are: no look at the module tells it apart.
        setattr(module.obj, name, namespace[name])
        canary = _Function.from_parent(module, name=name, callobj=namespace[name])
        placed.append((members[module][int(place_pick) % len(members[module])], canary))
    for after, canary in sorted(placed, key=lambda pair: -pair[0]):
        items.insert(after + 1, canary)
    return [canary for _, canary in placed], twins


TWIN_TRIES = 20  # originals tried for one twin: a module's source parsed for each, at most


def twin(items, name, prefer, avoid, usable, taken, pick, rewrite):
    """(the original's index, the twin, the original's id) for one of the suite's tests, or None.
    Never one in `avoid` (the flaky ones: their outcome says nothing, and a twin runs them twice)."""
    ids = [note_id_of(item) for item in items]
    chosen = [i for i, found in enumerate(ids) if found in prefer and found not in avoid]
    others = [i for i, found in enumerate(ids) if found not in prefer and found not in avoid]
    for group in (chosen, others):
        group = group[pick % len(group) :] + group[: pick % len(group)] if group else group
        for index in group[:TWIN_TRIES]:
            item = items[index]
            if index in taken or item.getparent(_Module) not in usable:
                continue
            made = contradiction(item, name, rewrite)
            if made is not None:
                taken.add(index)
                return index, made, note_id_of(item)
    return None


def note_id_of(item):
    return test_id(item.nodeid)


def contradiction(item, name, rewrite):
    """A test function named `name` from `item`'s own source, its last `==` against a literal
    expecting something else, compiled under the module's file and the original's lines; with the
    original's fixtures and parameters. None for a method, or a test with no such assertion."""
    module = item.getparent(_Module)
    original = getattr(item, "originalname", None) or item.name
    if type(item) is not _Function or getattr(item, "cls", None) is not None or module is None:
        return None
    try:
        with open(str(module.path), "rb") as handle:
            source = handle.read()
        tree = _ast.parse(source)
    except (OSError, SyntaxError, ValueError):
        return None
    found = [
        node
        for node in tree.body
        if isinstance(node, (_ast.FunctionDef, _ast.AsyncFunctionDef)) and node.name == original
    ]
    if len(found) != 1 or not changed_expectation(found[0]):
        return None
    function = found[0]
    function.name, function.decorator_list = name, []
    planted = _ast.Module(body=[function], type_ignores=[])
    if rewrite and type(getattr(module.obj, "__loader__", None)).__name__ == "AssertionRewritingHook":
        _rewrite(planted, source, str(module.path), item.config)
    _exec(_compile(planted, str(module.path), "exec"), vars(module.obj))
    suffix = item.name[len(original) :]
    return _Function.from_parent(
        module,
        name=name + suffix,
        callspec=getattr(item, "callspec", None),
        callobj=vars(module.obj)[name],
        fixtureinfo=item._fixtureinfo,
        originalname=name,
    )


def changed_expectation(function):
    """Change, in place, the literal one side of the function's last `assert a == b` is: True
    when there was one."""
    asserts = [
        node
        for node in _ast.walk(function)
        if isinstance(node, _ast.Assert)
        and isinstance(node.test, _ast.Compare)
        and len(node.test.ops) == 1
        and isinstance(node.test.ops[0], _ast.Eq)
    ]
    for node in sorted(asserts, key=lambda n: n.lineno, reverse=True):
        compare = node.test
        for side in ("comparators", "left"):
            value = compare.comparators[0] if side == "comparators" else compare.left
            other = other_literal(value)
            if other is not None:
                _ast.copy_location(other, value)
                if side == "comparators":
                    compare.comparators[0] = other
                else:
                    compare.left = other
                return True
    return False


def other_literal(node):
    """A literal unequal to `node`'s, of its kind (`4` → `5`, `'abc'` → `'abd'`, `[1, 2]` →
    `[1, 2, 2]`), or None when `node` is no literal."""
    if isinstance(node, _ast.Constant):
        value = node.value
        if isinstance(value, bool) or value is None:
            return _ast.Constant(value=not value if isinstance(value, bool) else 0)
        if isinstance(value, (int, float)):
            return _ast.Constant(value=value + 1)
        if isinstance(value, str):
            return _ast.Constant(value=value[:-1] + chr(ord(value[-1]) + 1) if value else " ")
        if isinstance(value, bytes):
            return _ast.Constant(value=value + b"\0")
        return None
    if isinstance(node, (_ast.List, _ast.Tuple)):
        if not all(isinstance(element, _ast.Constant) for element in node.elts):
            return None
        extra = node.elts[-1] if node.elts else _ast.Constant(value=0)
        return type(node)(elts=[*node.elts, extra], ctx=_ast.Load())
    return None


def tampering(config, items, original):
    """What changed in the test machinery during the session, one line each."""
    found = replaced(original, "pytest")
    manager = config.pluginmanager
    for name in dir(manager.hook):
        caller = getattr(manager.hook, name, None)
        if not hasattr(caller, "get_hookimpls"):
            continue
        if getattr(getattr(caller, "_hookexec", None), "__self__", manager) is not manager:
            found.append("the hook " + name + " calls through something else than pytest's plugin manager")
        for impl in caller.get_hookimpls():
            # Every layer of the implementation: one pointing elsewhere by its attributes still runs.
            for where in code_files(impl.function):
                if inside_workdir(where) and not test_like(where):
                    found.append("the hook " + name + " was implemented by " + os.path.relpath(where, WORKDIR))
                    break
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


def plugin_file(module):
    """Where a plugin module's file is: inside the work folder, relative to it (each scratch copy
    has its own folder), else the real path."""
    path = getattr(module, "__file__", None)
    if not isinstance(path, str):
        return None
    real = os.path.realpath(path)
    return "./" + os.path.relpath(real, WORKDIR) if inside_workdir(real) else real


def autoloaded(manager):
    """The plugins pytest loaded from the environment's entry points: [module, file] each."""
    found = []
    for plugin, _dist in manager.list_plugin_distinfo():
        name, where = getattr(plugin, "__name__", None), plugin_file(plugin)
        if isinstance(name, str) and where is not None:
            found.append([name, where])
    return found


def loaded_elsewhere(manager, named):
    """One line for each plugin autofix named that pytest did not load from its file: a module the
    tree shadows it with, or one that never loaded."""
    found = []
    for name, where in named or ():
        now = plugin_file(manager.get_plugin(name))
        if now != where:
            found.append("the plugin " + name + " was loaded from " + str(now) + ", not " + where)
    return found


def import_paths():
    """Where this Python imports from: sys.path, editable installs' mappings, and the folders
    .pth files name (site drops those it can't see, such as a source folder the sandbox hides)."""
    paths = [p for p in sys.path if isinstance(p, str)]
    for finder in sys.meta_path:
        mapping = getattr(sys.modules.get(getattr(finder, "__module__", ""), None), "MAPPING", None)
        if isinstance(mapping, dict):
            paths += [p for p in mapping.values() if isinstance(p, str)]
    return (paths + [moved(p) or p for p in pth_entries()])[:500]


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


def sealed():
    """At load, before any conftest, test module or candidate code: the run's signer, canaries
    and selection taken, the machinery noted, and what configures the session; None outside a
    run of autofix's."""
    redirect_editables()  # sitecustomize did, unless the tests' Python skipped it (-S, -I)
    fd, sign, canaries = take_nonce()
    if sign is None:
        return None
    recorder = recorder_class(fd, sign, canaries, read_only(), identities(MACHINERY), RUN["target"])
    refusals, observed = watch_runner()  # the audit hook, from now on (audit.py)
    recorder.refusals, recorder.observed = staticmethod(refusals), staticmethod(observed)
    # Where this Python imports from, now: a conftest that can't import the project (an editable
    # install whose source the sandbox doesn't show) ends pytest before any session, and autofix
    # should still be able to say why. The session's line, if it comes, follows this one.
    write_line(fd, sign, {"paths": import_paths()})
    name, modules = __name__, sys.modules

    def configure(config):
        # A candidate is judged by the whole suite: -x or --maxfail in the command would stop the
        # run at the first failures and hide the others from the judgement and the feedback.
        maxfail = getattr(config.option, "maxfail", 0) or 0
        config.option.maxfail = 0
        # And in this process: pytest-xdist's workers would run the tests where neither the
        # verdict's descriptor nor the canaries are (xdist decides in its own, later, configure).
        if getattr(config.option, "dist", "no") != "no":
            config.option.dist = "no"
            config.option.numprocesses = None
        config.pluginmanager.register(recorder(maxfail), name + "-recorder")
        modules.pop(name, None)  # from here on, no look through sys.modules finds this plugin

    return configure


_configure = sealed()


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    configure = globals().pop("_configure", None)
    if configure is not None:
        configure(config)
