import pytest
from calendar_days import day_of_year, days_in_month, days_in_year, is_leap


def test_leap_years():
    assert [is_leap(y) for y in (2023, 2024, 1900, 2000)] == [False, True, False, True]


def test_february():
    assert days_in_month(2024, 2) == 29
    assert days_in_month(2000, 2) == 29
    assert days_in_month(2100, 2) == 28


def test_day_of_year():
    assert day_of_year(2023, 3, 1) == 60
    assert day_of_year(2000, 12, 31) == 366
    with pytest.raises(ValueError):
        day_of_year(2023, 2, 29)


def test_days_in_year():
    assert (days_in_year(1900), days_in_year(2000)) == (365, 366)
