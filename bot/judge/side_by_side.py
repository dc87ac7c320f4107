"""Runs of the suite that don't depend on each other, at the same time: each in a scratch copy of
its own (scratch.Copies), as many at once as the cores this process may use, or fewer (`jobs`).

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
    """How many runs go at once: `asked` (the `jobs` setting) caps the cores, never exceeds them."""
    return max(1, min(asked or cores(), cores()))


def at_once(calls: Sequence[Callable[[], T]], jobs: int) -> list[T]:
    """Each call's result, in order; at most `jobs` going at once."""
    if jobs <= 1 or len(calls) <= 1:
        return [call() for call in calls]
    with ThreadPoolExecutor(max_workers=min(jobs, len(calls)), thread_name_prefix="autofix-run") as pool:
        futures = [pool.submit(call) for call in calls]
        return [future.result() for future in futures]
