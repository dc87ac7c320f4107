"""Durations as clock-style and human-readable text."""


def split_seconds(total):
    """(hours, minutes, seconds) of a whole number of seconds."""
    if total < 0:
        raise ValueError("a duration can't be negative")
    hours = total // 3600
    minutes = total // 60
    seconds = total % 60
    return hours, minutes, seconds


def clock(total):
    """`total` seconds as H:MM:SS."""
    hours, minutes, seconds = split_seconds(total)
    return f"{hours}:{minutes:02}:{seconds:02}"


def humanize(total):
    """`total` seconds in words: "1 h 5 min", "3 min 20 s", "45 s"."""
    hours, minutes, seconds = split_seconds(total)
    if hours:
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    if minutes:
        return f"{minutes} min {seconds} s" if seconds else f"{minutes} min"
    return f"{seconds} s"
