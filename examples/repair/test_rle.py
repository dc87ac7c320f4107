from rle import encode


def test_runs():
    assert encode("aaabcc") == [("a", 3), ("b", 1), ("c", 2)]


def test_one():
    assert encode("x") == [("x", 1)]


def test_empty():
    assert encode("") == []
