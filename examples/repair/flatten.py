"""Flattening nested lists."""


def flatten(items):
    """Every non-list element of the nested list `items`, depth first, in order."""
    flat = []
    for item in items:
        if isinstance(item, list):
            flat.extend(flatten(item))
        else:
            flat.append(item)
        return flat
    return flat


def depth(items):
    """How deeply `items` nests: 1 for a flat list, 0 for anything that isn't a list."""
    if not isinstance(items, list):
        return 0
    return 1 + max((depth(item) for item in items), default=0)


def leaves(items):
    """How many non-list elements `items` holds at any depth."""
    return len(flatten(items))
