"""The eval's uncertainty, with the standard library only: how far a pass rate measured on a few
dozen tasks can be from the model's, and whether two strategies differ by more than chance.

- wilson: a 95% interval for a pass rate (a proportion of tasks); unlike the textbook p ± 1.96·se
  it stays inside [0, 1] and keeps its coverage at 0/n, n/n and small n.
- mcnemar_p: two strategies on the same tasks differ only on the tasks one solved and the other
  didn't (discordant). Were they equally good, each discordant task would go either way with
  probability 1/2: the exact two-sided binomial test on those tasks (McNemar's exact test).
- paired_interval: a 95% interval for the difference in tasks solved, from the same binomial
  on the discordant tasks, so interval and test agree.
- pass_at_k: Chen et al. 2021's unbiased estimate of the chance that k samples hold a pass, from
  n samples of which c passed.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable

Z95 = statistics.NormalDist().inv_cdf(0.975)  # 1.96: the normal quantile of a two-sided 95% interval


def wilson(passed: int, total: int) -> tuple[float, float] | None:
    """The Wilson score interval; None for no tasks."""
    if not total:
        return None
    rate, z2 = passed / total, Z95 * Z95
    center = (rate + z2 / (2 * total)) / (1 + z2 / total)
    half = Z95 / (1 + z2 / total) * math.sqrt(rate * (1 - rate) / total + z2 / (4 * total * total))
    # It holds the rate itself; at 0/n and n/n rounding would put a bound a hair past it.
    return max(0.0, min(rate, center - half)), min(1.0, max(rate, center + half))


def mcnemar_p(only_a: int, only_b: int) -> float:
    """Two-sided: twice the probability of a split at least as uneven, at most 1."""
    discordant = only_a + only_b
    tail = sum(math.comb(discordant, i) for i in range(min(only_a, only_b) + 1))
    return min(1.0, 2 * tail / 2**discordant)


def paired_interval(only_a: int, only_b: int) -> tuple[float, float]:
    """A 95% interval for (solved by a) − (solved by b), given the discordant tasks: the exact
    (Clopper–Pearson) interval for the share of them that went to a, inverting the same binomial
    test as mcnemar_p (so it leaves out 0 exactly when p < 0.05), as a difference in tasks."""
    discordant = only_a + only_b
    if not discordant:
        return 0.0, 0.0
    low = 0.0 if only_a == 0 else solve(lambda share: at_least(only_a, discordant, share) - 0.025)
    high = 1.0 if only_b == 0 else solve(lambda share: 0.025 - (1 - at_least(only_a + 1, discordant, share)))
    return discordant * (2 * low - 1), discordant * (2 * high - 1)


def at_least(k: int, n: int, share: float) -> float:
    """P(X >= k) for X ~ Binomial(n, share), its terms in logarithms: C(n, i) overflows a float
    past n = 1029."""
    if share in (0.0, 1.0):
        return float(share == 1.0 or k <= 0)
    log_share, log_rest = math.log(share), math.log1p(-share)
    return sum(
        math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * log_share + (n - i) * log_rest)
        for i in range(max(k, 0), n + 1)
    )


def solve(rising: Callable[[float], float]) -> float:
    """The share in [0, 1] where a function rising with it crosses 0, by bisection."""
    low, high = 0.0, 1.0
    for _ in range(60):  # 2^-60: far below any digit shown
        middle = (low + high) / 2
        low, high = (middle, high) if rising(middle) < 0 else (low, middle)
    return (low + high) / 2


def pass_at_k(samples: int, passed: int, k: int) -> float:
    """1 − C(n−c, k) / C(n, k): one minus the chance that k of the n samples, drawn without
    replacement, all fail."""
    if samples - passed < k:
        return 1.0
    return 1 - math.comb(samples - passed, k) / math.comb(samples, k)


def mean_interval(values: list[float]) -> tuple[float, float] | None:
    """A normal 95% interval for the mean of per-task figures (pass@k), kept inside [0, 1]."""
    if len(values) < 2:
        return None
    mean, half = statistics.fmean(values), Z95 * statistics.stdev(values) / math.sqrt(len(values))
    return max(0.0, mean - half), min(1.0, mean + half)


def spread(values: list[float]) -> dict[str, float | None]:
    """Over the samples of a repeated eval: the mean, the standard deviation (None for one
    sample) and the range."""
    return {
        "mean": statistics.fmean(values),
        "sd": statistics.stdev(values) if len(values) > 1 else None,
        "min": min(values),
        "max": max(values),
    }
