"""Days in months and years of the Gregorian calendar."""

DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]


def is_leap(year):
    """Whether `year` is a leap year: divisible by 4, except centuries not divisible by 400."""
    return year % 4 == 0 and year % 100 != 0


def days_in_month(year, month):
    """How many days month `month` (1 to 12) of `year` has."""
    if not 1 <= month <= 12:
        raise ValueError(f"no month {month}")
    if month == 2 and is_leap(year):
        return 29
    return DAYS[month - 1]


def day_of_year(year, month, day):
    """Which day of its year a date is, 1 January being day 1."""
    if not 1 <= day <= days_in_month(year, month):
        raise ValueError(f"no day {day} in {year}-{month:02}")
    return sum(days_in_month(year, m) for m in range(1, month)) + day


def days_in_year(year):
    """365, or 366 in a leap year."""
    return 366 if is_leap(year) else 365
