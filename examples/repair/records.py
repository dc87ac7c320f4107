"""Record highs in a series of daily readings."""

from itertools import accumulate


def running_max(values):
    """The highest reading so far, at each day."""
    return list(accumulate(values, max))


def record_days(values):
    """The days (indices) whose reading beats every earlier one; the first day always does."""
    records = []
    best = 0
    for day, value in enumerate(values):
        if value > best:
            records.append(day)
            best = value
    return records


def last_record(values):
    """The day of the latest record, or None for no readings."""
    days = record_days(values)
    return days[-1] if days else None


def summary(values):
    """A line such as "3 records, the last on day 7"."""
    days = record_days(values)
    if not days:
        return "no readings"
    return f"{len(days)} record{'s' * (len(days) > 1)}, the last on day {days[-1]}"
