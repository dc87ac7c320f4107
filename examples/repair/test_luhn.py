import pytest
from luhn import check_digit, is_valid


def test_valid_numbers():
    assert is_valid("4539 3195 0343 6467")
    assert is_valid("79927398713")


def test_invalid_numbers():
    assert not is_valid("8273 1232 7352 0569")
    assert not is_valid("79927398710")


def test_check_digit():
    assert check_digit("7992739871") == 3


def test_not_digits():
    with pytest.raises(ValueError):
        is_valid("4539 31x5")
