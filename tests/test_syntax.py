"""Every parse of Python in autofix's own process goes through bot/syntax.py's lock: CPython 3.11
raises `SystemError: AST constructor recursion depth mismatch` when two threads parse at once
(seen in this suite, an eval with --jobs 2). The sandboxed modules run in their own processes."""

import ast
from pathlib import Path

import bot

PACKAGE = Path(bot.__file__).parent
UNLOCKED = {"parse", "literal_eval"}


def direct_uses(source: str) -> list[int]:
    """The lines of `source` that call `ast.parse` or `ast.literal_eval` themselves."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute)
        and node.attr in UNLOCKED
        and isinstance(node.value, ast.Name)
        and node.value.id == "ast"
    ]


def test_no_module_of_autofix_s_process_parses_python_outside_the_lock():
    modules = [p for p in PACKAGE.rglob("*.py") if "sandboxed" not in p.parts and p.name != "syntax.py"]
    assert len(modules) > 100
    found = {str(p.relative_to(PACKAGE)): direct_uses(p.read_text(encoding="utf-8")) for p in modules}
    assert {path: lines for path, lines in found.items() if lines} == {}


def test_the_check_sees_a_direct_use():
    source = (PACKAGE / "judge" / "checks.py").read_text(encoding="utf-8")  # it parses, through the lock
    assert direct_uses(source) == [] and source.count("syntax.parse(") == 2
    unlocked = source.replace("syntax.parse(", "ast.parse(")
    assert len(direct_uses(unlocked)) == 2


def test_segments_are_what_ast_gives_for_every_node():
    from bot.syntax import Segments

    code = (
        "x = 'héllo'  # ünïcode\r\ndef f(a,\n      b):\r    return {'k': a, 'é': b}\n"
        "class C:\n    y = \"\\f\"\x0c\n    z = [1,\n  2]\nw = f(1, 2); v = '𝕏'\n"
    )
    segments = Segments(code)
    nodes = [node for node in ast.walk(ast.parse(code)) if hasattr(node, "end_lineno")]
    assert len(nodes) == 30
    assert [segments.of(node) for node in nodes] == [ast.get_source_segment(code, node) for node in nodes]
