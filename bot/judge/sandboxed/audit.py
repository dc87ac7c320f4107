"""The test process's audit hook (PEP 578): from the moment autofix's plugin loads, the code under
repair can't obtain the runner's live objects (its frames, its plugin manager, the reports) through
the interpreter's own introspection.

autofix writes this after seal.py into the pytest plugin's module (bot/judge/hooks.py). An audit
hook can't be removed once added, and the interpreter calls it before each of these operations:
frames handed out (`sys._getframe`, `sys._current_frames`, a traceback's, generator's or
coroutine's frame), every live object (`gc`), code that runs on every frame (`sys.settrace`,
`sys.setprofile`, another audit hook), raw memory (`ctypes`, or /proc/…/mem opened), a debugger, a fresh import of
pytest's, pluggy's or ctypes' modules, and code compiled under a trusted file's name (which would
pass for it below). When the code that caused one is foreign, the hook raises RuntimeError, so
the operation never happens, and notes it for the verdict's `tampered` list.

Foreign: any code but the standard library's, the tests' environment's (pytest, pluggy, installed
plugins), these hooks', and the suite's own files in the work folder (seal.py's `test_like`). A
code object is judged by what it is, not by the file it names: any code can be given any file's
name without an audit event (`_imp._fix_co_filename`), so a name is believed only for code that
came from that file (code_trust). The code that caused an event is the innermost frame, passing
over the frames of code whose purpose is to hand frames to its caller (inspect, traceback.walk_*,
bdb, pdb, trace, importlib, ctypes, pytest's _code). A frame is handed out only to code known to
keep what it asks for (KEEPERS: logging's findCaller, namedtuple, typing, enum, traceback's
formatting) or when no foreign code is below the asker on the stack: whatever else asks may
hand the frame back (logging's currentframe is `lambda: sys._getframe(1)`, unittest.mock returns
what its side effect returns), so the frame counts as asked for by the nearest foreign code.
The standard library's own uses (logging, typing, enum, namedtuple, warnings,
traceback's formatting) keep working when code under repair calls them. The events that expose
everything (gc, every thread's frames, tracing, audit hooks) are refused while foreign code is
on any thread's stack, so no call through a thread or an executor hides who asked.

Everything the hook calls is bound when it is made: nothing in a module's globals or the
built-ins, which code under test could rebind. Not covered: a frame a signal handler receives
(the recorder defers handlers while it runs: pytest_plugin.deferring). The runner's objects
pytest keeps where plain reads reach them are stand-ins (hidden.py).
"""

import _thread
import gc
import linecache
import marshal
import os
import sys
import time

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
        # Raised by the collector's stand-in (collector.py): what the collector kept, and asking
        # it to keep everything it collects.
        "gc.garbage",
        "gc.set_debug",
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
# Who may ask for a frame while foreign code is below it on the stack: code known to keep what it
# asks for, handing back only names and text (a module's name, a log record's caller, a printed
# stack), by file and function ("*": every function of the file but WALKERS). Any other asker, a
# standard one included, may hand the frame back: logging's currentframe is `lambda:
# sys._getframe(1)`, unittest.mock returns what its side effect returns, an executor what the
# call did. Such a frame counts as asked for by the nearest foreign code below.
KEEPERS = (
    ("logging/__init__.py", "findCaller"),
    ("collections/__init__.py", "namedtuple"),
    ("typing.py", "_caller"),
    ("typing_extensions.py", "_caller"),
    ("enum.py", "_create_"),
    ("traceback.py", "*"),
    ("warnings.py", "*"),
    ("asyncio/format_helpers.py", "*"),
    ("asyncio/coroutines.py", "_format_coroutine"),
    ("loguru/_logger.py", "_log"),
    ("typing_extensions.py", "_has_generic_or_protocol_as_origin"),
    ("attr/_make.py", "make_class"),
    # Counts the frames above its caller (an int): hypothesis calls it from each @given test's
    # wrapper, which it compiles from text and names after the test's file (code under repair to
    # the hook, as any code carrying a name it didn't come from).
    ("hypothesis/internal/conjecture/junkdrawer.py", "stack_depth_of_caller"),
    # Name the line that called them, in a message (attrs' suite calls assume in @given tests).
    ("hypothesis/control.py", "assume"),
    ("hypothesis/control.py", "reject"),
)


def memory_file(path, _realpath=os.path.realpath, _decode=os.fsdecode, _sep=os.sep, _str=str, _bytes=bytes):
    """Whether opening `path` opens a process's memory (/proc/PID/mem, /proc/self/task/TID/mem),
    however it is spelled or linked; a relative path ending in `mem` counts too, since the folder
    it is relative to (dir_fd) isn't in the event."""
    if type(path) not in (_str, _bytes):
        return False  # a descriptor already open
    name = _decode(path)
    if not name.startswith(_sep) and name.rstrip(_sep).rpartition(_sep)[2] == "mem":
        return True
    parts = _realpath(name).split(_sep)
    return len(parts) > 3 and parts[1] == "proc" and parts[-1] == "mem"


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


def code_trust(classify_name):
    """Which code objects' file names may be believed: (classify, believe, believed). Any code can
    carry any file's name (`_imp._fix_co_filename` renames a code object without an audit event,
    and a fresh `_imp` comes from its spec), so a name counts only for code that came from its
    file: every function alive when this hook is made (the environment, pytest, these hooks) and
    what it nests, then what an import executes that is the file's own, as compiling the file or
    its cached bytecode makes it, or pytest's rewriting of a test file. A file written after the
    run began speaks for no code. Everything else is foreign, whatever its name."""
    foreign, sep = FOREIGN, os.sep
    code_type, function_type = type(code_trust.__code__), type(code_trust)
    read_file, stat, exists, loads, make = open, os.stat, os.path.lexists, marshal.loads, compile
    tag, prefix, started = sys.implementation.cache_tag, sys.pycache_prefix, time.time_ns()
    codes, hooks = {}, code_trust.__code__.co_filename  # id -> code object, kept alive: no id is reused
    rewrite = sys.modules.get("_pytest.assertion.rewrite")
    rewriter = getattr(getattr(rewrite, "AssertionRewritingHook", None), "exec_module", None)
    rewriter, pyc_tail = getattr(rewriter, "__code__", None), getattr(rewrite, "PYC_TAIL", None)

    def add(code):
        stack = [code]
        while stack:
            found = stack.pop()
            if codes.get(id(found)) is not found:
                codes[id(found)] = found
                stack.extend(const for const in found.co_consts if type(const) is code_type)

    def older(path):
        try:
            return stat(path).st_mtime_ns < started
        except (OSError, ValueError):
            return False

    def content(path):
        try:
            with read_file(path, "rb") as source:
                return source.read()
        except (OSError, ValueError):
            return None

    def cached(path, tail):
        folder, name = path.rpartition(sep)[::2]
        name = name.rpartition(".")[0] + tail
        if prefix:
            return prefix + sep + folder.lstrip(sep) + sep + name
        return folder + sep + "__pycache__" + sep + name

    def own(code, name):
        pyc = cached(name, "." + tag + ".pyc") if tag else None
        data = content(pyc) if pyc else None
        if data is not None and older(pyc) and len(data) > 16:
            try:
                if loads(data[16:]) == code:
                    return True
            except (EOFError, ValueError, TypeError):
                pass
        source = content(name)
        try:
            return source is not None and make(source, name, "exec", dont_inherit=True) == code
        except (SyntaxError, ValueError):
            return False

    def believe(code, frame):
        name = code.co_filename
        if type(name) is not str or not name.startswith(sep) or not older(name):
            return
        if frame is not None and frame.f_code.co_filename == hooks and believed(frame.f_code):
            add(code)  # a canary, or a twin of a test from its file (pytest_plugin.plant)
        elif frame is not None and frame.f_code is rewriter and rewriter is not None:
            # pytest's own rewriting, of the file itself or of the cache it wrote beside it
            pyc = cached(name, pyc_tail)
            if sys.pycache_prefix == prefix and (older(pyc) or not exists(pyc)):
                add(code)
        elif own(code, name):
            add(code)

    def believed(code):
        return codes.get(id(code)) is code

    def classify(code):
        return classify_name(code.co_filename) if codes.get(id(code)) is code else foreign

    for found in gc.get_objects():
        if type(found) is function_type:
            add(found.__code__)
    for frame in sys._current_frames().values():
        while frame is not None:
            add(frame.f_code)
            frame = frame.f_back
    return classify, believe, believed


def keeper_test(believed):
    """Whether a code object is a keeper's (KEEPERS): by its file's name, believed (code_trust)."""
    sep, walkers, by_name, whole = os.sep, WALKERS, {}, []
    for suffix, name in KEEPERS:
        (whole.append(sep + suffix) if name == "*" else by_name.setdefault(name, []).append(sep + suffix))
    by_name = {name: tuple(suffixes) for name, suffixes in by_name.items()}
    whole, hooks = tuple(whole), keeper_test.__code__.co_filename  # these hooks keep what they ask

    def keeps(code):
        name, filename = code.co_name, code.co_filename
        if not believed(code):
            return False
        if filename == hooks or filename.endswith(by_name.get(name, ())):
            return True
        return name not in walkers and filename.endswith(whole)

    return keeps


def watch_runner():
    """Add the audit hook; what it refused (one line each) and the places it noted (observing the
    baseline) come back from the first two functions returned; the third tells code that only
    carries a trusted file's name."""
    classify_name, where = classifier()
    everywhere, by_caller, naming = EVERYWHERE, BY_CALLER, NAMING
    attributes, packages = FRAME_ATTRIBUTES, RUNNER_PACKAGES
    handing, code_type = frozenset(("sys._getframe", "object.__getattr__")), type(watch_runner.__code__)
    os_sep = os.sep
    foreign, passed_over, traceback, walkers, most = FOREIGN, PASSED_OVER, TRACEBACK, WALKERS, MOST_FINDINGS
    get_ident, getframe, current_frames, memory = _thread.get_ident, sys._getframe, sys._current_frames, memory_file
    refuse, text, type_of, len_of, add, line_at = RuntimeError, str, type, len, sys.addaudithook, linecache.getline
    found = []
    # What the repository's own code does is its own: the baseline's run, on the tree as the
    # repository has it, notes each place (file, line's text, what) and refuses nothing; later
    # runs let those places be (attrs' own code calls sys._getframe) and refuse any other.
    allowed = RUN["sites"]
    seen = []
    busy = set()  # the threads inside the hook: what it does itself raises events too
    classify, believe, believed = code_trust(classify_name)  # by what code is, not what it's called
    keeps = keeper_test(believed)

    def caller(frame):
        """The frame of the code that caused an event, when that code is foreign."""
        while frame is not None:
            code = frame.f_code
            kind = classify(code)
            if kind == passed_over or (kind == traceback and code.co_name in walkers):
                frame = frame.f_back
                continue
            return frame if kind == foreign else None
        return None

    def through(frame):
        """The trusted function that asked on foreign code's behalf (its file's name and its own),
        or "" when foreign code asked itself (through passed-over code, as inspect's)."""
        while frame is not None and classify(frame.f_code) == passed_over:
            frame = frame.f_back
        if frame is None or classify(frame.f_code) == foreign:
            return ""
        folder, _, name = frame.f_code.co_filename.rpartition(os_sep)
        name = folder.rpartition(os_sep)[2] + "/" + name if name == "__init__.py" else name
        return " through " + name + "'s " + frame.f_code.co_name

    def asker(frame):
        """The foreign code a frame asked for may reach: walking out from where it was asked, the
        first foreign frame, unless a keeper comes first (KEEPERS); passed-over code is no keeper."""
        while frame is not None:
            code = frame.f_code
            kind = classify(code)
            if kind == foreign:
                return frame
            if kind != passed_over and keeps(code):
                return None
            frame = frame.f_back
        return None

    def anywhere(frames):
        for frame in frames:
            while frame is not None:
                if classify(frame.f_code) == foreign:
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
        genuine = believed(frame.f_code)  # code another file's name was given speaks for no site
        if site in allowed and genuine:
            return
        line = "code under repair at " + where(filename) + ":" + text(frame.f_lineno)
        if not genuine and classify_name(filename) != foreign:
            line += " (code that only carries that file's name)"
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
        elif event == "exec":
            believe(args[0], innermost())
        elif event == "open":
            frame = caller(innermost())
            if frame is not None and memory(args[0]):
                note(frame, "the process's memory (" + text(args[0]) + ")")
        elif event in naming:
            frame = innermost()  # who compiled, not who imported: importlib compiles for everyone
            filename = args[1] if type_of(args[1]) is text else ""
            if frame is not None and classify(frame.f_code) == foreign and classify_name(filename) != foreign:
                note(frame, "code named as " + filename)
        else:
            first = innermost()
            frame = asker(first) if event in handing else caller(first)
            if frame is not None:
                what = event
                if event == "object.__getattr__":
                    what = "a frame (." + args[1] + ")"
                if event in handing:
                    what += through(first)
                elif event == "object.__setattr__":
                    what = "a change of " + text(args[1])
                elif event == "import":
                    what = "an import of " + args[0]
                note(frame, what)

    def hook(event, args):
        # The fast path first: the hook sees every open, import and compile of the process.
        if event not in by_caller and event not in everywhere and event not in naming:
            if event == "exec":
                if type_of(args[0]) is not code_type or believed(args[0]):
                    return
            elif event != "open" and not event.startswith("ctypes."):
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

    def renamed(code):
        """Code that carries a trusted file's name and isn't that file's: what else would pass for it."""
        return not believed(code) and classify_name(code.co_filename) != foreign

    return refusals, observed, renamed
