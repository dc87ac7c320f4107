"""The garbage collector's module as code under repair gets it: a stand-in that keeps nothing for
anyone to read.

The real `gc` hands out every object it collects, with no audit event: `gc.set_debug(
gc.DEBUG_SAVEALL)` and then `gc.collect()` put whatever was unreachable into the plain list
`gc.garbage` instead of freeing it, and pytest leaves its test nodes in reference cycles, so the
list holds nodes whose `.config` and `.session` are the live ones (the plugin manager, the
terminal reporter, the reports). The audited ways to every object (`gc.get_objects`,
`get_referrers`, `get_referents`) are refused to code under repair by the audit hook; this closes
the one that isn't.

autofix writes this after audit.py into each hook. At load, before any test or candidate code,
`sys.modules["gc"]` and every module's global naming gc or one of its functions become a stand-in
whose `set_debug` with DEBUG_SAVEALL and whose `garbage` raise audit events the audit hook
refuses while code under repair is on any thread's stack (audit.EVERYWHERE), as it refuses
`gc.get_objects`. A fresh copy of the real module, the only other way to it (`_imp.create_builtin`
makes one from gc's spec, with no audit event either, and so does re-importing it), is the stand-in
too: `_imp.create_builtin` is replaced by one that hands out the stand-in for gc and the same `_imp`
for `_imp`. The real functions are held in a generator's frame, as hidden.stand_in holds its
target (a generator's frame is an audited read).
"""

import _thread
import sys

BUILT_IN_FUNCTION, MODULE, NAMESPACE = type(len), type(sys), type(sys.implementation)


def hide_collector(
    modules, _type=type, _vars=vars, _len=len, _list=list, _getframe=sys._getframe, _lock=_thread.allocate_lock,
    _audit=sys.audit, _or=int.__or__, _int=int, _str=str, _dict=dict, _builtin=BUILT_IN_FUNCTION, _module=MODULE,
    _spec=NAMESPACE, _error=TypeError, _missing=AttributeError,
):  # fmt: skip
    """Put the stand-in in place of gc wherever a module's globals or sys.modules name it or its
    functions, and in `_imp.create_builtin`. Made `alone` (seal.py): it looks up no global, and
    nothing it makes leads to a namespace autofix's code uses."""
    real, imp = modules.get("gc"), modules.get("_imp")
    if real is None or imp is None or _type(_vars(imp).get("create_builtin")) is not _builtin:
        return
    functions = {name: value for name, value in _vars(real).items() if _type(value) is _builtin}
    create, garbage, saveall, referrers = imp.create_builtin, real.garbage, real.DEBUG_SAVEALL, real.get_referrers
    made = _module("gc", real.__doc__)

    def source():
        allowed = yield
        while True:
            yield (functions, create, garbage) if _getframe(1).f_code is allowed else None

    held, lock = source(), _lock()
    held.send(None)

    def run(name, args, kwargs, held=held, lock=lock, made=made, imp=imp):
        __tracebackhide__ = True  # a failure's traceback shows the caller and gc, not this
        if name == "set_debug":
            # An exact int, read once: a value's own `&` or `__index__` could say one thing here
            # and another to gc.
            flags = _or(0, args[0]) if _len(args) == 1 and not kwargs else None
            if _type(flags) is not _int:
                raise _error("set_debug() takes one integer argument")
            if flags & saveall:
                _audit("gc.set_debug", flags)
            args = (flags,)
        elif name == "garbage":
            _audit("gc.garbage")
        elif name == "create_builtin":
            wanted = args[0].name  # read once: a spec's name could change between reads
            if _type(wanted) is not _str:
                raise _error("a module spec's name must be a str")
            if wanted in ("gc", "_imp"):
                yield made if wanted == "gc" else imp
                return
            args = (_spec(name=wanted),)
        with lock:  # two threads resuming one generator at once would fail
            functions, create, garbage = held.send(None)
        if name == "garbage":
            yield garbage
        elif name == "create_builtin":
            yield create(*args)
        else:
            yield functions[name](*args, **kwargs)

    held.send(run.__code__)

    def wrap(name):
        def call(*args, _run=run, _name=name, **kwargs):
            __tracebackhide__ = True
            for result in _run(_name, args, kwargs):
                return result

        call.__name__ = call.__qualname__ = name
        return call

    def __getattr__(name, _run=run):
        if name == "garbage":
            for result in _run(name, (), None):
                return result
        raise _missing("module 'gc' has no attribute " + _str(name))

    own = _vars(made)
    for name, value in _list(_vars(real).items()):
        if name not in ("garbage", "__name__", "__doc__"):
            own[name] = wrap(name) if name in functions else value
    own["__getattr__"] = __getattr__
    for found in referrers(real, *functions.values()):
        if _type(found) is not _dict or found is _vars(real) or found is functions:
            continue
        for key, value in _list(found.items()):
            for name, function in functions.items():
                if value is function:
                    found[key] = own[name]
            if value is real:
                found[key] = made
    imp.create_builtin = wrap("create_builtin")
    modules["gc"] = made
