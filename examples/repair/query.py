"""Query strings: "a=1&b=2&b=3" and back."""

from urllib.parse import quote_plus, unquote_plus


def parse_query(query, separator=";"):
    """The parameters of `query` (a leading "?" allowed), each name mapped to the list of its
    values in order; a name without "=" gets an empty value."""
    params = {}
    for part in query.lstrip("?").split(separator):
        if not part:
            continue
        name, _, value = part.partition("=")
        params.setdefault(unquote_plus(name), []).append(unquote_plus(value))
    return params


def first(params, name, default=None):
    """The first value of `name`, or `default`."""
    values = params.get(name)
    return values[0] if values else default


def build_query(params):
    """The query string for a mapping of names to lists of values."""
    return "&".join(f"{quote_plus(name)}={quote_plus(value)}" for name, values in params.items() for value in values)
