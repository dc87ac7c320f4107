"""Comparing dotted version numbers such as "1.10.2"."""


def parse(version):
    """The numeric parts of `version`, missing trailing parts counting as 0 ("1.2" is 1.2.0)."""
    parts = version.strip().split(".")
    if not all(part.isdigit() for part in parts):
        raise ValueError(f"not a version: {version!r}")
    numbers = tuple(parts)
    return numbers + (0,) * (3 - len(numbers))


def compare(a, b):
    """-1, 0 or 1 as version `a` is older than, the same as, or newer than `b`."""
    left, right = parse(a), parse(b)
    return (left > right) - (left < right)


def newest(versions):
    """The newest of `versions`."""
    return max(versions, key=parse)


def satisfies(version, minimum):
    """Whether `version` is `minimum` or newer."""
    return compare(version, minimum) >= 0
