"""A shopping cart's totals, in cents."""


def line_total(unit_cents, quantity):
    """What `quantity` of an item costs."""
    return unit_cents * quantity


def subtotal(lines):
    """The sum of the lines, each a (unit_cents, quantity) pair."""
    return sum(line_total(unit, quantity) for unit, quantity in lines)


def discounted(cents, percent):
    """`cents` less `percent` per cent, rounded to the nearest cent."""
    if not 0 <= percent <= 100:
        raise ValueError(f"discount out of range: {percent}")
    return int(cents * (100 - percent) / 100)


def with_tax(cents, rate_percent):
    """`cents` plus tax at `rate_percent`, rounded to the nearest cent."""
    return round(cents * (100 + rate_percent) / 100)


def checkout(lines, discount_percent=0, tax_percent=0):
    """The amount to pay: the subtotal, less the discount, plus tax on what remains."""
    return with_tax(discounted(subtotal(lines), discount_percent), tax_percent)
