"""Pull the code out of a model's reply: fences, prose and several blocks. A reply is read under
bot/judge/bounded.py's bounds: whatever is wrong with it is NoCode, with the reason."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from bot import syntax
from bot.judge import bounded

FENCE = re.compile(r"^[ \t]*```[ \t]*([\w+.-]*)[^\n]*\n(.*?)(?:^[ \t]*```[ \t]*$|\Z)", re.M | re.S)
FENCE_LINE = re.compile(r"^[ \t]*```[ \t]*([\w+.-]*)[^\n]*$", re.M)  # an opening or a closing one
PYTHON_TAGS = {"", "python", "py", "python3"}
ALSO_TAGGED = {
    "yaml": ("yml",),
    "sql": ("sqlite", "postgresql", "postgres", "mysql"),
    "javascript": ("js", "jsx", "mjs", "cjs", "node"),
    "typescript": ("ts", "tsx"),
}  # beside the kind's name
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
        syntax.parse(code)
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
    """The candidate the judge gets: the last that parses and defines `required_name`; else the
    last that defines it at all (its syntax error is then what the model is told); else the only
    candidate there is. Without a name, the longest that parses, else the longest."""
    found = candidates(reply)
    if not found:
        raise NoCode("the reply contained no code")
    if required_name:
        for usable in (lambda c: parses(c) and defines(c, required_name), lambda c: defines(c, required_name)):
            chosen = [c for c in found if usable(c)]
            if chosen:
                return chosen[-1]  # a model that refines its answer puts the final version last
        if len(found) == 1:
            return found[0]
        raise NoCode(f"none of the reply's {len(found)} code blocks defines `{required_name}`")
    parsing = [c for c in found if parses(c)] or found
    return max(reversed(parsing), key=len)  # the longest; of equals, the last


def candidates(reply: str) -> list[str]:
    """What in the reply may be the code, in the reply's order, each once: every fenced block's
    body, and every stretch between fence lines, prose cut from around its code. Fences pair up
    into blocks only when they are balanced: a stray one (code, then a lone fence, then prose in
    a block) leaves the code between fence lines, outside any block. The stretches don't overlap,
    so the parses of `unfenced` stay within MAX_CUTS times the reply's length."""
    found: list[tuple[int, str]] = [(m.start(2), m[2]) for m in FENCE.finditer(reply) if m[1].lower() in PYTHON_TAGS]
    begin, tag = 0, ""
    for line in [*FENCE_LINE.finditer(reply), None]:
        end = line.start() if line else len(reply)
        stretch = reply[begin:end]
        if tag.lower() in PYTHON_TAGS:  # after a fence tagged for another language, it is that language's
            found.append((begin, unfenced(stretch)))
            if tag:  # a tagged fence only opens a block: what follows is its body, whole (after its cut: it wins a tie)
                found.append((begin, stretch))
        if line:
            begin, tag = line.end() + 1, line[1]
    texts: dict[str, int] = {}
    for at, text in found:
        for code in (text, dedented(text)):
            code = code.strip("\n") + "\n"
            if code.strip():
                texts[code] = max(at, texts.get(code, at))
    # Of two starting at one place, the longer last: a block's body whole wins over its cut, so
    # what a fenced block holds before its first `def` (a loop, a constant) is judged with it.
    return sorted(texts, key=lambda code: (texts[code], len(code)))


def dedented(code: str) -> str:
    """`code` without the margin all its lines share (code indented as a list item, a method
    written at its class's depth), or as it is when they share none. Unlike textwrap.dedent,
    a line of only whitespace stays as it is when there is no margin."""
    lines = code.split("\n")
    margins = [len(line) - len(line.lstrip(" \t")) for line in lines if line.strip()]
    margin = min(margins, default=0)
    if not margin:
        return code
    return "\n".join(line[margin:] if line.strip() else "" for line in lines)


def parses(code: str) -> bool:
    try:
        syntax.parse(code)
    except (SyntaxError, ValueError, *TOO_DEEP):
        return False
    return True


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
            syntax.parse("\n".join(lines))
            return "\n".join(lines)
        except SyntaxError as exc:
            # The prose starts at the line Python stopped at, or before it (an unclosed bracket).
            lines = lines[: min((exc.lineno or len(lines)), len(lines)) - 1]
        except (ValueError, *TOO_DEEP):
            break
    return ""


def defines(code: str, name: str) -> bool:
    try:
        tree = syntax.parse(code)
    except (SyntaxError, ValueError, *TOO_DEEP):
        return re.search(rf"^(?:async )?(?:def|class) {re.escape(name)}\b", code, re.M) is not None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return True
    return False
