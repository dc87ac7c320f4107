"""Judge the records the in-sandbox checks runner wrote, outside the candidate's process."""

from __future__ import annotations

import ast
import operator
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


COMPARED = {ast.Eq: "Eq", ast.NotEq: "NotEq", ast.Lt: "Lt", ast.LtE: "LtE", ast.Gt: "Gt", ast.GtE: "GtE", ast.In: "In", ast.NotIn: "NotIn"}


def prepare(code: str) -> list[dict]:
    """Split the checks into the statements the runner executes, once per task.

    An `assert a OP b` becomes a comparison whose operands the runner serialises; any other
    assert a truth test; everything else plain code (imports, helpers, loops)."""
    statements = []
    for node in ast.parse(code).body:
        source = ast.get_source_segment(code, node)
        statement = {"line": node.lineno, "kind": "exec", "source": source}
        if isinstance(node, ast.Assert):
            statement = {"line": node.lineno}
            if isinstance(node.msg, ast.Constant) and isinstance(node.msg.value, str):
                statement["name"] = node.msg.value
            elif node.msg is not None:
                statement["message"] = ast.get_source_segment(code, node.msg)
            test = node.test
            if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in COMPARED:
                statement.update(kind="compare", op=COMPARED[type(test.ops[0])],
                                 left=ast.get_source_segment(code, test.left),
                                 right=ast.get_source_segment(code, test.comparators[0]))
            else:
                statement.update(kind="truth", test=ast.get_source_segment(code, test))
        statements.append(statement)
    return statements


@dataclass
class CheckResults:
    failures: list[str] = field(default_factory=list)  # "name: expected ..., got ..."
    names: list[str] = field(default_factory=list)  # the failing checks' names
    details: list[str] = field(default_factory=list)  # tracebacks, for the feedback's tail
    total: int = 0


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


def judge(output: str, nonce: str, statements: list[dict]) -> CheckResults:
    """Read the runner's result line and compare every assertion's plain values here."""
    results = CheckResults(total=sum(s["kind"] != "exec" for s in statements))
    payload = None
    for line in output.splitlines():
        if line.startswith(nonce):
            payload = line[len(nonce):]
    if payload is None:
        results.failures.append("the checks did not finish: the process ended before reporting any result")
        results.names.append("(all checks)")
        return results
    try:
        data = ast.literal_eval(payload)
        import_error, records = data["import_error"], data["records"]
        verdicts = [judge_record(record) for record in records] if not import_error else []
    except (ValueError, KeyError, TypeError, IndexError, SyntaxError, MemoryError, RecursionError):
        results.failures.append("the checks' report is malformed")
        results.names.append("(all checks)")
        return results
    if import_error:
        results.failures.append("importing the target failed, so no check ran")
        results.names.append("(import)")
        results.details.append(import_error)
        return results
    if [r["line"] for r in records] != [s["line"] for s in statements]:
        results.failures.append("the checks' report does not match the checks that were run")
        results.names.append("(all checks)")
        return results
    for statement, record, failure in zip(statements, records, verdicts):
        if failure:
            name = statement.get("name") or f"line {statement['line']}"
            results.names.append(name)
            results.failures.append(f"{name}: {failure}")
            if record.get("traceback"):
                results.details.append(record["traceback"])
    return results


def judge_record(record: dict) -> str | None:
    """None when the statement passed, else what went wrong (without the check's name)."""
    kind = record["kind"]
    if kind == "ok":
        return None
    if kind == "error":
        return f"raised {record['error']}"
    if kind == "notplain":
        return f"the result is a {record['type']} object; checks compare plain values (None, bool, int, float, str, bytes, list, tuple, set, dict) only"
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
