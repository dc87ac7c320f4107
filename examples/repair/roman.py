"""Roman numerals."""

NUMERALS = [
    (1000, "M"),
    (900, "CM"),
    (500, "D"),
    (400, "CD"),
    (100, "C"),
    (90, "XC"),
    (50, "L"),
    (40, "XL"),
    (10, "X"),
    (9, "IX"),
    (5, "V"),
    (1, "I"),
]


def to_roman(number):
    """`number` (1 to 3999) as a Roman numeral."""
    out = []
    for value, letters in NUMERALS:
        while number >= value:
            out.append(letters)
            number -= value
    return "".join(out)
