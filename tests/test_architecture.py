"""The house's plan holds: no module of bot/ imports, directly or through others, a module that
imports it back, counting the imports inside functions that once hid three such cycles. (The
layers themselves are import-linter's contract in pyproject.toml, run by `make lint`.)"""

from __future__ import annotations

import ast
from pathlib import Path

import grimp


def cycles(graph: grimp.ImportGraph) -> list[tuple[str, ...]]:
    found = []
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back is not None:
                found.append((importer, *back))
    return found


def test_no_module_imports_back_what_imports_it():
    assert cycles(grimp.build_graph("bot")) == []


def test_a_cycle_is_found_when_there_is_one():
    graph = grimp.ImportGraph()
    for module in ("bot", "bot.flow", "bot.library", "bot.leaf"):
        graph.add_module(module)
    graph.add_import(importer="bot.flow", imported="bot.library")
    graph.add_import(importer="bot.library", imported="bot.leaf")
    assert cycles(graph) == []
    graph.add_import(importer="bot.leaf", imported="bot.flow")  # e.g. evaluate importing cli.warn
    assert ("bot.flow", "bot.library", "bot.leaf", "bot.flow") in cycles(graph)


SANDBOXED = Path(__file__).parent.parent / "bot" / "judge" / "sandboxed"
# What the sandboxed sources may import: the standard library's, the test runners', and PyYAML
# (the checks runner parses a YAML target with autofix's own copy, on autofix's own path).
INSIDE = {"builtins", "ctypes", "hashlib", "hmac", "importlib", "json", "marshal", "os", "select", "sqlite3", "sys"}
INSIDE |= {"time"}
INSIDE |= {"traceback", "types", "unittest", "yaml", "pytest", "site", "sitecustomize"}
INSIDE |= {"linecache"}  # the checks runner's tracebacks, as traceback reads source lines
INSIDE |= {"runpy"}  # the unittest hook: what `python -m` starts the module with, whose frames it checks
INSIDE |= {"_thread", "_pytest", "ast"}  # the audit hook's per-thread guard; the canaries' twins
INSIDE |= {"gc", "_signal"}  # the audit hook's census of code at load; the recorder deferring signal handlers
INSIDE |= {"faulthandler"}  # a hung test's stack, dumped just before its run is stopped


def imported_by(path: Path) -> set[str]:
    """The modules a file imports, by their full names ('.' for a relative import)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            found.add("." if node.level else node.module or "")
    return found


def test_what_runs_in_the_sandbox_imports_nothing_of_autofix():
    # bot/judge/sandboxed/ is the trust boundary's inside: its files run in the candidate's
    # sandbox, handed over as source or code, never imported by autofix.
    files = sorted(SANDBOXED.glob("*.py"))
    assert [f.name for f in files] == [
        "audit.py",
        "checks_runner.py",
        "collector.py",
        "contents.py",
        "editables.py",
        "hidden.py",
        "memory.py",
        "pytest_plugin.py",
        "seal.py",
        "sql_runner.py",
        "unittest_hook.py",
    ]
    for path in files:
        assert {name.split(".")[0] for name in imported_by(path)} <= INSIDE, path.name
    # and nothing outside imports them: autofix hands them over, it never runs them itself
    outside = [p for p in SANDBOXED.parent.parent.rglob("*.py") if SANDBOXED not in p.parents]
    assert [p for p in outside if any("sandboxed" in name for name in imported_by(p))] == []
