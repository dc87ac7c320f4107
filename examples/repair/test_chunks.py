import pytest
from chunks import batches, chunks, pad_last


def test_even():
    assert chunks([1, 2, 3, 4], 2) == [[1, 2], [3, 4]]


def test_uneven():
    assert chunks([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]
    assert chunks("abcdefg", 3) == ["abc", "def", "g"]


def test_counts_and_padding():
    assert batches(list(range(10)), 4) == 3
    assert pad_last(chunks([1, 2, 3], 2), 2, 0) == [[1, 2], [3, 0]]


def test_bad_size():
    with pytest.raises(ValueError):
        chunks([1], 0)
