"""Judge the records the in-sandbox checks runner wrote, outside the candidate's process."""

from __future__ import annotations

import ast
import operator
import signal
from dataclasses import dataclass, field

OPERATORS = {
    "Eq": (operator.eq, "=="),
    "NotEq": (operator.ne, "!="),
    "Lt": (operator.lt, "<"),
    "LtE": (operator.le, "<="),
    "Gt": (operator.gt, ">"),
    "GtE": (operator.ge, ">="),
    "In": (lambda a, b: a in b, "in"),
    "NotIn": (lambda a, b: a not in b, "not in"),
}
SEQUENCES = {"list": list, "tuple": tuple, "set": set, "frozenset": frozenset}


COMPARED = {
    ast.Eq: "Eq",
    ast.NotEq: "NotEq",
    ast.Lt: "Lt",
    ast.LtE: "LtE",
    ast.Gt: "Gt",
    ast.GtE: "GtE",
    ast.In: "In",
    ast.NotIn: "NotIn",
}


def prepare(code: str) -> list[dict]:
    """Split the checks into the statements the runner executes, once per task.

    An `assert a OP b` becomes a comparison whose operands the runner serialises; any other
    assert a truth test; everything else plain code (imports, helpers, loops)."""
    statements = []
    for node in ast.parse(code).body:
        source = ast.get_source_segment(code, node)
        # `uses` and `binds` let the runner send a statement to the candidate's process when it
        # needs a name that only exists there (see checks_runner.run_all).
        names = {"uses": sorted(used_names(node)), "binds": sorted(bound_names(node))}
        statement = {"line": node.lineno, "kind": "exec", "source": source, **names}
        if isinstance(node, ast.Assert):
            statement = {"line": node.lineno, **names}
            if isinstance(node.msg, ast.Constant) and isinstance(node.msg.value, str):
                statement["name"] = node.msg.value
            elif node.msg is not None:
                statement["message"] = ast.get_source_segment(code, node.msg)
            test = node.test
            if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in COMPARED:
                statement.update(
                    kind="compare",
                    op=COMPARED[type(test.ops[0])],
                    left=ast.get_source_segment(code, test.left),
                    right=ast.get_source_segment(code, test.comparators[0]),
                )
            else:
                statement.update(kind="truth", test=ast.get_source_segment(code, test))
        statements.append(statement)
    return statements


def used_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def bound_names(node: ast.stmt) -> set[str]:
    """The names a top-level statement binds in the checks' namespace."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}


@dataclass
class CheckResults:
    failures: list[str] = field(default_factory=list)  # "name: expected ..., got ..."
    names: list[str] = field(default_factory=list)  # the failing checks' names
    details: list[str] = field(default_factory=list)  # tracebacks, for the feedback's tail
    total: int = 0
    inprocess: list[str] = field(default_factory=list)  # checks judged in the candidate's process
    forged: list[str] = field(default_factory=list)  # planted checks that came back passed


def signal_name(number: int) -> str:
    try:
        return f"{signal.Signals(number).name} (signal {number})"
    except ValueError:
        return f"signal {number}"


def decode(value):
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
    if kind in SEQUENCES:
        return SEQUENCES[kind](decode(item) for item in rest[0])
    if kind == "dict":
        return {decode(k): decode(v) for k, v in rest[0]}
    raise ValueError(f"unknown kind {kind!r}")


def judge(
    output: str, nonce: str, statements: list[dict], returncode: int | None = 0, planted: int = 0
) -> CheckResults:
    """Read the runner's result line and compare every assertion's plain values here. The last
    `planted` statements are canaries (bot/judge/canaries.py), which must fail: one that passed
    is in `forged`, and none counts among the checks."""
    results = CheckResults(total=sum(s["kind"] != "exec" for s in statements[: len(statements) - planted]))
    payload = None
    for line in output.splitlines():
        if line.startswith(nonce):
            payload = line[len(nonce) :]
    if payload is None:
        how = "ended" if returncode is None or returncode >= 0 else f"was killed by {signal_name(-returncode)}"
        results.failures.append(f"the checks did not finish: the process {how} before reporting any result")
        results.names.append("(all checks)")
        return results
    try:
        data = ast.literal_eval(payload)
        import_error, records = data["import_error"], data["records"]
        lines = [record["line"] for record in records]
    except (ValueError, KeyError, TypeError, IndexError, SyntaxError, MemoryError, RecursionError):
        results.failures.append("the checks' report is malformed")
        results.names.append("(all checks)")
        return results
    if import_error:
        results.failures.append("importing the target failed, so no check ran")
        results.names.append("(import)")
        results.details.append(str(import_error))
        return results
    if lines != [s["line"] for s in statements]:
        results.failures.append("the checks' report does not match the checks that were run")
        results.names.append("(all checks)")
        return results
    for index, (statement, record) in enumerate(zip(statements, records, strict=True)):
        if index >= len(statements) - planted:
            try:
                if fits(statement, record) and judge_record(record) is None:
                    results.forged.append(f"a check that fails by construction passed (line {statement['line']})")
            except (ValueError, KeyError, TypeError, IndexError, MemoryError, RecursionError):
                pass
            continue
        name = statement.get("name") or f"line {statement['line']}"
        if record.get("inprocess"):
            results.inprocess.append(name)
        try:
            failure = judge_record(record) if fits(statement, record) else "its record is malformed"
        except (ValueError, KeyError, TypeError, IndexError, MemoryError, RecursionError):
            failure = "its record is malformed"
        if failure:
            results.names.append(name)
            results.failures.append(f"{name}: {failure}")
            if record.get("traceback"):
                results.details.append(str(record["traceback"]))
    return results


# The record kinds each statement kind may produce: a record from the candidate's process can't
# turn an assertion into plain code that "ran fine".
RECORD_KINDS = {
    "exec": {"ok", "error"},
    "compare": {"compare", "error", "notplain"},
    "truth": {"truth", "error", "notplain"},
}


def fits(statement: dict, record: dict) -> bool:
    kind = record.get("kind")
    return kind in RECORD_KINDS[statement["kind"]] and (kind != "compare" or record.get("op") == statement["op"])


def judge_record(record: dict) -> str | None:
    """None when the statement passed, else what went wrong (without the check's name)."""
    kind = record["kind"]
    if kind == "ok":
        return None
    if kind == "error":
        return f"raised {record['error']}"
    if kind == "notplain":
        return (
            f"the result is a {record['type']} object; "
            "checks compare plain values (None, bool, int, float, str, bytes, list, tuple, set, dict) only"
        )
    detail = f" ({record['detail']})" if record.get("detail") else ""
    if kind == "truth":
        return None if decode(record["value"]) else f"assertion failed{detail}"
    compare, symbol = OPERATORS[record["op"]]
    left, right = decode(record["left"]), decode(record["right"])
    try:
        if compare(left, right):
            return None
    except TypeError as exc:
        return f"cannot compare {left!r} {symbol} {right!r}: {exc}"
    if record["op"] == "Eq":
        return f"expected {right!r}, got {left!r}{detail}"
    return f"{left!r} {symbol} {right!r} is false{detail}"
