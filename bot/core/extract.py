"""Pull the code out of a model's reply: fences, prose and several blocks."""

from __future__ import annotations

import ast
import re

FENCE = re.compile(r"^[ \t]*```[ \t]*([\w+.-]*)[^\n]*\n(.*?)(?:^[ \t]*```[ \t]*$|\Z)", re.M | re.S)
PYTHON_TAGS = {"", "python", "py", "python3"}
ALSO_TAGGED = {"yaml": ("yml",), "sql": ("sqlite", "postgresql", "postgres", "mysql")}  # beside the kind's name
CODE_START = re.compile(r"^(?:def |class |import |from |@|async def |if __name__)", re.M)


class NoCode(ValueError):
    """The reply holds no usable Python code."""


def extract_code(reply: str, required_name: str | None = None) -> str:
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
    while lines:
        try:
            ast.parse("\n".join(lines))
            return "\n".join(lines)
        except SyntaxError:
            lines.pop()
    return ""


def defines(code: str, name: str) -> bool:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return re.search(rf"^(?:async )?(?:def|class) {re.escape(name)}\b", code, re.M) is not None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return True
    return False
