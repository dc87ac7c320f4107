"""Runs inline checks inside the sandbox: `python -I -c <this file> NONCE TARGET CHECKS`.

Stdlib only and self-contained. Each top-level statement of the checks is run on its own,
so one failure doesn't hide the others. Assertions are not judged here: their operands are
serialised as plain values and compared by autofix outside this process, so a candidate
object whose __eq__ or __bool__ lies cannot pass a check.
"""

import ast
import importlib.util
import json
import os
import sys
import traceback

# Taken before the candidate is imported, so it can't swap them out from under us.
_type, _repr, _str, _write, _dumps = type, repr, str, os.write, json.dumps
SEQUENCES = {list: "list", tuple: "tuple", set: "set", frozenset: "frozenset"}
COMPARED = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.In, ast.NotIn)


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


def run_statement(node, namespace):
    """One record per top-level statement."""
    record = {"line": node.lineno, "assert": isinstance(node, ast.Assert)}
    if record["assert"] and isinstance(node.msg, ast.Constant) and _type(node.msg.value) is str:
        record["name"] = node.msg.value

    def evaluate(expr):
        return eval(compile(ast.Expression(expr), "<checks>", "eval"), namespace)

    try:
        if not record["assert"]:
            exec(compile(ast.Module([node], []), "<checks>", "exec"), namespace)
            record["kind"] = "ok"
            return record
        test = node.test
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], COMPARED):
            record.update(kind="compare", op=_type(test.ops[0]).__name__,
                          left=encode(evaluate(test.left)), right=encode(evaluate(test.comparators[0])))
        else:
            record.update(kind="truth", value=encode(evaluate(test)))
        if node.msg is not None and "name" not in record:
            record["detail"] = _str(evaluate(node.msg))[:500]
    except NotPlain as exc:
        record.update(kind="notplain", type=_str(exc))
    except BaseException as exc:  # noqa: BLE001 - SystemExit from a candidate is a failure too
        record.update(kind="error", error=f"{_type(exc).__name__}: {exc}"[:1000], traceback=traceback.format_exc()[-3000:])
    return record


def main(nonce, target, checks):
    result = {"import_error": None, "records": []}
    try:
        name = os.path.splitext(os.path.basename(target))[0]
        sys.path.insert(0, os.path.dirname(target))
        spec = importlib.util.spec_from_file_location(name, target)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    except BaseException as exc:  # noqa: BLE001
        result["import_error"] = traceback.format_exc()[-3000:] or f"{_type(exc).__name__}: {exc}"
    else:
        namespace = {k: v for k, v in vars(module).items() if not k.startswith("__")}
        namespace["__name__"] = "__autofix_checks__"
        for node in ast.parse(checks).body:
            result["records"].append(run_statement(node, namespace))
    sys.stdout.flush()
    _write(1, ("\n" + nonce + _dumps(result) + "\n").encode())


main(*sys.argv[1:4])
