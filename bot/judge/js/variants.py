"""Variants of a fix (the proof's mutants and null mutants) judged in one Jest or node:test run.

A Jest run's cost is mostly Jest starting; judged one run each, the proof's variants of a
one-line fix cost four to eight runs. Here the changed module becomes its mutant schema
(bot/lang/js_schema.py: every variant's changed functions in one file, a global picking the copy
that runs), and each test file the variants are judged by is copied once per variant beside
itself, under a name drawn from the suite's words as the twins' are, with the global set on its
first line: Jest runs every test file in a context and a module registry of its own, node --test
every file in a process of its own (unless the command sets its isolation), so each copy runs its
variant. The copies' cases come back under their original's name, one run per variant.

The copies are the run's planted files (run.py): written before it, removed after, not sifted.
They carry no twins: a forger gains nothing in the proof that its null mutants don't catch (a
report forged to fail a variant fails a null one as surely), and the fix the proof judges passed
the gate's twins. What is not guaranteed: code that runs while a test file's imports load (they
are hoisted above the global's line in a module) sees the fix itself, not the variant, so a mutant
only such code would reveal survives. Jest and node:test alone (Vitest may share a worker's
global object between files), and JavaScript files alone (TypeScript's checker would refuse the
untyped global): anything else, and each variant is a run of its own."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from bot import safefs
from bot.judge.integrity import Case
from bot.judge.js import canaries
from bot.judge.js.command import Started
from bot.judge.js.run import run_js
from bot.judge.twins import Planted, decided
from bot.judge.verdict import TestRun
from bot.lang.js_schema import schema, selecting
from bot.sandbox.tiers import Limits, Sandbox

SCRIPTS = (".js", ".cjs", ".mjs", ".jsx")
SOURCE_CAP = 1 << 20  # bytes of a changed file or a test file read


def run_variants(
    sandbox: Sandbox,
    started: Started,
    work: Path,
    limits: Limits,
    variants: Sequence[Mapping[str, str]],
    *,
    only: Iterable[str],
    writable: Sequence[str] | None = None,
) -> list[TestRun] | None:
    """Each variant's run of the tests `only` (their files: Jest selects by file), in order;
    None when they can't share one run."""
    if started.runner not in ("jest", "node") or any("isolation" in word for word in started.argv):
        return None
    token = secrets.token_hex(4)
    selector = f"autofix{token}"
    values = secrets.SystemRandom().sample(range(1, 1 << 30), len(variants))
    schemata: dict[str, str] = {}
    originals: dict[str, bytes] = {}
    for path in sorted({path for variant in variants for path in variant}):
        data = readable(work, path)
        if data is None:
            return None
        code = data.decode("utf-8", "replace")
        chosen = [(value, variant[path]) for value, variant in zip(values, variants, strict=True) if path in variant]
        made = schema(code, [text for _, text in chosen], [value for value, _ in chosen], selector, f"_{token}")
        if made is None:
            return None
        schemata[path], originals[path] = made, data
    tests = {original: readable(work, original) for original in sorted({test.split("::", 1)[0] for test in only})}
    words = canaries.vocabulary(only)
    copies: list[Planted] = []
    owner: dict[str, tuple[int, str]] = {}  # a copy's path: its variant, its original
    for index, value in enumerate(values):
        for original, data in tests.items():
            name = canaries.planted_name(original, words)
            selected = selecting(data.decode("utf-8", "replace"), selector, value) if data is not None else None
            if selected is None or name is None or name in owner or os.path.lexists(work / name):
                return None
            copies.append(Planted(name, selected, ()))
            owner[name] = (index, original)
    try:
        for path, text in schemata.items():
            safefs.write_file(work, path, text.encode("utf-8"))
        run = run_js(sandbox, started, work, limits, {}, writable=writable, only=set(owner), planted=copies, sift=False)
    finally:
        for path, data in originals.items():
            safefs.write_file(work, path, data)
    if run.cases is None or run.outcome.killed:
        return None
    reported = {case.test_id.partition("::")[0] for case in run.cases}
    if set(owner) - reported:
        return None  # a copy the runner didn't collect (its configuration names files): no verdict of it
    cases: list[list[Case]] = [[] for _ in variants]
    for case in run.cases:
        path, _, rest = case.test_id.partition("::")
        if path not in owner:
            return None  # a case of no copy: not a run of the variants alone
        index, original = owner[path]
        cases[index].append(replace(case, test_id=f"{original}::{rest}" if rest else f"{original}::"))
    return [decided(replace(run.outcome), kept, [], True) for kept in cases]


def readable(work: Path, path: str) -> bytes | None:
    """A JavaScript file's bytes, or None."""
    return safefs.read_regular(work / path, SOURCE_CAP) if path.endswith(SCRIPTS) else None
