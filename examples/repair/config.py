"""A tiny `key = value` configuration format."""


def parse_line(line):
    """A (key, value) pair from a `key = value` line, or None for a blank line or a comment."""
    line = line.strip()
    if not line or line.startswith("#"):
        return None
    if "=" not in line:
        raise ValueError(f"not a key = value line: {line!r}")
    key, value = line.split("=")
    return key.strip(), value.strip()


def parse(text):
    """The settings `text` holds, a later line overriding an earlier one with the same key."""
    settings = {}
    for line in text.splitlines():
        pair = parse_line(line)
        if pair is not None:
            settings[pair[0]] = pair[1]
    return settings


def as_bool(settings, key, default=False):
    """A setting read as a yes/no flag."""
    value = settings.get(key)
    if value is None:
        return default
    return value.lower() in ("1", "true", "yes", "on")
