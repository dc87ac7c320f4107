"""Variants of a fix (the proof's mutants and null mutants) judged in one `go test` run.

Judged one run each, every variant compiled, vetted and linked its package's test binary anew:
on go-humanize the proof's 8 runs were half of a red-CI repair. Here every changed file becomes
its mutant schema (bot/lang/go_schema.py: all the variants' functions in one package, a number
picking the one that runs), a file autofix writes beside it declares that number, read from an
environment variable whose name is drawn for the run, and the staged run (staged.py) builds each
test binary once, then runs it once per variant with the variable set, each variant's events
after a line of their own. The twins are planted once, among the tests the variants are judged
by, and sifted out of each variant's events as out of any run's. The schema and the selector's
file are emptied with the planted files once every binary is built: code that read its own file
would find every variant's code there, and which number picks which.

A variant's binaries get a share of the run's time: a variant stopped there has its run marked
stopped (a mutant that loops was told apart; a null mutant stopped, on a loaded machine, sends the
proof back to judging each variant in a run of its own, which judges it again). No schema (a
variant changes more than functions), a schema that doesn't build or vet, or a run stopped as a
whole: None, and each variant is judged in a run of its own."""

from __future__ import annotations

import os
import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from bot import safefs
from bot.judge.go import canaries, report
from bot.judge.go import run as go_run
from bot.judge.go.command import GoTest
from bot.judge.twins import decided
from bot.judge.verdict import TestRun
from bot.lang.go_schema import package_of, schema, selector_file
from bot.sandbox.tiers import Limits, Outcome, Sandbox

SEPARATOR = re.compile(rb"^autofix-variant (\d+)\n", re.M)  # staged.py's line before a variant's events
SOURCE_CAP = 1 << 20  # bytes of a changed file read
LEAST_SECONDS = 5.0  # a variant's binaries may always take this long
STOPPED = "a test binary ran past the variant's share of the run's time"


def run_variants(
    sandbox: Sandbox,
    go: GoTest,
    work: Path,
    limits: Limits,
    variants: Sequence[Mapping[str, str]],
    *,
    last: Mapping[str, str],
    only: Iterable[str],
    prefer: Iterable[str] = (),
    avoid: Iterable[str] = (),
    writable: Sequence[str] | None = None,
) -> list[TestRun] | None:
    """Each variant's run of the tests `only` (files written over the work folder's), in order;
    None when they can't share one run."""
    token = secrets.token_hex(4)
    selector, variable = f"autofix{token}", f"AUTOFIX_{secrets.token_hex(6).upper()}"
    values = secrets.SystemRandom().sample(range(1, 1 << 30), len(variants))
    schemata: dict[str, str] = {}
    originals: dict[str, bytes] = {}
    packages: dict[str, str] = {}
    for path in sorted({path for variant in variants for path in variant}):
        if not path.endswith(".go") or path.endswith("_test.go"):
            return None
        data = safefs.read_regular(work / path, SOURCE_CAP)
        if data is None:
            return None
        code = data.decode("utf-8", "replace")
        chosen = [(value, variant[path]) for value, variant in zip(values, variants, strict=True) if path in variant]
        made = schema(code, [text for _, text in chosen], [value for value, _ in chosen], selector, f"_{token}")
        package = package_of(code)
        if made is None or not package or packages.get(os.path.dirname(path), package) != package:
            return None
        schemata[path], originals[path] = made, data
        packages[os.path.dirname(path)] = package
    module = go_run.module_of(work)
    cache = go_run.warm(sandbox, go, work, limits)
    twins, words = go_run.selected(go, work, module, last, prefer, avoid, only, True)
    words = [*words[:4], "-vet=off", *words[4:]]  # vet judged the fix; a variant is judged by the tests alone
    switches = {os.path.join(folder, f"zz_autofix_{token}.go"): package for folder, package in packages.items()}
    seconds = max(LEAST_SECONDS, limits.wall_seconds / (len(variants) + 1))
    try:
        for path, text in schemata.items():
            safefs.write_file(work, path, text.encode("utf-8"))
        for switch, package in switches.items():
            safefs.write_file(work, switch, selector_file(package, selector, variable).encode("utf-8"))
        go_run.write_twins(work, twins)
        outcome, stream = go_run.started(
            sandbox,
            go,
            work,
            limits,
            words,
            cache,
            writable,
            twins,
            module,
            {"variable": variable, "values": values, "seconds": seconds},
            [*schemata, *switches],  # emptied once built: no variant reads which code the others are
        )
    finally:
        for one in twins:
            safefs.remove_file(work, one.path)
        for switch in switches:
            safefs.remove_file(work, switch)
        for path, data in originals.items():
            safefs.write_file(work, path, data)
    if stream is None or outcome.killed:
        return None
    return sections(stream, len(variants), module, twins, outcome.seconds)


def sections(
    stream: bytes, count: int, module: str, twins: Sequence[canaries.Planted], seconds: float
) -> list[TestRun] | None:
    """Each variant's run from the stream: the build's events, then its own."""
    parts = SEPARATOR.split(stream)
    common, rest = parts[0], parts[1:]
    if len(rest) != 2 * count or [int(rest[i]) for i in range(0, len(rest), 2)] != list(range(count)):
        return None
    runs = []
    for events in rest[1::2]:
        found = report.cases(report.events(common + events), module)
        if found is None:
            return None
        kept, forged = go_run.sifted(found, twins)
        stopped = STOPPED if re.search(rb"^autofix-stopped$", events, re.M) else None
        runs.append(decided(Outcome(1, "", 0, seconds, stopped), kept, forged, True))
    return runs
