"""Histograms of numeric data."""


def bin_edges(low, high, bins):
    """The `bins + 1` edges of equal-width bins from `low` to `high`."""
    if high <= low or bins < 1:
        raise ValueError("need high > low and at least one bin")
    width = (high - low) / bins
    return [low + i * width for i in range(bins)] + [high]


def bin_index(value, low, high, bins):
    """Which bin `value` falls in: [low, low + width) is bin 0, and the last bin includes `high`."""
    if not low <= value <= high:
        raise ValueError(f"{value} is outside [{low}, {high}]")
    index = int((value - low) / (high - low) * bins)
    return index


def histogram(values, bins=10):
    """How many values fall in each of `bins` equal-width bins spanning min to max."""
    low, high = min(values), max(values)
    if low == high:
        return [len(values)] + [0] * (bins - 1)
    counts = [0] * bins
    for value in values:
        counts[bin_index(value, low, high, bins)] += 1
    return counts


def bars(counts, width=20):
    """One line of '#' per bin, the fullest bin `width` long."""
    top = max(counts) or 1
    return ["#" * round(count * width / top) for count in counts]
