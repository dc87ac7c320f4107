"""What autofix's test-runner hooks share (the pytest plugin, and the unittest hook): the run's
nonce and canaries, taken before any test code is imported, a snapshot of the runner's machinery,
and the one line signed with the nonce (an HMAC) that carries the verdict back to autofix.

autofix does not import this file: bot/judge/hooks.py writes it, with the run's own header
(`RUN`: the descriptor numbers, the work folder, the target), into each generated hook, so no
hook imports a module of autofix's by a name the work folder could shadow. What it imports
(hashlib, hmac, os, sys) it imports when the hook loads, before any test or candidate code;
nothing is imported later.

The nonce sits in the memfd numbered RUN["fd"]: the first hook to load reads it and empties the
file, so no later code can read it there, and what the hook writes back is signed with it (an
HMAC), never the nonce itself. A forged line needs it; a run that ends before the hook writes its
line has no verdict and fails. Written for every Python the test runners support (no
annotations, no newer syntax).
"""

import hashlib
import hmac
import os
import sys


def take_nonce():
    """The run's signer (the nonce is its key, and stays inside it) and its canaries (lines of
    tab-separated fields), or (None, None, [])."""
    fd = RUN["fd"]
    try:
        data = os.pread(fd, 1 << 16, 0).decode("ascii")
        os.ftruncate(fd, 0)
        os.set_inheritable(fd, False)  # the tests' own subprocesses don't get it
    except (OSError, UnicodeDecodeError, ValueError):
        return None, None, []
    lines = data.split("\n")
    nonce = lines[0].strip()
    if not nonce.startswith("@@autofix-verdict-"):
        return None, None, []
    return fd, signer(nonce.encode()), [line.split("\t") for line in lines[1:] if line]


def signer(key, _new=hmac.new, _digest=hashlib.sha256):
    """What signs a line: an HMAC whose key is the nonce. The channel holds signed lines, never
    the nonce, so code that reads it learns nothing it could sign with."""

    def sign(body):
        return _new(key, body, _digest).hexdigest()

    return sign


def identities(modules):
    """Every function and class of `modules`, and every attribute of their classes."""
    found = {}
    for name in modules:
        module = sys.modules.get(name)
        if module is None:
            continue
        found[("module", name)] = module
        for attribute, value in list(vars(module).items()):
            if isinstance(value, type) or callable(value):
                found[(name, attribute)] = value
            if isinstance(value, type) and value.__module__ == name:
                for member, inner in list(vars(value).items()):
                    found[(name, attribute, member)] = inner
    return found


def lookup(key):
    if key[0] == "module":
        return sys.modules.get(key[1])
    value = vars(sys.modules.get(key[0]) or object).get(key[1], None)
    if len(key) == 3:
        value = vars(value).get(key[2], None) if isinstance(value, type) else None
    return value


WORKDIR = os.path.realpath(RUN["workdir"] or os.getcwd())
REAL = {}  # path: its real path, as first looked up this run


def real_path(path):
    """os.path.realpath, once per path a run: the same few files are asked about for every hook of
    every plugin (a lookup is a stat per folder of the path). A link changed later gains nothing:
    code from a file outside the work folder is never counted as the work folder's anyway."""
    real = REAL.get(path)
    if real is None:
        real = REAL[path] = os.path.realpath(path)
    return real


def inside_workdir(path):
    real = real_path(path)
    return real == WORKDIR or real.startswith(WORKDIR + os.sep)


def test_like(path):
    """A file of the suite itself (autofix protects these): conftest.py, test_*.py, *_test.py,
    anything under a `tests` folder."""
    relative = os.path.relpath(real_path(path), WORKDIR).split(os.sep)
    name = relative[-1]
    return name == "conftest.py" or name.startswith("test_") or name.endswith("_test.py") or "tests" in relative[:-1]


def source_file(value):
    """The file that defined a function (through decorators, bound methods, partials), else None."""
    for _ in range(100):
        inner = getattr(value, "__wrapped__", None) or getattr(value, "__func__", None) or getattr(value, "func", None)
        if inner is None or inner is value:
            break
        value = inner
    code = getattr(value, "__code__", None)
    if code is not None:
        return code.co_filename
    module = sys.modules.get(getattr(value, "__module__", None) or "")
    return getattr(module, "__file__", None)


_function = type(lambda: None)


def code_objects(value):
    """Every code object that may run when `value` is called: its own, and that of each layer its
    `__wrapped__`, `__func__` or `func` names. An attribute can point anywhere, so no layer
    speaks for another: a function whose `__wrapped__` names a standard one still runs its own
    code. Code is read where it can't be faked: a function's own, else its class's `__call__`."""
    found = []
    for _ in range(100):
        if type(value) is _function:
            found.append(value.__code__)
        elif not isinstance(value, type):
            # The class's own __call__, through its MRO: a class-level __getattr__ can't make one up.
            call = next((vars(k)["__call__"] for k in type(value).__mro__ if "__call__" in vars(k)), None)
            if type(call) is _function:
                found.append(call.__code__)
        inner = getattr(value, "__wrapped__", None) or getattr(value, "__func__", None) or getattr(value, "func", None)
        if inner is None or inner is value:
            break
        value = inner
    return found


def code_files(value):
    """The files of `value`'s code objects (code_objects)."""
    return [code.co_filename for code in code_objects(value)]


def foreign(value):
    """Code from the work folder that isn't the suite's own: what a candidate would plant. (An
    installed plugin may patch the runner, as hypothesis does at start-up.) Every layer counts:
    a wrapper whose `__wrapped__` names pytest's own function still runs its own code; a class,
    by its methods."""
    files = code_files(value)
    if isinstance(value, type):
        files += [f.__code__.co_filename for k in value.__mro__ for f in vars(k).values() if type(f) is _function]
    if not files:
        where = source_file(value)
        return where is None or (inside_workdir(where) and not test_like(where))
    return any(inside_workdir(where) and not test_like(where) for where in files)


def replaced(original, runner):
    """One line for each function or class of the machinery that the work folder's code replaced."""
    found = []
    for key, value in original.items():
        now = lookup(key)
        if now is not value and (now is None or foreign(now)):
            found.append(runner + "'s " + ".".join(key[1:] if key[0] == "module" else key) + " was replaced")
    return found


MARK = "@@autofix-verdict@@"


MARK_BYTES = MARK.encode()


def writer(fd, sign, _repr=repr, _pwrite=os.pwrite, _fstat=os.fstat, _mark=MARK_BYTES):
    """What writes the verdict's line (the HMAC under the nonce, then the body) for one run,
    everything it calls bound now (the hooks' recorders keep it where no code under test can reach
    it, and no built-in rebound later reaches the line)."""

    def write(result):
        body = _repr(result).encode("utf-8", "backslashreplace")
        _pwrite(fd, b"\n" + _mark + sign(body).encode() + body + b"\n", _fstat(fd).st_size)

    return write


def private():
    """This module's functions again, on a copy of its globals and of the built-ins taken now,
    which nothing reachable leads to: code that rebinds a global or a built-in later changes
    nothing they call."""
    import builtins

    own = dict(globals())
    own["__builtins__"] = dict(vars(builtins))
    function = type(private)
    for key, value in list(own.items()):
        if type(value) is function and value.__module__ == __name__:
            made = function(value.__code__, own, value.__name__, value.__defaults__, value.__closure__)
            made.__kwdefaults__ = value.__kwdefaults__
            own[key] = made
    return own


def alone(function, defaults=None):
    """`function` with globals of its own holding nothing, not even the built-ins: it looks up no
    name it wasn't given, and nothing it makes leads to a namespace the recorder's code uses."""
    made = type(function)(
        function.__code__,
        {"__builtins__": {}},
        function.__name__,
        function.__defaults__ if defaults is None else defaults,
        function.__closure__,
    )
    made.__kwdefaults__ = function.__kwdefaults__
    return made
