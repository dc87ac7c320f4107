"""The test process's audit hook (PEP 578): from the moment autofix's plugin loads, the code under
repair can't obtain the runner's live objects (its frames, its plugin manager, the reports) through
the interpreter's own introspection.

autofix writes this after seal.py into the pytest plugin's module (bot/judge/hooks.py). An audit
hook can't be removed once added, and the interpreter calls it before each of these operations:
frames handed out (`sys._getframe`, `sys._current_frames`, a traceback's, generator's or
coroutine's frame), every live object (`gc`), code that runs on every frame (`sys.settrace`,
`sys.setprofile`, another audit hook), raw memory (`ctypes`), a debugger, a fresh import of
pytest's, pluggy's or ctypes' modules, and code compiled under a trusted file's name (which would
pass for it below). When the code that caused one is foreign, the hook raises RuntimeError, so
the operation never happens, and notes it for the verdict's `tampered` list.

Foreign: any code but the standard library's, the tests' environment's (pytest, pluggy, installed
plugins), these hooks', and the suite's own files in the work folder (seal.py's `test_like`). The
code that caused an event is the innermost frame, passing over the frames of code whose purpose
is to hand frames to its caller (inspect, traceback.walk_*, bdb, pdb, trace, importlib, ctypes,
pytest's _code): the standard library's own uses (logging, typing, namedtuple, traceback's
formatting) keep working when code under repair calls them. The events that expose everything
(gc, every thread's frames, tracing, audit hooks) are refused while foreign code is on any
thread's stack, so no call through a thread or an executor hides who asked.

Everything the hook calls is bound when it is made: nothing in a module's globals or the
built-ins, which code under test could rebind. Not covered: a frame a signal handler receives,
frames handed back through a generic call (pure-Python pickle, an executor's result). The
runner's objects pytest keeps where plain reads reach them are stand-ins (hidden.py).
"""

import _thread
import linecache
import os
import sys

# Events refused while foreign code is anywhere on any thread's stack: what they hand out
# reaches every object, or every frame, of the process.
EVERYWHERE = frozenset(
    (
        "gc.get_objects",
        "gc.get_referrers",
        "gc.get_referents",
        "sys._current_frames",
        "sys.settrace",
        "sys.setprofile",
        "sys.addaudithook",
        "sys.monitoring.register_callback",
    )
)
# Events refused when the code that caused them is foreign.
# object.__setattr__: a function's code, defaults or keyword defaults replaced, where the plugin
# keeps what it must not lose (pytest_plugin.alone, hidden.stand_in).
BY_CALLER = frozenset(("sys._getframe", "object.__getattr__", "object.__setattr__", "builtins.breakpoint", "import"))
# Events refused when foreign code itself names its code after a trusted file.
NAMING = frozenset(("compile", "code.__new__"))
FRAME_ATTRIBUTES = frozenset(("tb_frame", "gi_frame", "cr_frame", "ag_frame"))
RUNNER_PACKAGES = frozenset(("_pytest", "pytest", "pluggy", "ctypes", "_ctypes"))
# Standard library files whose functions hand frames to their caller; traceback.py only in these.
ON_BEHALF = ("inspect.py", "bdb.py", "pdb.py", "trace.py", "asyncio/base_tasks.py", "importlib/", "ctypes/")
WALKERS = frozenset(("walk_stack", "walk_tb"))
MOST_FINDINGS = 20
TRUSTED, FOREIGN, PASSED_OVER, TRACEBACK = 0, 1, 2, 3


def trusted_roots(workdirs):
    """Folders whose code is trusted, as named at load: the environment's prefixes, and what is
    on sys.path now outside the work folder (the standard library, site-packages, these hooks)."""
    roots = set()
    prefixes = {sys.prefix, sys.exec_prefix}
    for path in [sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix] + sys.path:
        if isinstance(path, str) and os.path.isabs(path):
            for form in (os.path.abspath(path), os.path.realpath(path)):
                inside = any(form == w or form.startswith(w + os.sep) for w in workdirs)
                if form != os.sep and (not inside or path in prefixes):  # a .venv kept in the work folder
                    roots.add(form)
    return roots


def classifier():
    """The kind of a code object's file (TRUSTED, FOREIGN, PASSED_OVER, TRACEBACK), from string
    operations alone on roots fixed now, remembered per file name."""
    sep, trusted, foreign, passed_over, traceback = os.sep, TRUSTED, FOREIGN, PASSED_OVER, TRACEBACK
    workdirs = tuple(sorted({WORKDIR, os.path.abspath(RUN["workdir"] or os.getcwd())}))
    roots = trusted_roots(workdirs)
    # The environment kept in the work folder, and every other trusted root.
    inner = tuple(r + sep for r in roots if any(r.startswith(w + sep) for w in workdirs))
    outer = tuple(r + sep for r in roots if r + sep not in inner)
    libraries = {os.path.dirname(os.path.abspath(os.__file__)), os.path.dirname(os.path.realpath(os.__file__))}
    on_behalf = [lib + sep + name for lib in libraries for name in ON_BEHALF]
    pytest_package = getattr(sys.modules.get("_pytest"), "__file__", None)
    if pytest_package:
        for form in (os.path.abspath(pytest_package), os.path.realpath(pytest_package)):
            on_behalf.append(os.path.join(os.path.dirname(form), "_code") + sep)
    on_behalf = tuple(on_behalf)
    tracebacks = frozenset(lib + sep + "traceback.py" for lib in libraries)
    in_workdir = tuple(w + sep for w in workdirs)
    kinds = {}
    len_of = len

    def kind(filename):
        if filename.startswith("<frozen "):
            return passed_over if filename.startswith("<frozen importlib.") else trusted
        if not filename.startswith(sep):
            return foreign  # '<string>', a relative path: code made or found at run time
        if filename.startswith(in_workdir):
            if filename.startswith(inner):
                return trusted  # the tests' environment, kept in the work folder
            for workdir in in_workdir:
                if filename.startswith(workdir):
                    parts = filename[len_of(workdir) :].split(sep)
                    name = parts[-1]
                    test = name == "conftest.py" or name.startswith("test_") or name.endswith("_test.py")
                    return trusted if test or "tests" in parts[:-1] else foreign
        if filename.startswith(on_behalf):
            return passed_over
        if filename in tracebacks:
            return traceback
        return trusted if filename.startswith(outer) else foreign

    def classify(filename):
        found = kinds.get(filename)
        if found is None:
            found = kinds[filename] = kind(filename)
        return found

    def where(filename):
        for workdir in in_workdir:
            if filename.startswith(workdir):
                return filename[len_of(workdir) :]
        return filename

    return classify, where


def watch_runner():
    """Add the audit hook; what it refused (one line each) and the places it noted (observing the
    baseline) come back from the two functions returned."""
    classify, where = classifier()
    everywhere, by_caller, naming = EVERYWHERE, BY_CALLER, NAMING
    attributes, packages = FRAME_ATTRIBUTES, RUNNER_PACKAGES
    foreign, passed_over, traceback, walkers, most = FOREIGN, PASSED_OVER, TRACEBACK, WALKERS, MOST_FINDINGS
    get_ident, getframe, current_frames = _thread.get_ident, sys._getframe, sys._current_frames
    refuse, text, type_of, len_of, add, line_at = RuntimeError, str, type, len, sys.addaudithook, linecache.getline
    found = []
    # What the repository's own code does is its own: the baseline's run, on the tree as the
    # repository has it, notes each place (file, line's text, what) and refuses nothing; later
    # runs let those places be (attrs' own code calls sys._getframe) and refuse any other.
    allowed = RUN["sites"]
    seen = []
    busy = set()  # the threads inside the hook: what it does itself raises events too

    def caller(frame):
        """The frame of the code that caused an event, when that code is foreign."""
        while frame is not None:
            code = frame.f_code
            kind = classify(code.co_filename)
            if kind == passed_over or (kind == traceback and code.co_name in walkers):
                frame = frame.f_back
                continue
            return frame if kind == foreign else None
        return None

    def anywhere(frames):
        for frame in frames:
            while frame is not None:
                if classify(frame.f_code.co_filename) == foreign:
                    return frame
                frame = frame.f_back
        return None

    def note(frame, what):
        filename = frame.f_code.co_filename
        site = [where(filename), line_at(filename, frame.f_lineno).strip(), what]
        if allowed is None:
            if site not in seen and len_of(seen) < 500:
                seen.append(site)
            return
        if site in allowed:
            return
        line = "code under repair at " + where(frame.f_code.co_filename) + ":" + text(frame.f_lineno)
        line += " asked for " + what
        if line not in found and len_of(found) < most:
            found.append(line)
        raise refuse("autofix: " + line + "; code under test may not reach the test runner")

    def innermost():
        """The frame that raised the event (under this one and the hook's), if it was Python code."""
        try:
            return getframe(3)
        except ValueError:
            return None

    def judge(event, args):
        if event in everywhere:
            frame = anywhere(current_frames().values())
            if frame is not None:
                note(frame, event)
        elif event in naming:
            frame = innermost()  # who compiled, not who imported: importlib compiles for everyone
            filename = args[1] if type_of(args[1]) is text else ""
            if frame is not None and classify(frame.f_code.co_filename) == foreign and classify(filename) != foreign:
                note(frame, "code named as " + filename)
        else:
            frame = caller(innermost())
            if frame is not None:
                what = event
                if event == "object.__getattr__":
                    what = "a frame (." + args[1] + ")"
                elif event == "object.__setattr__":
                    what = "a change of " + text(args[1])
                elif event == "import":
                    what = "an import of " + args[0]
                note(frame, what)

    def hook(event, args):
        # The fast path first: the hook sees every open, import and compile of the process.
        if event not in by_caller and event not in everywhere and event not in naming:
            if not event.startswith("ctypes."):
                return
        elif event == "object.__getattr__":
            if args[1] not in attributes:
                return
        elif event == "import" and (type_of(args[0]) is not text or args[0].partition(".")[0] not in packages):
            return
        ident = get_ident()
        if ident in busy:
            return
        busy.add(ident)
        try:
            judge(event, args)
        finally:
            busy.discard(ident)

    add(hook)

    def refusals():
        return found[:]

    def observed():
        return seen[:]

    return refusals, observed
