"""Judge the records the in-sandbox checks runner wrote, outside the candidate's process."""

from __future__ import annotations

import ast
import json
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


def judge(output: str, nonce: str, checks: str) -> CheckResults:
    """Read the runner's result line and compare every assertion's plain values here."""
    statements = ast.parse(checks).body
    results = CheckResults(total=sum(isinstance(s, ast.Assert) for s in statements))
    payload = None
    for line in output.splitlines():
        if line.startswith(nonce):
            payload = line[len(nonce):]
    if payload is None:
        results.failures.append("the checks did not finish: the process ended before reporting any result")
        results.names.append("(all checks)")
        return results
    try:
        data = json.loads(payload)
        import_error, records = data["import_error"], data["records"]
        verdicts = [judge_record(record) for record in records] if not import_error else []
    except (ValueError, KeyError, TypeError, IndexError):
        results.failures.append("the checks' report is malformed")
        results.names.append("(all checks)")
        return results
    if import_error:
        results.failures.append("importing the target failed, so no check ran")
        results.names.append("(import)")
        results.details.append(import_error)
        return results
    if [r["line"] for r in records] != [s.lineno for s in statements]:
        results.failures.append("the checks' report does not match the checks that were run")
        results.names.append("(all checks)")
        return results
    for record, failure in zip(records, verdicts):
        if failure:
            name = record.get("name") or f"line {record['line']}"
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
