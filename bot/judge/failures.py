"""Failing tests told one by one, not as the tail of the output: each test's pytest node id (to
paste into pytest), its message and the frames of its traceback that lie in the work folder, with
pytest's own introspection of both sides of a failing assert; the test function's lines up to the
failure, from its file when the traceback style left them out (`--tb=short`, `native`); the same
error at the same line counted once ("and 4 more tests like this"); the failures that touch the
target first. With many failures, the tail of the output would keep only pytest's summary.

pytest cuts the values a failing assertion compared ("[0, 1, 2, ...]", "Use -v to get more
diff"), and the model can't pass -v: the values autofix's plugin took from that assertion in the
judged run are shown whole instead, cut only around their first difference when long, and a
parametrized test's parameters are named; pytest's lines asking for -v go."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from bot import safefs, syntax
from bot.judge.assertions import cut_pair
from bot.judge.integrity import SOURCE_CAP, Case
from bot.judge.js.test_source import FRAME as JS_FRAME
from bot.judge.js.test_source import test_source as js_source
from bot.text import clip_line

SEPARATOR = re.compile(r"^(?:_ ){2,}_\s*$", re.M)  # between the entries of pytest's long traceback
LOCATION = re.compile(r"^(?P<path>[^\s:][^:\n]*):(?P<line>\d+): ", re.M)  # "tests/test_x.py:12: in f"
NATIVE = re.compile(r'^\s*File "(?P<path>[^"\n]+)", line (?P<line>\d+)', re.M)  # --tb=native
SCRIPT_SUFFIXES = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx")
LIKE_THIS_SHOWN = 3  # names of the other tests that fail the same way
SOURCE_LINES = 30  # of a test function shown up to its failure
VALUE_CHARS = 1_000  # of one compared value shown: whole up to this, else cut around the first difference
PARAM_CHARS = 300  # of one parameter's value (the plugin cuts it so too)
# pytest's advice to run it more verbosely, which the model can't take: the values are shown instead.
ASK_VERBOSE = re.compile(r"^E\s+(?:Use -v to get (?:more|the full) diff|.*use '?-vv?'? to show.*)\n", re.M | re.I)
# pytest's long style shows the test's source with ">" at the failing line, and strips the text,
# which takes the first line's indentation with it.
LONG_STYLE = re.compile(r"^>   ", re.M)


def node_id(test_id: str, details: str = "") -> str:
    """`tests.test_calc::TestAdd::test_add[1]` as pytest names it: `tests/test_calc.py::TestAdd::test_add[1]`.
    The plugin's dotted module is ambiguous (`tests/v1.2/test_x.py`); the traceback's own path
    for it, when `details` has one, is what pytest takes."""
    module, sep, rest = test_id.partition("::")
    if script_id(test_id):
        return test_id  # a JavaScript runner's: the file's path already
    named = (path for path, _ in LOCATION.findall(details) if path.endswith(".py"))
    path = next((p for p in named if p[:-3].replace("/", ".") == module), f"{module.replace('.', '/')}.py")
    return f"{path}{sep}{rest}"


def script_id(test_id: str) -> bool:
    """Whether `test_id` is a JavaScript runner's (`test/x.test.js::suite > test`) or Go's
    (`./calc::TestAdd`, `.::TestAdd`): no pytest module's."""
    module = test_id.partition("::")[0]
    return "/" in module or module == "." or module.endswith(SCRIPT_SUFFIXES)


def own_frames(details: str, root: str) -> str:
    """The entries of a pytest traceback located in the work folder (paths relative to it, or
    under `root`); library frames go. The last entry stays whatever it is: it holds the error."""
    details = details.replace(root.rstrip("/") + "/", "") if root else details
    entries = SEPARATOR.split(details)
    kept = [entry for entry in entries[:-1] if not is_outside(entry)] + entries[-1:]
    return "\n_ _ _\n".join(entry.strip("\n") for entry in kept if entry.strip())


def is_outside(entry: str) -> bool:
    found = LOCATION.findall(entry)
    return bool(found) and found[-1][0].startswith("/")


def where(details: str) -> str:
    """The last location of a traceback: where the error was raised (a JavaScript stack's first
    frame, which it lists innermost first)."""
    found = LOCATION.findall(details)
    if found:
        return f"{found[-1][0]}:{found[-1][1]}"
    frame = JS_FRAME.search(details)
    return f"{frame['path']}:{frame['line']}" if frame else ""


def per_test(cases: list[Case], target: str, root: str, sources: str = "") -> str:
    """The failing tests, grouped by (message, where), the groups touching `target` first;
    `sources` is the folder whose test files show a test's lines when the traceback doesn't."""
    groups: dict[tuple[str, str], list[tuple[Case, str]]] = {}
    for case in cases:
        frames = own_frames(case.details, root)
        groups.setdefault((case.message, where(frames)), []).append((case, frames))
    ordered = sorted(groups.values(), key=lambda group: target not in group[0][0].details)
    parts = []
    for group in ordered:
        (first, frames), others = group[0], [case for case, _ in group[1:]]
        text = f"### {node_id(first.test_id, frames)}\n{first.outcome}: {first.message}"
        if first.params:
            text += f"\n{parameters(first)}"
        whole = whole_values(first, f"{first.message}\n{frames}")
        if whole:
            text += f"\n{whole}"
            frames = ASK_VERBOSE.sub("", frames)
        source = (js_source if script_id(first.test_id) else test_source)(
            node_id(first.test_id, frames), frames, sources
        )
        if source:
            text += f"\n{source}"
        if frames:
            text += f"\n{indented(frames)}"
        if others:
            named = ", ".join(node_id(case.test_id) for case in others[:LIKE_THIS_SHOWN])
            text += (
                f"\n(and {len(others)} more test{'s' * (len(others) > 1)} like this: {named}"
                f"{', ...' if len(others) > LIKE_THIS_SHOWN else ''})"
            )
        parts.append(text)
    return "\n\n".join(parts)


def parameters(case: Case) -> str:
    """A parametrized test's parameters, each value cut to PARAM_CHARS."""
    return "parameters: " + ", ".join(f"{name}={clip_line(value, PARAM_CHARS)}" for name, value in case.params)


def whole_values(case: Case, shown: str) -> str:
    """The values `case`'s failing assertion compared, when pytest cut one of them in `shown`; "" else."""
    if case.compared is None or all(value in shown for value in case.compared[1:]):
        return ""
    return values(*case.compared)


def with_whole_values(case: Case) -> str:
    """`case`'s details (a gate's feedback: bot/judge/gate.py) with a parametrized test's
    parameters named, and the values its failing assertion compared, whole, in place of pytest's
    request for -v."""
    text = f"{parameters(case)}\n{case.details}" if case.params else case.details
    whole = whole_values(case, f"{case.message}\n{case.details}")
    return f"{ASK_VERBOSE.sub('', text).rstrip()}\n{whole}" if whole else text


def values(op: str, left: str, right: str) -> str:
    """The failing assertion's operands whole, or around their first difference when long."""
    left, right = cut_pair(left, right, VALUE_CHARS)
    return f"the assertion compared (left {op} right), in full:\n  left:  {left}\n  right: {right}"


def indented(frames: str) -> str:
    """The first line of a long-style traceback given back the indentation pytest stripped."""
    first, newline, rest = frames.partition("\n")
    source_first = not first.startswith((" ", ">", "E ")) and LOCATION.match(first) is None
    return f"    {first}{newline}{rest}" if source_first and LONG_STYLE.search(frames) else frames


def test_source(node: str, frames: str, sources: str) -> str:
    """The test function's lines up to the one that failed (">"), read from its file under
    `sources`, when `frames` don't show them already; "" when they do or it can't be found."""
    path, _, rest = node.partition("::")
    names = [name.split("[", 1)[0] for name in rest.split("::")]
    found = sorted([*LOCATION.finditer(frames), *NATIVE.finditer(frames)], key=lambda match: match.start())
    failed = [int(match["line"]) for match in found if match["path"] == path]
    if not sources or not failed or not names[-1] or ".." in Path(path).parts:
        return ""
    if re.search(rf"^\s*(?:async\s+)?def {re.escape(names[-1])}\(", frames, re.M):
        return ""
    data = safefs.read_regular(Path(sources) / path, SOURCE_CAP)
    try:
        text = (data or b"").decode("utf-8")
        function = defined(syntax.parse(text).body, names)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return ""
    line = failed[0]
    if function is None or not function.lineno <= line <= (function.end_lineno or 0):
        return ""
    lines = text.splitlines()[function.lineno - 1 : line]
    if len(lines) > SOURCE_LINES:
        lines = [lines[0], "    ..."] + lines[len(lines) - SOURCE_LINES + 2 :]
    shown = [f"    {text}" for text in lines[:-1]] + [f">   {lines[-1]}"]
    return f"{path}:{function.lineno}, the test up to its failing line:\n" + "\n".join(shown)


def defined(body: list[ast.stmt], names: list[str]) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The function `names` (`TestX`, `test_y`) reaches through the classes of `body`."""
    for node in body:
        if len(names) > 1 and isinstance(node, ast.ClassDef) and node.name == names[0]:
            return defined(node.body, names[1:])
        if len(names) == 1 and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == names[0]:
            return node
    return None


def summary_line(output: str) -> str:
    """pytest's last line ("2 failed, 9 passed in 0.31s"), or ""."""
    lines = [line.strip("= ") for line in output.strip().splitlines()[-3:] if line.strip()]
    return next((line for line in reversed(lines) if re.search(r"\b(passed|failed|error|deselected)\b", line)), "")
