"""What code under repair reaches by plain reads: no frame, no gc, no audited attribute, only
modules, classes, the import system, logging, signals, threads and what their attributes,
closures, globals, defaults, containers and weak references hold. Its source is a candidate's
(test_runner_reach.py): `reach()` names, for each runner object found, the first path to it; the
run's nonce, autofix's recorder and the real gc module count as runner objects."""

import builtins
import collections
import functools
import logging
import signal
import sys
import threading
import types
import weakref

RUNNER = {
    "Config", "PytestPluginManager", "Session", "HookRelay", "HookCaller", "TerminalReporter", "TestReport",
    "CollectReport", "CallInfo", "Function", "Module", "Package", "Class", "FixtureRequest", "SubRequest",
    "FixtureManager", "CaptureManager", "LoggingPlugin", "AssertionRewritingHook", "AssertionState",
}  # fmt: skip
# Reads the audit hook refuses to code under repair: their objects are out of a plain walk's reach.
AUDITED = (types.FrameType, types.TracebackType, types.CodeType, types.GeneratorType, types.CoroutineType)
PLAIN = (str, bytes, bytearray, int, float, complex, bool, type(None))
NONCE = "@@autofix-verdict-"


def roots():
    classes, todo, seen = [], list(type.__subclasses__(object)), set()
    while todo:
        found = todo.pop()
        if id(found) not in seen:
            seen.add(id(found))
            classes.append(found)
            todo.extend(type.__subclasses__(found))
    hooks = {name: getattr(sys, name) for name in ("stdout", "stderr", "stdin", "excepthook", "unraisablehook")}
    hooks.update(displayhook=sys.displayhook, breakpointhook=sys.breakpointhook)
    return [
        ("sys.modules", dict(sys.modules)),
        ("classes", classes),
        ("sys.meta_path", list(sys.meta_path)),
        ("sys.path_hooks", list(sys.path_hooks)),
        ("sys.path_importer_cache", dict(sys.path_importer_cache)),
        ("sys", hooks),
        ("threading", [threading.excepthook, *threading.enumerate()]),
        ("logging", [logging.root, dict(logging.Logger.manager.loggerDict)]),
        ("signals", [signal.getsignal(number) for number in signal.valid_signals() if number < signal.NSIG]),
        ("builtins", vars(builtins)),
    ]


def children(path, found):
    kind = type(found)
    if isinstance(found, (dict, types.MappingProxyType)):
        return [(f"{path}[{key!r:.60}]", value) for key, value in list(found.items())] + [
            (f"{path}.key", key) for key in list(found)
        ]
    if isinstance(found, (list, tuple, set, frozenset, collections.deque)):
        return [(f"{path}[{index}]", value) for index, value in enumerate(list(found))]
    if isinstance(found, weakref.ref):
        return [(f"{path}()", found())]
    kids = []
    if isinstance(found, type):
        kids += [(f"{path}.{found.__name__}.{key}", value) for key, value in list(vars(found).items())]
    else:
        try:
            own = object.__getattribute__(found, "__dict__")
            kids += [(f"{path}.{key}", value) for key, value in list(own.items())]
        except (AttributeError, TypeError):
            pass
        for name in getattr(kind, "__slots__", ()) or ():
            try:
                kids.append((f"{path}.{name}", object.__getattribute__(found, name)))
            except (AttributeError, TypeError):
                pass
    if isinstance(found, types.FunctionType):
        kids += [(f"{path}.__globals__", found.__globals__), (f"{path}.__defaults__", found.__defaults__)]
        kids.append((f"{path}.__kwdefaults__", found.__kwdefaults__))
        for index, cell in enumerate(found.__closure__ or ()):
            try:
                kids.append((f"{path}.__closure__[{index}]", cell.cell_contents))
            except ValueError:
                pass
    elif isinstance(found, (types.MethodType, types.BuiltinMethodType, types.MethodWrapperType)):
        kids.append((f"{path}.__self__", getattr(found, "__self__", None)))
        kids += [(f"{path}.__func__", found.__func__)] if isinstance(found, types.MethodType) else []
    elif isinstance(found, functools.partial):
        kids += [(f"{path}.func", found.func), (f"{path}.args", found.args), (f"{path}.keywords", found.keywords)]
    elif isinstance(found, (staticmethod, classmethod)):
        kids.append((f"{path}.__func__", found.__func__))
    elif isinstance(found, property):
        kids += [(f"{path}.fget", found.fget), (f"{path}.fset", found.fset)]
    return kids


def reach():
    """{runner class name: the first path found to one}, and how many objects were walked."""
    found, seen, queue, walked = {}, set(), collections.deque(roots()), 0
    while queue:
        path, item = queue.popleft()
        # A nonce is the prefix and 32 hex digits (the prefix alone is a literal of the plugin's source).
        if isinstance(item, (str, bytes)) and len(item) >= 50 and item[:18] in (NONCE, NONCE.encode()):
            found.setdefault("the nonce", path)
        if id(item) in seen or isinstance(item, PLAIN + AUDITED):
            continue
        seen.add(id(item))
        walked += 1
        kind = type(item)
        if kind.__name__ in RUNNER and kind.__module__.split(".")[0] in ("_pytest", "pytest", "pluggy"):
            found.setdefault(kind.__name__, path)
            continue
        # The real gc, not autofix's stand-in: its set_debug(DEBUG_SAVEALL) would hand over everything.
        if isinstance(item, types.ModuleType) and isinstance(vars(item).get("set_debug"), types.BuiltinFunctionType):
            found.setdefault("the collector", path)
            continue
        if isinstance(item, types.ModuleType) and str(item.__name__).endswith("-recorder"):
            found.setdefault("the recorder", path)
            continue
        try:
            queue.extend(children(path, item))
        except Exception:  # noqa: BLE001 - a container changed while read, a descriptor that raises: the rest goes on
            continue
    return found, walked
