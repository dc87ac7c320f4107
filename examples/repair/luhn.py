"""The Luhn checksum of card and account numbers."""


def digits_of(number):
    """The digits of `number` (a string; spaces and hyphens allowed between digits)."""
    cleaned = number.replace(" ", "").replace("-", "")
    if not cleaned.isdigit():
        raise ValueError(f"not a number: {number!r}")
    return [int(d) for d in cleaned]


def checksum(number):
    """The Luhn sum mod 10: from the rightmost digit leftwards, every second digit is doubled
    (9 subtracted when that makes it over 9), the rightmost digit itself is not."""
    digits = digits_of(number)
    total = sum(digits[-1::-2])
    for d in digits[-1::-2]:
        total += d * 2 - 9 if d * 2 > 9 else d * 2
    return total % 10


def is_valid(number):
    """Whether `number` passes the Luhn check."""
    return checksum(number) == 0


def check_digit(partial):
    """The digit that, appended to `partial`, makes a valid number."""
    return (10 - checksum(partial + "0")) % 10
