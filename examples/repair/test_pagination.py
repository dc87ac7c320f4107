import pytest
from pagination import describe, page, page_count


def test_page_count():
    assert page_count(42, 10) == 5
    assert page_count(40, 10) == 4
    assert page_count(0, 10) == 1


def test_first_page():
    assert page(list(range(1, 43)), 1) == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]


def test_last_page():
    assert page(list(range(1, 43)), 5) == [41, 42]


def test_no_such_page():
    with pytest.raises(IndexError):
        page(list(range(5)), 2, per_page=5)


def test_describe():
    assert describe(list(range(1, 43)), 2) == "11-20 of 42"
