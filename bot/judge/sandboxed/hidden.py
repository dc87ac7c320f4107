"""The runner's objects pytest leaves where any code can read them, kept out of reach.

pytest keeps live objects in places plain attribute reads reach from anywhere: its import hook in
sys.meta_path (holding the config and the session), a class attribute of its debugger and a
module global of its marks (the config and the plugin manager), the assertion helpers' globals
(the config, and a closure over the hook relay and the test item). From any of them, code under
repair gets the plugin manager, and with it every report, without one audited operation.

autofix writes this after audit.py into the pytest plugin's module (bot/judge/hooks.py). From the
plugin's load on, each of those places holds a stand-in: it does what the runner asks of the
object, and holds the object itself only in a generator's frame, which no attribute read reaches
(a generator's frame is an audited read that the audit hook refuses to code under repair). The
generator hands the object only to the stand-in's own functions, checked by their code objects,
which code under repair can't obtain either (reading a function's code is audited too).
"""

import _thread
import sys


def stand_in(
    target, base, names, after=None, _type=type, _getattr=getattr, _new=object.__new__, _getframe=sys._getframe,
    _lock=_thread.allocate_lock,
):  # fmt: skip
    """An instance of a subclass of `base` (isinstance checks hold) with no state of its own,
    whose methods `names` run `target`'s, as they were when this was made. `after(stand_in,
    target, result)` rewrites what a method returns before anyone sees it.

    The target, its methods and `after` are in the frame of the generator `source` alone, which
    hands them only to a frame of `run` (checked by its code object). A call runs in a fresh `run`
    generator's frame. What the stand-in's functions use is in their defaults (replacing those is
    audited); this function runs with globals of its own holding nothing (pytest_plugin.alone),
    so nothing it makes leads to a namespace autofix's code looks names up in."""
    functions = {}
    for name in names:
        functions[name] = _getattr(_type(target), name)

    def source():
        allowed = yield
        while True:
            yield (target, functions, after) if _getframe(1).f_code is allowed else None

    held, lock = source(), _lock()
    held.send(None)

    def run(name, proxy, args, kwargs, held=held, lock=lock):
        __tracebackhide__ = True  # a failure's traceback shows the caller and the target, not this
        with lock:  # two threads resuming one generator at once would fail
            found, methods, then = held.send(None)
        result = methods[name](found, *args, **kwargs)
        yield result if then is None else then(proxy, found, result)

    held.send(run.__code__)

    def method(name, run=run):
        def call(self, *args, _run=run, _name=name, **kwargs):
            __tracebackhide__ = True
            for result in _run(_name, self, args, kwargs):
                return result

        call.__name__ = name
        return call

    return _new(_type(base.__name__, (base,), {name: method(name) for name in names}))


def own_loader(proxy, hook, spec):
    """The rewriting hook's spec, loaded through the stand-in: a module's __loader__ and
    __spec__.loader are read by anyone."""
    try:  # attribute reads alone: no built-in function (code under test may rebind those) sees the hook
        if spec.loader is hook:
            spec.loader = proxy
    except AttributeError:
        pass
    return spec


REWRITE_METHODS = ("find_spec", "create_module", "exec_module", "get_data", "get_resource_reader", "mark_rewrite")


def hide_import_hook():
    """The assertion-rewriting import hook in sys.meta_path (installed before any `-p` plugin
    loads) replaced by its stand-in, and so is it as the loader of every module it loaded so far
    (plugins pytest rewrites, this one among them). pytest's own references to it go through the
    config."""
    rewrite = sys.modules.get("_pytest.assertion.rewrite")
    if rewrite is None:
        return
    for index, finder in enumerate(sys.meta_path):
        if type(finder) is rewrite.AssertionRewritingHook:
            proxy = sys.meta_path[index] = stand_in(finder, rewrite.AssertionRewritingHook, REWRITE_METHODS, own_loader)
            for module in list(sys.modules.values()):
                if getattr(module, "__loader__", None) is finder:
                    module.__loader__ = proxy
                own_loader(proxy, finder, getattr(module, "__spec__", None))


def hide_configured():
    """After configure: the debugger's class attributes (the config, the plugin manager: only
    --pdb, which no judged run has, needs them) emptied; the marks' config a stand-in."""
    debugging = sys.modules.get("_pytest.debugging")
    if debugging is not None:
        debugging.pytestPDB._config = debugging.pytestPDB._pluginmanager = None
    structures = sys.modules.get("_pytest.mark.structures")
    config = getattr(getattr(structures, "MARK_GEN", None), "_config", None)
    if config is not None:
        structures.MARK_GEN._config = stand_in(config, object, ("getini", "_iter_registered_markers"))


def hide_test_helpers():
    """During a test: the assertion helpers' globals (pytest sets them for each test, and puts
    them back after) hold stand-ins, and no config."""
    util = sys.modules.get("_pytest.assertion.util")
    if util is None:
        return
    util._config = None
    if util._reprcompare is not None:
        util._reprcompare = stand_in(util._reprcompare, object, ("__call__",))
    if util._assertion_pass is not None:
        util._assertion_pass = stand_in(util._assertion_pass, object, ("__call__",))
