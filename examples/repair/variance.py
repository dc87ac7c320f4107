"""Summary statistics of a sample."""

import math


def mean(values):
    """The arithmetic mean of a non-empty sequence."""
    if not values:
        raise ValueError("mean of no values")
    return sum(values) / len(values)


def variance(values):
    """The sample variance (Bessel's correction: divided by n - 1) of at least two values."""
    if len(values) < 2:
        raise ValueError("variance needs at least two values")
    centre = mean(values)
    squares = sum((x - centre) ** 2 for x in values)
    return squares / len(values)


def stdev(values):
    """The sample standard deviation."""
    return math.sqrt(variance(values))


def zscores(values):
    """How many sample standard deviations each value lies from the mean."""
    centre, spread = mean(values), stdev(values)
    return [(x - centre) / spread for x in values]
