import pytest
from variance import mean, stdev, variance


def test_mean():
    assert mean([1, 2, 3, 4]) == 2.5


def test_sample_variance():
    assert variance([2, 4, 4, 4, 5, 5, 7, 9]) == pytest.approx(32 / 7)
    assert variance([1, 3]) == 2


def test_stdev():
    assert stdev([1, 3]) == pytest.approx(2**0.5)


def test_too_few_values():
    with pytest.raises(ValueError):
        variance([5])
