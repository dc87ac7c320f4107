"""The house's plan holds: no module of bot/ imports, directly or through others, a module that
imports it back, counting the imports inside functions that once hid three such cycles. (The
layers themselves are import-linter's contract in pyproject.toml, run by `make lint`.)"""

from __future__ import annotations

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
