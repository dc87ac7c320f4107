import pytest
from moving_average import moving_average


def test_windows():
    assert moving_average([1, 2, 3, 4], 2) == [1.5, 2.5, 3.5]


def test_whole():
    assert moving_average([2, 4], 2) == [3.0]


def test_short_and_bad():
    assert moving_average([1], 2) == []
    with pytest.raises(ValueError):
        moving_average([1, 2], 0)
