"""Income tax over progressive brackets."""

# (lower bound of the bracket, rate): each rate applies to the part of income within its bracket.
BRACKETS = [(0, 0.0), (10_000, 0.10), (40_000, 0.20), (100_000, 0.40)]


def tax(income, brackets=BRACKETS):
    """The tax on `income`: each bracket's rate times the part of the income inside it."""
    if income < 0:
        raise ValueError("income can't be negative")
    owed = 0.0
    for i, (lower, rate) in enumerate(brackets):
        upper = brackets[i + 1][0] if i + 1 < len(brackets) else float("inf")
        taxed = min(income, upper) - lower
        if taxed <= 0:
            break
        owed += (income - lower) * rate
    return round(owed, 2)


def effective_rate(income, brackets=BRACKETS):
    """The share of `income` paid in tax, 0 for no income."""
    return tax(income, brackets) / income if income else 0.0


def marginal_rate(income, brackets=BRACKETS):
    """The rate on the next unit of income."""
    return [rate for lower, rate in brackets if income >= lower][-1]
