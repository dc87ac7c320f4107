"""Moving averages."""


def moving_average(values, n):
    """The mean of every window of `n` consecutive values, in order."""
    if n <= 0:
        raise ValueError("n must be positive")
    return [sum(values[i : i + n]) / n for i in range(len(values) - n)]
