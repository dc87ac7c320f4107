"""Merging time ranges."""


def merge(intervals):
    """The union of (start, end) ranges as sorted, non-overlapping ranges; ranges that touch
    (one ends where the next starts) merge into one."""
    merged = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = end
        else:
            merged.append([start, end])
    return [tuple(pair) for pair in merged]


def covered(intervals):
    """How much time the ranges cover together, overlaps counted once."""
    return sum(end - start for start, end in merge(intervals))


def gaps(intervals):
    """The free ranges between the merged ranges, in order."""
    merged = merge(intervals)
    return [(merged[i][1], merged[i + 1][0]) for i in range(len(merged) - 1)]
