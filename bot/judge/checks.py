"""Judge the records the in-sandbox checks runner wrote, outside the candidate's process."""

from __future__ import annotations

import ast
import operator
import signal
from dataclasses import dataclass, field

from bot import syntax
from bot.judge.assertions import Assertion, clip, cut_pair, explain, rewrite
from bot.text import clip_head, clip_line

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
    assert a truth test; everything else plain code (imports, helpers, loops). Each keeps its text
    as the task wrote it (`shown`), and runs with the captures of its assertions inserted
    (bot/judge/assertions.py), which `explain` holds for the feedback (never sent: `wire`)."""
    tree = syntax.parse(code)
    executed, assertions = rewrite(code, tree)
    run_tree = syntax.parse(executed) if executed != code else tree
    statements = []
    for node, run in zip(tree.body, run_tree.body, strict=True):
        shown = ast.get_source_segment(code, node)
        # `uses` and `binds` let the runner send a statement to the candidate's process when it
        # needs a name that only exists there (see checks_runner.run_all).
        names = {"uses": sorted(used_names(node)), "binds": sorted(bound_names(node))}
        end = node.end_lineno or node.lineno
        inside = [a for line, a in sorted(assertions.items()) if node.lineno <= line <= end]
        statement: dict = {"line": node.lineno, "shown": shown, **names, "explain": inside}
        if isinstance(node, ast.Assert) and isinstance(run, ast.Assert):
            if isinstance(node.msg, ast.Constant) and isinstance(node.msg.value, str):
                statement["name"] = node.msg.value
            elif run.msg is not None:
                statement["message"] = ast.get_source_segment(executed, run.msg)
            test = run.test
            if isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in COMPARED:
                statement.update(
                    kind="compare",
                    op=COMPARED[type(test.ops[0])],
                    left=ast.get_source_segment(executed, test.left),
                    right=ast.get_source_segment(executed, test.comparators[0]),
                )
            else:
                statement.update(kind="truth", test=ast.get_source_segment(executed, test))
            statement["captures"] = [capture.name for capture in assertions[node.lineno].captures]
        else:
            statement.update(kind="exec", source=ast.get_source_segment(executed, run))
            statement["asserts"] = [
                [a.first, a.last, [c.name for c in a.captures], paired(a)] for a in inside if a.captures
            ]
        statements.append(statement)
    return statements


def paired(assertion: Assertion) -> bool:
    """The runner cuts the operands of `==` where they first differ: its first two captures."""
    roles = [capture.role for capture in assertion.captures[:2]]
    return assertion.op == "==" and roles == ["left", "right"]


def wire(statements: list[dict]) -> list[dict]:
    """The statements as the runner gets them: plain values only."""
    return [{key: value for key, value in s.items() if key != "explain"} for s in statements]


def used_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def bound_names(node: ast.stmt) -> set[str]:
    """The names a top-level statement binds in the checks' namespace."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}


BLOCK_CHARS = 1_500  # of one failing check's block in the feedback
SHOWN_CHARS = 600  # of the statement quoted in it
LINE_CHARS = 200  # of one of its lines
SUMMARY_CHARS = 150  # of one value in a failing check's summary line


@dataclass
class CheckResults:
    failures: list[str] = field(default_factory=list)  # "name: expected ..., got ..."
    names: list[str] = field(default_factory=list)  # the failing checks' names
    blocks: list[str] = field(default_factory=list)  # each failing check: its statement, values, traceback
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
        data = syntax.literal_eval(payload)
        import_error, records = data["import_error"], data["records"]
        lines = [record["line"] for record in records]
    except (ValueError, KeyError, TypeError, IndexError, SyntaxError, MemoryError, RecursionError):
        results.failures.append("the checks' report is malformed")
        results.names.append("(all checks)")
        return results
    if import_error:
        results.failures.append("importing the target failed, so no check ran")
        results.names.append("(import)")
        results.blocks.append(clip_head(f"### (import)\n{str(import_error).strip()}", BLOCK_CHARS))
        return results
    assertions = {a.first: a for s in statements for a in s.get("explain", ())}
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
            results.blocks.append(block(statement, record, failure, assertions))
    return results


def block(statement: dict, record: dict, failure: str, assertions: dict[int, Assertion]) -> str:
    """One failing check as the model reads it: the statement as the task wrote it, then the
    traceback of what it raised (the checks' and the work folder's frames) and the values its
    assertion compared. What a record from the candidate's process holds is only shown."""
    name, line = statement.get("name"), statement["line"]
    shown = clip_head("\n".join(clip_line(text, LINE_CHARS) for text in statement["shown"].splitlines()), SHOWN_CHARS)
    parts = [f"### {name} (line {line})" if name else f"### line {line}", shown]
    traceback = record.get("traceback") if record.get("kind") == "error" else None
    if isinstance(traceback, str) and traceback.strip():
        parts.append(traceback.strip())
    try:
        explained = explanation(statement, record, assertions)
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, MemoryError, RecursionError):
        explained = ""
    if explained:
        parts.append(explained)
    elif len(parts) == 2:
        parts.append(failure)
    return clip_head("\n".join(parts), BLOCK_CHARS)


def explanation(statement: dict, record: dict, assertions: dict[int, Assertion]) -> str:
    values = {name: text for name, text in record.get("captured") or () if isinstance(text, str)}
    own = statement["explain"][0] if statement["kind"] != "exec" else None
    kind = record["kind"]
    if kind == "compare" and own is not None:
        return explain(own, values, repr(decode(record["left"])), repr(decode(record["right"])))
    if kind == "error" and record.get("at") in assertions:
        assertion = assertions[record["at"]]
        return explain(assertion, values, raised=not record["error"].startswith("AssertionError"))
    if kind == "error" and own is not None:
        return explain(own, values, raised=True)
    return explain(own, values) if own is not None and kind == "truth" else ""


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
        return f"cannot compare {clip(repr(left), SUMMARY_CHARS)} {symbol} {clip(repr(right), SUMMARY_CHARS)}: {exc}"
    if record["op"] == "Eq":
        got, wanted = cut_pair(repr(left), repr(right), SUMMARY_CHARS)
        return f"expected {wanted}, got {got}{detail}"
    return f"{clip(repr(left), SUMMARY_CHARS)} {symbol} {clip(repr(right), SUMMARY_CHARS)} is false{detail}"
