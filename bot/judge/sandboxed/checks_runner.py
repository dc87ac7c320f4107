"""Runs inline checks inside the sandbox, in two processes: a checker that never imports the
candidate, and a server that imports it and answers the checker's requests over pipes.

`python -S -c BOOT check CODE FD`: the checker. BOOT (bot/judge/validate.py) runs this file's
compiled code, which it reads from the descriptor CODE: compiling the source would cost each of
the two processes 6 ms. FD holds the checker's payload (from autofix, read before anything else
runs, then closed): the nonce, the target and its kind, the statements, autofix's sys.path, BOOT
and the compiled code, for the server, the work folder, and the target's text to import (or
None). A JSON or YAML target is not imported but parsed: the checks see the document as `data`.
It makes itself non-dumpable, so that a process of the same uid can neither read its memory
(the nonce) nor reach its file descriptors through /proc, then starts the server
(`serve`) and runs every check statement in its own namespace, where the target's names are
proxies: calling one sends the plain arguments to the server and brings back a plain value, or a
handle when the value isn't plain (an instance, an iterator), whose attributes and operators are
requests too. So the candidate never sees the expected values, never runs in the process that
writes the verdict, and can't replace the functions that judge it. A statement whose values
can't cross the pipe (an argument the checks define, such as a lambda) runs in the server, as
before this split, and its record says `inprocess`: its verdict is as trustworthy as the
candidate. The result goes to stdout as the nonce plus a Python literal that autofix reads with
ast.literal_eval; the assertions' operands stay plain values compared by autofix.

A failure carries what the model needs to repair it, as text that decides nothing: a traceback
with the checks' frames and the work folder's only (never this runner's, the boot code's or the
standard library's), the server's frames following the checks' call into the candidate; and the
reprs of the values a failing assertion captured (bot/judge/assertions.py), bounded. autofix
shows them and judges by the operands alone.

Stdlib only, self-contained and light (no json, no ast: both cost start-up time), because it
starts twice for every candidate. The wire format between the two processes is a small
length-prefixed encoding read without recursion, so nothing the server sends can do more than
fail one statement.
"""

import builtins
import marshal
import os
import select
import sys

# Taken before the candidate is imported, so it can't swap them out from under us.
_type, _str, _repr, _write, _read = type, str, repr, os.write, os.read
SEQUENCES: dict[type, str] = {list: "list", tuple: "tuple", set: "set", frozenset: "frozenset"}
PR_SET_DUMPABLE = 4
ITEMS = 100_000  # what one list on the wire may hold; more fails that statement
MESSAGE_BYTES = 64 * 2**20
VALUE_CHARS = 600  # of one captured value's repr sent back (autofix cuts it again to 240)
TRACEBACK_CHARS = 3_000
CHECKS = "<checks>"  # the checks' file name in their code objects
# Operators a handle forwards to the candidate's object (its own semantics, asked for by the checks).
FORWARDED = (
    "__len__",
    "__iter__",
    "__next__",
    "__getitem__",
    "__contains__",
    "__bool__",
    "__str__",
    "__eq__",
    "__ne__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__hash__",
    "__enter__",
    "__exit__",
    "__add__",
    "__radd__",
    "__sub__",
    "__rsub__",
    "__mul__",
    "__rmul__",
    "__truediv__",
    "__floordiv__",
    "__mod__",
    "__neg__",
    "__abs__",
    "__index__",
    "__int__",
    "__float__",
)


# Whether a top-level assertion held, only to decide whether its captured values are worth sending:
# the verdict is autofix's, which compares the operands itself (bot/judge/checks.py).
HOLDS = {
    "Eq": lambda a, b: a == b,
    "NotEq": lambda a, b: a != b,
    "Lt": lambda a, b: a < b,
    "LtE": lambda a, b: a <= b,
    "Gt": lambda a, b: a > b,
    "GtE": lambda a, b: a >= b,
    "In": lambda a, b: a in b,
    "NotIn": lambda a, b: a not in b,
}


class Shown:
    """What a failure may show: the work folder (frames elsewhere, this runner's, the standard
    library's, are left out), the checks' lines as the task wrote them, and the values each
    assertion captures (bot/judge/assertions.py), by the lines it spans."""

    root = ""
    lines: dict[int, str] = {}
    asserts: dict[int, list] = {}  # line -> [its first line, the names it captures, paired]

    @classmethod
    def learn(cls, statements):
        for statement in statements:
            if "shown" in statement:  # not the planted check: its line is one of the task's
                for number, text in enumerate(_str(statement["shown"]).split("\n")):
                    cls.lines[statement["line"] + number] = text
            for first, last, names, paired in statement.get("asserts", ()):
                for number in range(first, last + 1):
                    cls.asserts[number] = [first, names, paired]


class NotPlain(Exception):
    pass


class CannotCross(BaseException):
    """A value the checks hold can't be sent to the server: the statement runs there instead.
    (Not an Exception, so a check's own `except Exception` doesn't swallow it.)"""


class ServerGone(Exception):
    pass


def encode(value, handle=None):
    """A plain value as nested lists of strings; `handle` names the objects that may travel by
    reference (checker to server only)."""
    kind = _type(value)
    if value is None:
        return ["none"]
    if kind is bool:
        return ["bool", value]
    if kind is int:
        return ["int", int.__repr__(value)]
    if kind is float:
        return ["float", float.__repr__(value)]
    if kind is str:
        return ["str", str.__str__(value)]
    if kind is bytes:
        return ["bytes", bytes.hex(value)]
    if kind in SEQUENCES:
        return [SEQUENCES[kind], [encode(item, handle) for item in value]]
    if kind is dict:
        return ["dict", [[encode(k, handle), encode(v, handle)] for k, v in dict.items(value)]]
    if handle is not None:
        return handle(value)
    raise NotPlain(value._autofix_type if kind is Handle else kind.__qualname__)


def decode(value, handles=None):
    kind, *rest = value
    if kind == "none":
        return None
    if kind in ("bool", "str"):
        return rest[0]
    if kind == "int":
        return int(rest[0])
    if kind == "float":
        return float(rest[0])
    if kind == "bytes":
        return bytes.fromhex(rest[0])
    if kind in ("list", "tuple", "set", "frozenset"):
        return {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}[kind](
            decode(item, handles) for item in rest[0]
        )
    if kind == "dict":
        return {decode(k, handles): decode(v, handles) for k, v in rest[0]}
    if kind == "handle" and handles is not None:
        return handles[rest[0]]
    raise ValueError("unknown kind")


# -- the wire: None, bools, ints, strings and lists, length-prefixed


def pack(value):
    parts, stack = [], [value]
    while stack:
        item = stack.pop()
        kind = _type(item)
        if item is None:
            parts.append("N")
        elif kind is bool:
            parts.append("T" if item else "F")
        elif kind is int:
            parts.append(f"i{item};")
        elif kind is str:
            parts.append(f"s{len(item)}:")
            parts.append(item)
        elif kind is list:
            parts.append(f"l{len(item)}:")
            stack.extend(reversed(item))
        else:
            raise TypeError("cannot pack " + kind.__name__)
    return "".join(parts)


def unpack(text):
    """The inverse of pack, iterative: a hostile sender can make it fail, nothing more."""
    root: list[object] = []
    stack: list[list] = [[root, 1]]  # [the list being filled, how many items it still takes]
    pos = 0
    while stack:
        frame = stack[-1]
        if frame[1] == 0:
            stack.pop()
            continue
        frame[1] -= 1
        tag = text[pos]
        pos += 1
        if tag == "N":
            frame[0].append(None)
        elif tag == "T" or tag == "F":
            frame[0].append(tag == "T")
        elif tag == "i":
            end = text.index(";", pos)
            frame[0].append(int(text[pos:end]))
            pos = end + 1
        elif tag == "s" or tag == "l":
            end = text.index(":", pos)
            count = int(text[pos:end])
            pos = end + 1
            if tag == "s":
                if count < 0 or pos + count > len(text):
                    raise ValueError("short string")
                frame[0].append(text[pos : pos + count])
                pos += count
            else:
                if not 0 <= count <= ITEMS:
                    raise ValueError("list too long")
                items: list[object] = []
                frame[0].append(items)
                stack.append([items, count])
        else:
            raise ValueError("bad tag")
    if pos != len(text):
        raise ValueError("trailing data")
    return root[0]


class Channel:
    def __init__(self, read_fd, write_fd):
        self.reader = os.fdopen(read_fd, "rb")
        self.write_fd = write_fd

    def send(self, message):
        data = pack(message).encode("utf-8", "surrogatepass")
        view = memoryview(b"%d\n" % len(data) + data)
        while view:
            view = view[_write(self.write_fd, view) :]

    def receive(self):
        header = self.reader.readline(32)
        if not header.endswith(b"\n"):
            raise ServerGone()
        size = int(header)
        if not 0 <= size <= MESSAGE_BYTES:
            raise ValueError("message too large")
        data = self.reader.read(size)
        if len(data) != size:
            raise ServerGone()
        return unpack(data.decode("utf-8", "surrogatepass"))


# -- running one statement (in the checker, or in the server when values can't cross)


def code_at(source, line, mode):
    # Leading newlines keep the checks' own line numbers in tracebacks.
    return compile("\n" * (line - 1) + source, "<checks>", mode)


def run_statement(statement, namespace):
    """One record per statement."""
    line, kind = statement["line"], statement["kind"]
    record = {"line": line}

    def evaluate(source):
        return eval(code_at("(" + source + ")", line, "eval"), namespace)

    try:
        if kind == "exec":
            exec(code_at(statement["source"], line, "exec"), namespace)
            record["kind"] = "ok"
            return record
        if kind == "compare":
            left, right = evaluate(statement["left"]), evaluate(statement["right"])
            record.update(kind="compare", op=statement["op"], left=encode(left), right=encode(right))
            held = holds(HOLDS[statement["op"]], left, right)
        else:
            value = evaluate(statement["test"])
            record.update(kind="truth", value=encode(value))
            held = holds(bool, value)
        if statement.get("message"):
            record["detail"] = _str(evaluate(statement["message"]))[:500]
        if not held:
            record["captured"] = captured(statement.get("captures", ()), namespace)
    except NotPlain as exc:
        record.update(kind="notplain", type=_str(exc))
    except CannotCross:
        raise
    except BaseException as exc:  # noqa: BLE001 - SystemExit from a candidate is a failure too
        record.update(kind="error", error=error_text(exc), traceback=formatted(exc))
        if kind != "exec":  # the captures bound before it raised: its names are its own
            record["captured"] = captured(statement.get("captures", ()), namespace)
        else:
            record.update(failed_assertion(exc))
    return record


def holds(test, *values):
    """Plain values only (the record's operands encoded): nothing of the candidate's runs here."""
    try:
        return bool(test(*values))
    except Exception:  # noqa: BLE001 - values that can't be compared: autofix says why
        return False


def captured(names, values, paired=False):
    """The reprs of the captured subexpressions bound in `values`, bounded; when `paired`, the
    first two are the operands of `==`, cut where they first differ."""
    shown = []
    for name in names:
        if name in values:
            try:
                text = _repr(values[name])
            except Exception:  # noqa: BLE001 - a repr that fails shows as such, and the check goes on
                text = "<a value whose repr failed>"
            shown.append([name, text])
    start = 0
    if paired and [pair[0] for pair in shown[:2]] == names[:2]:
        common = len(os.path.commonprefix([shown[0][1], shown[1][1]]))
        start = common - VALUE_CHARS // 4 if common > VALUE_CHARS // 2 else 0
    for index, pair in enumerate(shown):
        cut = start if index < 2 else 0
        pair[1] = ("..." if cut else "") + pair[1][cut : cut + VALUE_CHARS]
    return shown


def failed_assertion(exc):
    """For an assertion of the checks that failed or raised, the line it starts on and the
    values it captured: those of its last frame in the checks, when that frame stopped at one."""
    tb, stopped = exc.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == CHECKS:
            stopped = tb
        tb = tb.tb_next
    found = Shown.asserts.get(stopped.tb_lineno) if stopped is not None else None
    if stopped is None or found is None:
        return {}
    first, names, paired = found
    return {"at": first, "captured": captured(names, stopped.tb_frame.f_locals, paired)}


def error_text(exc):
    remote = getattr(exc, "autofix_remote", None)
    return (remote[0] if remote else f"{_type(exc).__name__}: {exc}")[:1000]


def formatted(exc, header=True):
    """The traceback a failure shows, as Python prints one but with the frames of the checks and
    of the work folder only: never this runner's, nor the standard library's. Where the candidate
    raised in its own process, its frames there follow the checks' call (`header`: the server
    leaves the first line to the checker)."""
    remote = getattr(exc, "autofix_remote", None)
    text = frame_lines(exc.__traceback__) + (remote[1] if remote else exception_only(exc))
    if len(text) > TRACEBACK_CHARS:
        text = "  ...\n" + text[-TRACEBACK_CHARS:]
    return with_header(text) if header else text


def with_header(text):
    return "Traceback (most recent call last):\n" + text if text.startswith("  ") else text


def frame_lines(tb):
    import linecache  # only on failure, as traceback below: they cost milliseconds to import

    lines, last, repeated = [], None, 0
    while tb is not None:
        code, number = tb.tb_frame.f_code, tb.tb_lineno
        path, tb = code.co_filename, tb.tb_next
        if path == CHECKS:
            text = Shown.lines.get(number, "")
        elif Shown.root and path.startswith(Shown.root + os.sep):
            text, path = linecache.getline(path, number), path[len(Shown.root) + 1 :]
        else:
            continue
        if (path, number, code.co_name) == last:  # a recursion: said as Python says it
            repeated += 1
            if repeated >= 3:
                continue
        else:
            lines += repeat_note(repeated)
            last, repeated = (path, number, code.co_name), 0
        lines.append(f'  File "{path}", line {number}, in {code.co_name}\n')
        if text.strip():
            lines.append(f"    {text.strip()}\n")
    return "".join(lines + repeat_note(repeated))


def repeat_note(repeated):
    return [f"  [Previous line repeated {repeated - 2} more times]\n"] if repeated > 2 else []


def exception_only(exc):
    import traceback

    text = "".join(traceback.format_exception_only(_type(exc), exc))
    return text.replace(Shown.root + os.sep, "") if Shown.root else text


def as_pairs(mapping):
    return [[key, value if _type(value) in (str, int, list) else _str(value)] for key, value in mapping.items()]


# -- the checker


class Handle:
    """An object of the candidate's, living in the server; every use is a request."""

    __slots__ = ("_autofix_id", "_autofix_type")

    def __init__(self, ident, type_name):
        object.__setattr__(self, "_autofix_id", ident)
        object.__setattr__(self, "_autofix_type", type_name)

    def __getattr__(self, name):
        return CHECKER.request(["getattr", self._autofix_id, name])

    def __call__(self, *args, **kwargs):
        return CHECKER.request(
            [
                "call",
                self._autofix_id,
                [CHECKER.outgoing(a) for a in args],
                [[k, CHECKER.outgoing(v)] for k, v in kwargs.items()],
            ]
        )

    def __repr__(self):
        try:
            return _str(CHECKER.request(["forward", self._autofix_id, "__repr__", []]))
        except Exception:  # noqa: BLE001 - a repr must not fail the statement that prints it
            return f"<{self._autofix_type} object>"


def forwarder(name):
    def forward(self, *args):
        return CHECKER.request(["forward", self._autofix_id, name, [CHECKER.outgoing(a) for a in args]])

    forward.__name__ = name
    return forward


for _name in FORWARDED:
    setattr(Handle, _name, forwarder(_name))


class Checker:
    def __init__(self, channel, server_pid):
        self.channel = channel
        self.server_pid = server_pid
        self.gone = None  # why the server can't answer any more

    def outgoing(self, value):
        def by_reference(item):
            if _type(item) is Handle:
                return ["handle", item._autofix_id]
            raise CannotCross(_type(item).__qualname__)

        return encode(value, by_reference)

    def exchange(self, message):
        if self.gone:
            raise RuntimeError(self.gone)
        try:
            self.channel.send(message)
            return self.channel.receive()
        except (OSError, ValueError, IndexError, ServerGone):
            self.gone = "the candidate's process ended or broke the protocol" + self.exit_status()
            raise RuntimeError(self.gone) from None

    def exit_status(self):
        for _ in range(50):  # its pipe closed: it is exiting, or chose to linger
            try:
                pid, status = os.waitpid(self.server_pid, os.WNOHANG)
            except OSError:
                return ""
            if pid:
                break
            select.select([], [], [], 0.002)
        else:
            return ""
        if os.WIFSIGNALED(status):
            return f" (killed by signal {os.WTERMSIG(status)})"
        return f" (exit code {os.waitstatus_to_exitcode(status)})"

    def request(self, message):
        return self.incoming(self.exchange(message))

    def incoming(self, reply):
        kind = reply[0]
        if kind == "value":
            return decode(reply[1])
        if kind == "handle":
            return Handle(reply[1], _str(reply[2]))
        if kind == "raise":
            raise remote_exception(_str(reply[1]), _str(reply[2]), _str(reply[3]))
        raise ValueError("unexpected reply")


def remote_exception(type_name, text, traceback_text):
    """The server's exception as the built-in class of that name, so `except ValueError` in the
    checks works; anything else (and SystemExit, which would end the checker) as RuntimeError."""
    cls = getattr(builtins, type_name, None)
    if not (isinstance(cls, type) and issubclass(cls, Exception)) or cls is StopAsyncIteration:
        cls = RuntimeError
    try:
        exc = cls(text.partition(": ")[2] or text)
    except Exception:  # noqa: BLE001 - a constructor that wants other arguments
        exc = RuntimeError(text)
    # A built-in class has no such attribute declared; the checker reads it back with getattr.
    exc.autofix_remote = (text, traceback_text)  # type: ignore[attr-defined]
    return exc


def non_dumpable():
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (ImportError, OSError, AttributeError):
        pass  # no ctypes here: the verdict then rests on the sandbox's ptrace rules


def start_server(boot, code):
    to_server_r, to_server_w = os.pipe()
    from_server_r, from_server_w = os.pipe()
    code_fd = os.memfd_create("autofix-runner")
    view = memoryview(code)
    while view:
        view = view[_write(code_fd, view) :]
    os.lseek(code_fd, 0, os.SEEK_SET)
    for fd in (to_server_r, from_server_w, code_fd):
        os.set_inheritable(fd, True)
    argv = [sys.executable, "-S", "-s", "-P", "-c", boot, "serve", str(code_fd), str(to_server_r), str(from_server_w)]
    pid = os.posix_spawn(sys.executable, argv, os.environ)
    for fd in (to_server_r, from_server_w, code_fd):
        os.close(fd)
    return pid, Channel(from_server_r, to_server_w)


def check(payload_fd):
    with os.fdopen(int(payload_fd), "rb") as payload:
        nonce, target, kind, statements, paths, boot, code, root = marshal.loads(payload.read())
    non_dumpable()
    Shown.root = root
    Shown.learn(statements)
    sys.path[:] = paths  # never the work folder: nothing the candidate wrote is imported here
    global CHECKER
    pid, channel = start_server(boot, code)
    CHECKER = Checker(channel, pid)
    result: dict[str, object] = {"import_error": None, "records": []}
    try:
        names = CHECKER.exchange(["init", [os.path.dirname(target), *paths], target, kind, root])
        if names[0] == "raise":
            raise RuntimeError(with_header(_str(names[3])))
        module = Handle(0, "module")
        namespace = {name: CHECKER.incoming(reply) for name, reply in names[1] if visible(name)}
    except BaseException as exc:  # noqa: BLE001 - whatever happened, importing failed
        result["import_error"] = _str(exc)
    else:
        # A proxy, not a module: the checks' `import target` reaches the candidate's module through it.
        sys.modules[os.path.splitext(os.path.basename(target))[0]] = module  # type: ignore[assignment]
        namespace["__name__"] = "__autofix_checks__"
        result["records"] = run_all(statements, namespace)
    sys.stdout.flush()
    _write(1, ("\n" + nonce + _repr(result) + "\n").encode())


def visible(name):
    """The target's names the checks see unqualified: never one that would shadow a built-in
    (a candidate's own `len` or `isinstance` would otherwise judge its results)."""
    return _type(name) is str and name.isidentifier() and not name.startswith("__") and not hasattr(builtins, name)


def run_all(statements, namespace):
    records = []
    remote_names: set[str] = set()
    replayed = 0
    for index, statement in enumerate(statements):
        record = None
        if not remote_names & set(statement.get("uses", ())):
            try:
                record = run_statement(statement, namespace)
            except CannotCross:
                pass
        if record is None:
            # Run it in the server, after the plain code before it that the server hasn't seen.
            prelude = [s for s in statements[replayed:index] if s["kind"] == "exec"]
            replayed = index + 1
            record = in_server(statement, prelude)
            if statement["kind"] == "exec":
                remote_names |= set(statement.get("binds", ()))
        records.append(record)
    return records


def in_server(statement, prelude):
    try:
        reply = CHECKER.exchange(["statement", [as_pairs(s) for s in prelude], as_pairs(statement)])
        record = {_str(k): v for k, v in reply[1]}
    except BaseException as exc:  # noqa: BLE001
        record = {"kind": "error", "error": error_text(exc)}
    record["line"] = statement["line"]
    record["inprocess"] = True
    return record


# -- the server


class Server:
    def __init__(self, channel):
        self.channel = channel
        self.objects = {}
        self.namespace = {}

    def reply_for(self, value):
        try:
            return ["value", encode(value)]
        except (NotPlain, RecursionError, ValueError):
            ident = len(self.objects)
            self.objects[ident] = value
            return ["handle", ident, _type(value).__qualname__]

    def serve(self):
        while True:
            try:
                message = self.channel.receive()
            except ServerGone:
                return
            try:
                reply = self.answer(message)
            except BaseException as exc:  # noqa: BLE001 - the checker judges what the candidate raised
                reply = ["raise", _type(exc).__name__, f"{_type(exc).__name__}: {exc}"[:1000], formatted(exc, False)]
            self.channel.send(reply)

    def answer(self, message):
        kind = message[0]
        if kind == "init":
            sys.path[:] = message[1]
            Shown.root = message[4]
            module = load(message[2], message[3])
            self.objects[0] = module
            self.namespace = {k: v for k, v in vars(module).items() if not k.startswith("__")}
            self.namespace["__name__"] = "__autofix_checks__"
            return ["names", [[name, self.reply_for(value)] for name, value in self.namespace.items()]]
        if kind == "getattr":
            return self.reply_for(getattr(self.objects[message[1]], message[2]))
        if kind == "call":
            args = [decode(a, self.objects) for a in message[2]]
            kwargs = {k: decode(v, self.objects) for k, v in message[3]}
            return self.reply_for(self.objects[message[1]](*args, **kwargs))
        if kind == "forward":
            # Looked up on the type, as Python does: a missing one is a TypeError (len() of a generator).
            target, name = self.objects[message[1]], message[2]
            method = getattr(_type(target), name, None)
            if method is None:
                raise TypeError(f"'{_type(target).__name__}' object has no {name}")
            return self.reply_for(method(target, *[decode(a, self.objects) for a in message[3]]))
        if kind == "statement":
            Shown.learn([dict(pairs) for pairs in [*message[1], message[2]]])
            for prelude in message[1]:
                try:
                    run_statement(dict(prelude), self.namespace)
                except BaseException:  # noqa: BLE001 - the checker already judged it
                    pass
            return ["record", as_pairs(run_statement(dict(message[2]), self.namespace))]
        raise ValueError("unknown request")


def load(target, kind):
    """Import the target as a module named after its file, from its own folder; a document
    becomes a module whose one name is `data`."""
    name = os.path.splitext(os.path.basename(target))[0]
    if kind in ("json", "yaml"):
        return document(name, target, kind)
    if name in sys.modules:  # a name the interpreter holds (json.py, random.py...)
        import importlib.util

        spec = importlib.util.spec_from_file_location(name, target)
        if spec is None or spec.loader is None:  # no loader for its suffix: not Python source
            raise ImportError(f"cannot import {target}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    return __import__(name)


def document(name, target, kind):
    import types

    with open(target, encoding="utf-8") as file:
        text = file.read()
    if kind == "json":
        import json

        data = json.loads(text)
    else:
        import yaml  # PyYAML: the server's path is autofix's own

        data = yaml.safe_load(text)
    module = types.ModuleType(name)
    module.data = data  # type: ignore[attr-defined]
    return module


def serve(read_fd, write_fd):
    try:
        Server(Channel(int(read_fd), int(write_fd))).serve()
    except BaseException:  # noqa: BLE001 - a broken pipe: the checker is done
        pass
    os._exit(0)


CHECKER: Checker  # set by check(); the server never makes a Handle
if sys.argv[1] == "check":
    check(sys.argv[3])
else:
    serve(sys.argv[3], sys.argv[4])
