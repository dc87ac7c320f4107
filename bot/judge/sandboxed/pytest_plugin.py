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

The signer, the canaries and the outcomes live in one generator's frame (`record`), reached by
no attribute, closure, global or default; frames and gc, which do reach it, are refused to code
under repair by the audit hook (audit.py). What stays possible in principle: code that rebinds a
function of pytest, pluggy or the standard library that pytest's own code calls with its objects,
and puts it back before the session ends (docs/judging.md). Written for every Python that
pytest supports (no annotations, no newer syntax).
"""

import _signal
import ast as _ast
import faulthandler
import os
import sys
import time
from types import MethodType as _bound

import pytest
from _pytest._io.saferepr import saferepr_unlimited as _whole_repr
from _pytest.assertion.rewrite import rewrite_asserts as _rewrite

DETAIL_CHARS = 4000  # bot.text.DETAIL_CHARS: this file runs in the sandbox without autofix on its path
# Of each value a failing `==`-like assertion compared, kept around where the two first differ:
# pytest's own message cuts them at 240 characters and says "Use -v to get more diff", which the
# model can't do. bot/judge/failures.py cuts them again to the feedback's budget.
VALUE_CHARS = 4000
PARAM_CHARS = 300  # of each parameter of a failing parametrized test
PARAMS = 10  # parameters named, at most
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


def record(write, canaries, only, original, target, bound):
    """The session's recorder: a generator whose frame alone holds the run's signer (inside
    `write`), its canaries, the tests' outcomes and the session; the hook functions (`recorder`)
    send it what pytest hands them, and it writes the verdict's line itself. No attribute, closure
    or global leads into that frame: a generator's frame is an audited read the audit hook refuses
    to code under repair (audit.py), and everything it calls was bound at load, before any code of
    the work folder ran (`bound`), so rebinding a module's global or a built-in reaches none of it."""
    (note_id, message, planter, tampered, discovered, elsewhere, paths, loaded, refusals, observed) = bound[:10]
    named, prefer, avoid, length, attribute, integer, listed, renamed, identity, clock = bound[10:20]
    layers_of, ran_before = bound[20:]
    cases, planted, twins, items, registrations, differs = {}, set(), {}, [], [], {}
    ids, running, renames = {}, None, []  # each item's node id as collected, by identity
    compared, ran = None, None  # the last failing comparison of the running test; the test just run
    session, answer, written, maxfail, chosen = None, None, False, 0, False
    while True:
        kind, args = yield answer
        answer = None
        if kind == "maxfail" and session is None:
            maxfail = args  # what -x / --maxfail asked for, before configure lifted it
        elif kind == "status":
            if args.nodeid in planted:
                answer = ("", "", "")  # the terminal neither shows nor counts a canary
        elif kind == "protocol":
            if args is None:  # the test ended: whether it failed, so its parameters are sent
                ran, running = running, None
                answer = ran is not None and cases.get(note_id(ran), ("",))[0] in ("failed", "error")
            else:
                running, compared = ids.get(identity(args)), None
                if running is not None and running not in planted:
                    # Which test runs, signed, for a run whose time runs out before its session
                    # ends (bot/judge/hung.py); never a canary, whose name code under test must not read.
                    write({"running": note_id(running), "since": clock()})
        elif kind == "compared" and running is not None:
            compared = args
        elif kind == "params" and ran is not None and note_id(ran) in cases:
            cases[note_id(ran)][3]["params"] = args
        elif kind in ("logreport", "collectreport"):
            report = args
            if kind == "logreport" and running is not None and report.nodeid != running:
                renames.append("a report of " + running + " came back as " + report.nodeid)
            if kind == "logreport" and report.nodeid in planted and report.failed and session is not None:
                session.testsfailed -= 1  # a canary's failure is no failure of the suite's
            if kind == "collectreport" or report.when != "call":
                outcome = "error" if report.failed else "skipped" if report.skipped else None
                if outcome is None and kind == "logreport" and report.when == "setup":
                    outcome = "passed"
            else:
                outcome = "failed" if report.failed else "skipped" if report.skipped else "passed"
            if outcome is not None:
                case = cases.setdefault(note_id(report.nodeid), ["passed", "", "", {}])
                if not (case[0] in ("failed", "error") and outcome in ("passed", "skipped")):
                    case[0] = outcome  # a teardown that passed doesn't undo a failed call
                    if outcome != "passed":
                        case[1] = message(report)[:1000]
                        case[2] = (report.longreprtext or "")[-DETAIL_CHARS:]
                    # The values of the assertion that failed the test: a comparison an earlier
                    # assertion caught (pytest.raises, try) is no part of it.
                    if outcome == "failed" and compared is not None and case[1].startswith(("assert", "Assert")):
                        case[3]["compared"] = compared
        elif kind == "registered":
            registrations = (registrations + [line for line in args if line not in registrations])[:20]
        elif kind == "start" and session is None:
            session = args  # before collection: a usage error's finish is still this session's
        elif kind == "modifyitems" and args[0] is session and not chosen:
            chosen, (_, config, found) = True, args
            if only is not None:
                keep, drop = [], []
                for item in found:
                    name = note_id(item.nodeid)
                    (keep if name in only or name.split("::")[0] in only else drop).append(item)
                if drop:
                    config.hook.pytest_deselected(items=drop)
                    found[:] = keep
            rewrite = attribute(config.option, "assertmode", "plain") == "rewrite"
            made, twins = planter(found, canaries, prefer, avoid, rewrite)
            planted.update(canary.nodeid for canary in made)
            # The tests to pass whose comparisons are watched (contents.py): the hook recompiles them.
            answer = [item for item in found if note_id(item.nodeid) in prefer and note_id(item.nodeid) not in avoid]
        elif kind == "contents" and running is not None and running not in planted:
            differs.setdefault(note_id(running), args)
        elif kind == "collected" and args is session:
            items = listed(session.items)
            ids = {identity(item): item.nodeid for item in items}
        elif kind == "loop" and args is session:
            session.testscollected -= length(planted)  # the terminal's progress counts the suite's own
        elif kind == "finish" and args[0] is session and not written:
            written, config = True, session.config
            result = {
                "exitstatus": integer(args[1]),
                "cases": [[name] + case for name, case in cases.items()],
                "tampered": tampered(config, items, original, renamed) + elsewhere(config.pluginmanager, named),
                "paths": paths(),
                "loaded": loaded(target),
                "maxfail": maxfail,
                "twins": twins,
            }
            if named is None:  # pytest discovered the environment's plugins: autofix names them from now on
                result["plugins"] = discovered(config.pluginmanager)
            result["tampered"] += [line for line in registrations if line not in result["tampered"]]
            renames += [
                item.nodeid + " was " + ids[identity(item)] for item in items if item.nodeid != ids[identity(item)]
            ]
            result["tampered"] += renames[:20]
            result["tampered"] += refusals()  # what the audit hook refused (audit.py)
            result["tampered"] += [
                name + " passed, and it compared with == values that hold different things: " + text
                for name, text in differs.items()
                if cases.get(name, ("",))[0] == "passed"
            ][:20]
            suite = [item for item in items if item.nodeid not in planted]
            if ran_before is None:  # the repository's tree: what each test runs, from now on
                result["functions"] = {note_id(item.nodeid): layers_of(item) for item in suite}
            else:
                result["tampered"] += swapped(suite, ran_before, layers_of, note_id)[:20]
            if named is None:  # the repository's own code's places the audit hook lets be from now on
                result["sites"] = observed()
            write(result)


def deferring(vault, _get=_signal.getsignal, _set=_signal.signal, _raise=_signal.raise_signal):
    """What sends `vault` a message: while the recorder runs, a Python signal handler only notes
    its signal, and the real one runs once the recorder is done. A handler is handed the frame it
    interrupts, no audit event asked; inside the recorder, that frame leads to the signer."""
    numbers, builtin, pending = tuple(_signal.valid_signals()), type(len), []  # _signal's: no enums, 9 µs a send

    def later(number, frame):
        pending.append(number)

    def send(message):
        held = []
        for number in numbers:
            handler = _get(number)
            if callable(handler) and type(handler) is not builtin:
                try:
                    _set(number, later)
                except (ValueError, OSError):  # not the main thread: no handler runs here either
                    continue
                held.append((number, handler))
        try:
            return vault.send(message)
        finally:
            for number, handler in held:
                _set(number, handler)
            while pending:
                _raise(pending.pop(0))

    return send


def watcher(dump_at, _later=faulthandler.dump_traceback_later, _cancel=faulthandler.cancel_dump_traceback_later):
    """What arms, for a test starting (True), a dump of every thread's stack (where a test that
    hangs is) at `dump_at` (seconds since the epoch: just before autofix stops the run) to a copy
    of the run's stderr taken now (a test's own stderr is pytest's capture, lost with the run),
    and cancels it once the test ends. bot/judge/hung.py reads it."""
    if not isinstance(dump_at, (int, float)):
        return lambda start: None
    err, now = os.dup(2), time.time

    def watch(start):
        if start:
            _later(max(0.01, dump_at - now()), file=err)
        else:
            _cancel()

    return watch


def recorder(name, vault, hide_session, hide_test, renamed, watch, compared):
    """The plugin pytest calls: a module object (no class whose methods code under test could
    patch before it is registered) whose hook functions send their arguments to `vault`. What
    they use is in their defaults, whose replacement is audited (audit.py), not in closure cells,
    which any code may read and write."""
    hookimpl = pytest.hookimpl
    module = type(sys)(name)

    @hookimpl(tryfirst=True)
    def pytest_report_teststatus(report, config, vault=vault):
        return vault(("status", report))

    @hookimpl(trylast=True)
    def pytest_runtest_logreport(report, vault=vault):
        vault(("logreport", report))

    @hookimpl(trylast=True)
    def pytest_collectreport(report, vault=vault):
        vault(("collectreport", report))

    @hookimpl(trylast=True)
    def pytest_collection_modifyitems(session, config, items, vault=vault, compared=compared, now=watch_comparisons):
        watched = vault(("modifyitems", (session, config, items)))
        if watched:
            now(watched, config, compared)

    @hookimpl(trylast=True)
    def pytest_collection_finish(session, vault=vault):
        vault(("collected", session))

    @hookimpl(tryfirst=True)
    def pytest_sessionstart(session, hide=hide_session, vault=vault):
        vault(("start", session))
        hide()

    @hookimpl(wrapper=True)
    def pytest_runtest_protocol(item, nextitem, hide=hide_test, vault=vault, shown=shown_params, watch=watch):
        hide()  # inside pytest's own wrapper, which sets what this hides for each test
        vault(("protocol", item))  # its reports carry its node id as collected, or say otherwise
        watch(True)
        try:
            return (yield)
        finally:
            watch(False)
            if vault(("protocol", None)):  # it failed: its parameters, for the feedback
                vault(("params", shown(item)))

    @hookimpl(trylast=True)
    def pytest_assertrepr_compare(config, op, left, right, vault=vault, shown=shown_values):
        # Called with the operands of the assertion failing now; the reprs are made here, outside
        # the recorder's frame, since a repr runs the candidate's code. pytest explains it still.
        vault(("compared", shown(op, left, right)))

    @hookimpl
    def pytest_plugin_registered(plugin, manager, vault=vault, registered=registered, renamed=renamed):
        vault(("registered", registered(plugin, manager, renamed)))

    @hookimpl(tryfirst=True)
    def pytest_runtestloop(session, vault=vault):
        vault(("loop", session))

    @hookimpl(trylast=True)
    def pytest_sessionfinish(session, exitstatus, vault=vault):
        vault(("finish", (session, exitstatus)))

    for function in (
        pytest_report_teststatus,
        pytest_runtest_logreport,
        pytest_collectreport,
        pytest_collection_modifyitems,
        pytest_collection_finish,
        pytest_sessionstart,
        pytest_runtest_protocol,
        pytest_assertrepr_compare,
        pytest_runtestloop,
        pytest_sessionfinish,
        pytest_plugin_registered,
    ):
        setattr(module, function.__name__, function)
    return module


def shown_values(op, left, right, _repr=_whole_repr, _str=str, _prefix=os.path.commonprefix):
    """[op, left, right] as reprs, each within VALUE_CHARS around where the two first differ."""
    texts = [_repr(left), _repr(right)]
    if max(len(text) for text in texts) > VALUE_CHARS:
        start = max(0, len(_prefix(texts)) - VALUE_CHARS // 4)
        texts = [
            ("..." if start else "")
            + text[start : start + VALUE_CHARS]
            + ("..." if len(text) > start + VALUE_CHARS else "")
            for text in texts
        ]
    return [_str(op)] + texts


def shown_params(item, _repr=_whole_repr, _str=str):
    """A parametrized test's parameters, [name, repr] each: its id alone (`case3`) says nothing."""
    spec = getattr(item, "callspec", None)
    params = getattr(spec, "params", None)
    if not isinstance(params, dict):
        return []
    shown = []
    for name, value in list(params.items())[:PARAMS]:
        text = _repr(value)
        shown.append([_str(name), text if len(text) <= PARAM_CHARS else text[: PARAM_CHARS - 3] + "..."])
    return shown


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


def watch_comparisons(items, config, compared):
    """Each of `items` that is a plain test function, or a method its module's own top-level
    class defines (no coroutine, no decorator but pytest's marks, a method that neither calls
    `super()` nor has private names), runs from now on a copy of itself, compiled from its file
    under its name and lines, in which every `assert a == b` hands both sides to `compared` once
    `==` has answered (contents.py); the copy is rewritten as pytest rewrites the module, so its
    failures read as before, and a method's copy is bound to the item's own instance. `compared`
    comes in a keyword-only parameter with a default: no fixture, and the copy is reachable from
    pytest's item alone (hidden from code under repair with the session)."""
    rewrite = getattr(config.option, "assertmode", "plain") == "rewrite"
    sources = {}
    for item in items:
        module = item.getparent(_Module)
        original = getattr(item, "originalname", None) or item.name
        cls = getattr(item, "cls", None)
        if type(item) is not _Function or module is None:
            continue
        path = str(module.path)
        if path not in sources:
            try:
                with open(path, "rb") as handle:
                    sources[path] = handle.read()
            except OSError:
                sources[path] = None
        source = sources[path]
        try:
            tree = _ast.parse(source) if source is not None else None
        except (SyntaxError, ValueError):
            tree = None
        nodes = tree.body if tree is not None else ()
        if cls is not None:
            nodes = class_body(nodes, cls, module.obj)
        found = [node for node in nodes if type(node) is _ast.FunctionDef and node.name == original]
        if len(found) != 1 or not all(marks_only(decorator) for decorator in found[0].decorator_list):
            continue
        function = found[0]
        if cls is not None and not own_method(function, cls.__dict__.get(original), path):
            continue
        if function.decorator_list:  # its code starts where the first mark is, as the original's does
            function.lineno, function.decorator_list = function.decorator_list[0].lineno, []
        # A keyword-only parameter with a default, taken into a local and deleted at once: pytest
        # shows a failing test's arguments, and one without a value isn't shown.
        given, parameter = "@autofix_given", "@autofix_compared"
        function.args.kwonlyargs.append(_ast.arg(arg=given))
        function.args.kw_defaults.append(load(given))
        first = function.body[0]
        taken = store(parameter, load(given))
        dropped = _ast.Delete(targets=[_ast.Name(id=given, ctx=_ast.Del())])
        function.body[:0] = [_ast.copy_location(taken, first), _ast.copy_location(dropped, first)]
        if not rewrite:
            watched_plain(function.body, parameter)
        made = _ast.Module(body=[function], type_ignores=[])
        _ast.fix_missing_locations(made)
        if rewrite and type(getattr(module.obj, "__loader__", None)).__name__ == "AssertionRewritingHook":
            _rewrite(made, source, path, config)
            watched_rewritten(function.body, parameter)
        namespace = {given: compared}  # the default's value, read while the definition runs
        _exec(_compile(made, path, "exec"), vars(module.obj), namespace)
        item.obj = namespace[original] if cls is None else _bound(namespace[original], item.instance)


def class_body(nodes, cls, module):
    """The statements of the top-level class of the module's file that is `cls`; none for a class
    nested, made elsewhere or inherited into the module."""
    if cls.__qualname__ != cls.__name__ or getattr(module, cls.__name__, None) is not cls:
        return ()
    found = [node for node in nodes if type(node) is _ast.ClassDef and node.name == cls.__name__]
    return found[0].body if len(found) == 1 else ()


def own_method(function, defined, path):
    """Whether `function` (its definition in the file) is the method the class holds, compiled
    alone to the same effect: a zero-argument `super()` and `__class__` need the class's cell, and
    a private name the class's mangling."""
    code = getattr(defined, "__code__", None)
    first = function.decorator_list[0].lineno if function.decorator_list else function.lineno
    if code is None or code.co_filename != path or code.co_firstlineno != first:
        return False
    for node in _ast.walk(function):
        name = node.id if type(node) is _ast.Name else node.attr if type(node) is _ast.Attribute else ""
        if name in ("super", "__class__") or (name.startswith("__") and not name.endswith("__")):
            return False
    return True


def marks_only(decorator):
    """Whether a decorator is one of pytest's marks (`pytest.mark.x`, `mark.x(...)`): applied
    already, at collection, so a copy without it runs the same."""
    node = decorator.func if isinstance(decorator, _ast.Call) else decorator
    names = []
    while isinstance(node, _ast.Attribute):
        names.append(node.attr)
        node = node.value
    names.append(getattr(node, "id", ""))
    return "mark" in names[1:]


def statement_lists(body):
    """Every list of statements in `body`, itself first, nested functions' and classes' left out."""
    found, todo = [], [body]
    while todo:
        statements = todo.pop()
        found.append(statements)
        for statement in statements:
            if isinstance(statement, (_ast.FunctionDef, _ast.AsyncFunctionDef, _ast.ClassDef)):
                continue
            for field in ("body", "orelse", "finalbody"):
                inner = getattr(statement, field, None)
                if isinstance(inner, list) and inner and isinstance(inner[0], _ast.stmt):
                    todo.append(inner)
            for handler in getattr(statement, "handlers", None) or ():
                todo.append(handler.body)
            for case in getattr(statement, "cases", None) or ():
                todo.append(case.body)
    return found


def single_equality(node):
    return (
        isinstance(node, _ast.Compare)
        and len(node.ops) == 1
        and isinstance(node.ops[0], _ast.Eq)
        and isinstance(node.left, _ast.Name)
        and isinstance(node.comparators[0], _ast.Name)
    )


def watched_rewritten(body, parameter):
    """In pytest's rewriting of a test, before each `@py_assertN = a == b` whose name alone is the
    assertion's condition (`if not @py_assertN: raise ...`), `compared(a, b)`: what the two hold
    is read before their `==` runs, which could change it."""
    for statements in statement_lists(body):
        inserts = []
        for index, statement in enumerate(statements):
            test = getattr(statement, "test", None)
            if not isinstance(statement, _ast.If) or not isinstance(test, _ast.UnaryOp):
                continue
            if not isinstance(test.op, _ast.Not) or not isinstance(test.operand, _ast.Name):
                continue
            for before in range(index - 1, -1, -1):
                assign = statements[before]
                targets = getattr(assign, "targets", None) or []
                if isinstance(assign, _ast.Assign) and [getattr(t, "id", None) for t in targets] == [test.operand.id]:
                    if single_equality(assign.value):
                        inserts.append((before, assign))
                    break
        for at, assign in reversed(inserts):
            # Located where the assignment is, node by node: the rewriting's own nodes carry no
            # end positions, which fix_missing_locations would take from the module's first line.
            names = [assign.value.left, assign.value.comparators[0]]
            args = [_ast.copy_location(_ast.Name(id=side.id, ctx=_ast.Load()), assign) for side in names]
            called = _ast.copy_location(_ast.Name(id=parameter, ctx=_ast.Load()), assign)
            call = _ast.copy_location(_ast.Call(func=called, args=args, keywords=[]), assign)
            statements.insert(at, _ast.copy_location(_ast.Expr(value=call), assign))


def watched_plain(body, parameter):
    """Each `assert a == b` of a test left unrewritten: a and b, `compared(a, b)`, then the
    assertion of their `==`, where the original's condition was (a traceback shows the same)."""
    for statements in statement_lists(body):
        for index in range(len(statements) - 1, -1, -1):
            statement = statements[index]
            test = getattr(statement, "test", None)
            if not isinstance(statement, _ast.Assert) or not isinstance(test, _ast.Compare):
                continue
            if len(test.ops) != 1 or not isinstance(test.ops[0], _ast.Eq):
                continue
            left, right = "@autofix_left", "@autofix_right"
            equal = _ast.Compare(left=load(left), ops=[_ast.Eq()], comparators=[load(right)])
            made = [
                store(left, test.left),
                store(right, test.comparators[0]),
                _ast.Expr(value=_ast.Call(func=load(parameter), args=[load(left), load(right)], keywords=[])),
                _ast.Assert(test=_ast.copy_location(equal, test), msg=statement.msg),
            ]
            statements[index : index + 1] = [_ast.copy_location(node, statement) for node in made]


def load(name):
    return _ast.Name(id=name, ctx=_ast.Load())


def store(name, value):
    return _ast.Assign(targets=[_ast.Name(id=name, ctx=_ast.Store())], value=value)


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
    when there was one. Only an assertion of the function's own body, never one in a branch, a
    loop, a `try`, a `with` or a nested function, which a run may never reach: a twin whose changed
    assertion never ran passes beside its original, and an honest run reads as forged (toolz's
    test_tlz asserts cytoolz's names inside `try: import cytoolz ... except ImportError`)."""
    asserts = [
        node
        for node in function.body
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
        # A new element takes the literal's place in the file: compiling the twin needs one.
        extra = node.elts[-1] if node.elts else _ast.copy_location(_ast.Constant(value=0), node)
        return type(node)(elts=[*node.elts, extra], ctx=_ast.Load())
    return None


def tampering(config, items, original, renamed):
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
            found += implemented(name, impl, renamed)[:1]
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


def layers(item):
    """What a test item runs, layer by layer (seal.code_objects): each code's file (relative in
    the work folder, where each run's copy lies elsewhere), name, and first line in the suite's
    files and outside the work folder (code under repair may move)."""
    function = getattr(item, "obj", None) if hasattr(item, "function") else None
    found = []
    for code in code_objects(function) if function is not None else ():
        where = code.co_filename
        inside = inside_workdir(where)
        line = code.co_firstlineno if not inside or test_like(where) else 0
        found.append([os.path.relpath(real_path(where), WORKDIR) if inside else where, code.co_name, line])
    return found


def swapped(items, ran_before, layers_of, note_id):
    """A line for each test that runs something else than it ran on the repository's tree: a
    function put in its place before pytest collected it runs whoever's code it is."""
    found = []
    for item in items:
        before = ran_before.get(note_id(item.nodeid))
        now = layers_of(item)
        if before is not None and now != before:
            found.append(item.nodeid + " runs " + shown(now) + ", where the repository's tree ran " + shown(before))
    return found


def shown(layers):
    if not layers:
        return "no function"
    where, name = layers[0][0], layers[0][1]
    folder, _, base = where.rpartition(os.sep)
    if os.path.isabs(where):  # outside the work folder: the file as a module's path ends
        where = folder.rpartition(os.sep)[2] + "/" + base if base == "__init__.py" else base
    return where + "'s " + name


def implemented(name, impl, renamed):
    """A line for each layer of a hook's implementation from the work folder's code under repair
    (or code carrying a trusted file's name, audit.py): one pointing elsewhere by its attributes
    still runs."""
    found = []
    for code in code_objects(impl.function):
        where = code.co_filename
        if (inside_workdir(where) and not test_like(where)) or renamed(code):
            found.append("the hook " + name + " was implemented by " + os.path.relpath(where, WORKDIR))
    return found


def registered(plugin, manager, renamed):
    """What a plugin registered now implements from code under repair: a plugin registered for
    one report and gone before the session ends is still named."""
    found = []
    for caller in manager.get_hookcallers(plugin) or ():
        for impl in caller.get_hookimpls():
            if impl.plugin is plugin:
                found += implemented(caller.name, impl, renamed)[:1]
    return found


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


def loading_config():
    """The Config whose plugin manager imports this plugin now (`-p`, while it parses its options):
    the one session of this run, found on the stack at load."""
    config_class = getattr(sys.modules.get("_pytest.config"), "Config", None)
    frame = sys._getframe(1)
    while frame is not None and config_class is not None:
        found = frame.f_locals.get("self")
        if isinstance(found, config_class):
            return found
        frame = frame.f_back
    return None


def handing(config, plugin, vault):
    """A generator handing (plugin, vault) once, to the first configure call whose config is
    `config`; None to any other. What it holds is in its frame alone."""
    asked = yield
    while asked is not config:
        asked = yield None
    yield plugin, vault
    while True:
        yield None


def configure(config, keeper, name, modules, _getattr=getattr):
    """pytest's configure: the recorder registered with the session's plugin manager, only for
    the config that loaded this plugin. Made with globals of its own and everything it uses in
    its defaults (`alone`): it is reachable from this module's globals until it runs."""
    # A candidate is judged by the whole suite: -x or --maxfail in the command would stop the
    # run at the first failures and hide the others from the judgement and the feedback.
    maxfail = _getattr(config.option, "maxfail", 0) or 0
    config.option.maxfail = 0
    # And in this process: pytest-xdist's workers would run the tests where neither the
    # verdict's descriptor nor the canaries are (xdist decides in its own, later, configure).
    if _getattr(config.option, "dist", "no") != "no":
        config.option.dist = "no"
        config.option.numprocesses = None
    given = keeper.send(config)
    if given is None:
        return
    plugin, vault = given
    vault(("maxfail", maxfail))
    config.pluginmanager.register(plugin, name + "-recorder")
    modules.pop(name, None)  # from here on, no look through sys.modules finds this plugin


def sealed():
    """At load, before any conftest, test module or candidate code: the run's signer, canaries
    and selection taken, the machinery noted, and what configures the session; None outside a
    run of autofix's. Runs on a private copy of this module's globals and of the built-ins
    (`private`), so code that rebinds a global or a built-in later changes nothing it calls."""
    redirect_editables()  # sitecustomize did, unless the tests' Python skipped it (-S, -I)
    fd, sign, canaries = take_nonce()
    if sign is None:
        return None
    write = writer(fd, sign)
    config, original = loading_config(), identities(MACHINERY)
    hide_import_hook()  # installed before any -p plugin loads (hidden.py)
    undumpable()  # no other process reads this one's memory (memory.py)
    refusals, observed, renamed = watch_runner()  # the audit hook, from now on (audit.py)
    alone(hide_collector)(sys.modules)  # gc's stand-in, while no foreign code has run (collector.py)
    # Where this Python imports from, now: a conftest that can't import the project (an editable
    # install whose source the sandbox doesn't show) ends pytest before any session, and autofix
    # should still be able to say why. The session's line, if it comes, follows this one.
    write({"paths": import_paths()})
    bound = (test_id, message_of, plant, tampering, autoloaded, loaded_elsewhere, import_paths, loaded_as)
    bound += (refusals, observed, RUN["plugins"], set(RUN["prefer"]), set(RUN["avoid"]), len, getattr, int, list)
    bound += (renamed, id, time.time, layers, RUN["functions"])
    vault = record(write, canaries, read_only(), original, RUN["target"], bound)
    next(vault)
    vault = deferring(vault)
    name = __name__
    watch = watcher(RUN.get("dump_at"))
    held, missing = alone(content_reader)()
    compared = alone(content_watch)(vault, held, missing)  # what a watched test's == compared (contents.py)
    plugin = recorder(name + "-recorder", vault, hide_configured, hide_test_helpers, renamed, watch, compared)
    keeper = handing(config, plugin, vault)
    next(keeper)
    return alone(configure, (keeper, name, sys.modules, getattr))


def configured():
    """`sealed` on private globals (seal.private), where stand_in is made alone, since what it
    makes is reachable; nothing of that copy is left in this module's globals."""
    own = private()
    own["stand_in"] = alone(stand_in)
    return own["sealed"]()


_configure = configured()


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config, _configure=_configure):
    if _configure is not None:
        _configure(config)


# Everything alive now (the interpreter's, pytest's, these hooks') lasts the run: gc's later passes
# leave it out (gc.freeze), which took a tenth of a run's time (toolz's suite: 1.21 to 1.08 s). The
# tests' own objects come after, and gc collects them as ever.
getattr(sys.modules.get("gc"), "freeze", int)()
