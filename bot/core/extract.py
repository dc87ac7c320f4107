"""Pull the code out of a model's reply: fences, prose and several blocks. A reply is read under
bot/judge/bounded.py's bounds: whatever is wrong with it is NoCode, with the reason."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from bot.judge import bounded

FENCE = re.compile(r"^[ \t]*```[ \t]*([\w+.-]*)[^\n]*\n(.*?)(?:^[ \t]*```[ \t]*$|\Z)", re.M | re.S)
PYTHON_TAGS = {"", "python", "py", "python3"}
ALSO_TAGGED = {"yaml": ("yml",), "sql": ("sqlite", "postgresql", "postgres", "mysql")}  # beside the kind's name
CODE_START = re.compile(r"^(?:def |class |import |from |@|async def |if __name__)", re.M)
# Bare code followed by prose is cut where Python says the prose starts, at most this many times:
# a reply whose every cut still fails would otherwise be parsed once per line.
MAX_CUTS = 20
# What Python's parser raises for code it can't hold (`- - - ... 1`, 100,000 deep), rather than a
# SyntaxError: such code could be neither judged nor shown, so the reply is refused here.
TOO_DEEP = (MemoryError, RecursionError)


class NoCode(bounded.Unreadable):
    """The reply holds no usable code; the reason is its message."""


def extract_code(reply: str, required_name: str | None = None) -> str:
    code = read(reply, lambda: python_code(reply, required_name))
    try:
        ast.parse(code)
    except TOO_DEEP:
        raise NoCode("the code nests too deeply for Python to parse it") from None
    except (SyntaxError, ValueError):
        pass  # judged, and told as what it is
    return code


def read(reply: str, extract: Callable[[], str]) -> str:
    """`extract()` of a reply that can be read at all, within the bounds."""
    try:
        bounded.checked(reply, "the reply")
    except bounded.Unreadable as exc:
        raise NoCode(exc.reason) from None
    try:
        return bounded.read(extract)
    except NoCode:
        raise
    except bounded.Unreadable as exc:
        raise NoCode(f"reading it failed: {exc.reason}") from None


def python_code(reply: str, required_name: str | None) -> str:
    blocks = [body for tag, body in FENCE.findall(reply) if tag.lower() in PYTHON_TAGS]
    if not blocks:
        blocks = [unfenced(reply)]
    blocks = [b.strip("\n") + "\n" for b in blocks if b.strip()]
    if not blocks:
        raise NoCode("the reply contained no code")
    if required_name:
        defining = [b for b in blocks if defines(b, required_name)]
        if defining:
            return defining[-1]  # a model that refines its answer puts the final version last
        if len(blocks) == 1:
            return blocks[0]
        raise NoCode(f"none of the reply's {len(blocks)} code blocks defines `{required_name}`")
    return max(blocks, key=len)


def extract_block(reply: str, kind: str) -> str:
    """The document or query in a reply: its last fenced block tagged `kind` (json, yaml, sql) or
    untagged. The last, as a model that refines its answer puts the final version last; and only
    a fenced one, as prose around it would parse as YAML."""
    return read(reply, lambda: block_of(reply, kind))


def block_of(reply: str, kind: str) -> str:
    tags = {"", kind, *ALSO_TAGGED.get(kind, ())}
    blocks = [body for tag, body in FENCE.findall(reply) if tag.lower() in tags and body.strip()]
    if not blocks:
        raise NoCode(f"the reply contained no ```{kind} block")
    return blocks[-1].strip("\n") + "\n"


def unfenced(reply: str) -> str:
    """Drop prose around bare code: start at the first code-looking line, cut trailing prose."""
    match = CODE_START.search(reply)
    if not match:
        return ""
    lines = reply[match.start() :].splitlines()
    for _ in range(MAX_CUTS):
        if not lines:
            break
        try:
            ast.parse("\n".join(lines))
            return "\n".join(lines)
        except SyntaxError as exc:
            # The prose starts at the line Python stopped at, or before it (an unclosed bracket).
            lines = lines[: min((exc.lineno or len(lines)), len(lines)) - 1]
        except (ValueError, *TOO_DEEP):
            break
    return ""


def defines(code: str, name: str) -> bool:
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, *TOO_DEEP):
        return re.search(rf"^(?:async )?(?:def|class) {re.escape(name)}\b", code, re.M) is not None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return True
    return False
