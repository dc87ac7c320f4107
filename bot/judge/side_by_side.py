"""Runs of the suite that don't depend on each other, at the same time: each in a scratch copy of
its own (scratch.Copies), as many at once as `jobs_for` allows, or fewer (`jobs`).

A run waits on its processes, not on autofix: threads are enough, and a run's result comes back
in the order asked whatever order they finish in. An error of one (a UserError of the baseline)
is raised once every run has ended, so no copy is left in use.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")


def cores() -> int:
    """The cores this process may run on (its affinity, which a container or `taskset` narrows)."""
    return len(os.sched_getaffinity(0))


def jobs_for(asked: int | None) -> int:
    """How many runs go at once: `asked` (the `jobs` setting) caps the default, never exceeds it.
    The default is one more than the cores, on more than one: a sandboxed run spends part of its
    time waiting (namespaces, mounts, the interpreter starting), which a run more keeps busy. On 2
    cores, the proof's 3 runs of a one-line fix took 0.50 s at once against 0.63 s in two rounds,
    and a whole red-CI step about 8% less (benchmarks/red_ci.py)."""
    have = cores()
    default = have + 1 if have > 1 else 1
    return max(1, min(asked or default, default))


def at_once(calls: Sequence[Callable[[], T]], jobs: int) -> list[T]:
    """Each call's result, in order; at most `jobs` going at once."""
    if jobs <= 1 or len(calls) <= 1:
        return [call() for call in calls]
    with ThreadPoolExecutor(max_workers=min(jobs, len(calls)), thread_name_prefix="autofix-run") as pool:
        futures = [pool.submit(call) for call in calls]
        return [future.result() for future in futures]
