"""Runs inline checks inside the sandbox: `python -S -c <this file> NONCE TARGET PAYLOAD`.

Stdlib only, self-contained and light, because it starts for every candidate: autofix splits the
checks into statements once per task (bot/checks.py) and hands them over with marshal (built in,
nothing to import), together with autofix's own sys.path, so `-S` can skip site and its .pth
files (often half of the interpreter's start-up) while third-party imports still resolve. The
result goes back as a Python literal that autofix reads with ast.literal_eval: nothing from this
process is unmarshalled outside it. Each statement runs on its own, so one failure
doesn't hide the others. Assertions are not judged here: their operands are serialised as plain
values and compared by autofix outside this process, so a candidate object whose __eq__ or
__bool__ lies cannot pass a check.
"""

import marshal
import os
import sys

# Taken before the candidate is imported, so it can't swap them out from under us.
_type, _str, _repr, _write = type, str, repr, os.write
SEQUENCES = {list: "list", tuple: "tuple", set: "set", frozenset: "frozenset"}


class NotPlain(Exception):
    pass


def encode(value):
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
        return [SEQUENCES[kind], [encode(item) for item in value]]
    if kind is dict:
        return ["dict", [[encode(k), encode(v)] for k, v in dict.items(value)]]
    raise NotPlain(kind.__qualname__)


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
            record.update(kind="compare", op=statement["op"],
                          left=encode(evaluate(statement["left"])), right=encode(evaluate(statement["right"])))
        else:
            record.update(kind="truth", value=encode(evaluate(statement["test"])))
        if statement.get("message"):
            record["detail"] = _str(evaluate(statement["message"]))[:500]
    except NotPlain as exc:
        record.update(kind="notplain", type=_str(exc))
    except BaseException as exc:  # noqa: BLE001 - SystemExit from a candidate is a failure too
        record.update(kind="error", error=f"{_type(exc).__name__}: {exc}"[:1000], traceback=formatted())
    return record


def formatted():
    import traceback  # only on failure: it costs a few milliseconds to import

    return traceback.format_exc()[-3000:]


def load(target):
    """Import the target as a module named after its file, from its own folder."""
    name = os.path.splitext(os.path.basename(target))[0]
    if name in sys.modules:  # a name the interpreter already holds (json.py, random.py...)
        import importlib.util

        spec = importlib.util.spec_from_file_location(name, target)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    return __import__(name)


def main(nonce, target, payload):
    statements, paths = marshal.loads(bytes.fromhex(payload))
    sys.path[:] = [os.path.dirname(target), *paths]
    result = {"import_error": None, "records": []}
    try:
        module = load(target)
    except BaseException:  # noqa: BLE001
        result["import_error"] = formatted()
    else:
        namespace = {k: v for k, v in vars(module).items() if not k.startswith("__")}
        namespace["__name__"] = "__autofix_checks__"
        for statement in statements:
            result["records"].append(run_statement(statement, namespace))
    sys.stdout.flush()
    _write(1, ("\n" + nonce + _repr(result) + "\n").encode())


main(*sys.argv[1:4])
