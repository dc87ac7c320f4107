"""Splitting a list of results into numbered pages."""

import math


def page_count(total, per_page):
    """How many pages `total` items fill, `per_page` to a page; at least one page."""
    if per_page < 1:
        raise ValueError("per_page must be at least 1")
    return max(1, math.ceil(total / per_page))


def page(items, number, per_page=10):
    """The items on page `number`, counting pages from 1."""
    if number < 1 or number > page_count(len(items), per_page):
        raise IndexError(f"no page {number}")
    start = number * per_page
    return items[start : start + per_page]


def describe(items, number, per_page=10):
    """A line such as "11-20 of 42" for the items page `number` shows."""
    shown = page(items, number, per_page)
    if not shown:
        return f"0 of {len(items)}"
    first = items.index(shown[0]) + 1
    return f"{first}-{first + len(shown) - 1} of {len(items)}"
