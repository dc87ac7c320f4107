from flatten import depth, flatten, leaves


def test_flat_list_is_unchanged():
    assert flatten([1, 2, 3]) == [1, 2, 3]


def test_nested():
    assert flatten([1, [2, [3, 4]], [], 5]) == [1, 2, 3, 4, 5]


def test_empty():
    assert flatten([]) == []
    assert flatten([[], [[]]]) == []


def test_depth_and_leaves():
    assert depth([1, [2, [3]]]) == 3
    assert leaves([1, [2, [3, 4]], 5]) == 5
