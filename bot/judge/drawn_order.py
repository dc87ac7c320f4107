"""Variants judged together run in an order drawn for the run (gate.Suite.run_variants, whatever
the runner): the proof lists its null mutants first, and code that counted its runs, or read
which copy of itself runs, would know which variants those are."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from typing import TypeVar

V = TypeVar("V")
R = TypeVar("R")


def drawn(count: int) -> list[int]:
    return secrets.SystemRandom().sample(range(count), count)


def in_drawn_order(variants: Sequence[V], judge: Callable[[list[V]], list[R] | None]) -> list[R] | None:
    """`judge`'s results for `variants`, given them in a drawn order, back in theirs."""
    order = drawn(len(variants))
    results = judge([variants[i] for i in order])
    if results is None:
        return None
    back: list[R] = list(results)
    for place, index in enumerate(order):
        back[index] = results[place]
    return back
