from intervals import covered, gaps, merge


def test_overlapping_and_touching():
    assert merge([(1, 3), (2, 4), (6, 8), (8, 9)]) == [(1, 4), (6, 9)]


def test_unsorted():
    assert merge([(5, 6), (1, 2)]) == [(1, 2), (5, 6)]


def test_a_range_inside_another():
    assert merge([(1, 10), (2, 3)]) == [(1, 10)]
    assert merge([(0, 5), (1, 2), (3, 4), (7, 8)]) == [(0, 5), (7, 8)]


def test_covered_and_gaps():
    meetings = [(9, 12), (10, 11), (13, 14)]
    assert covered(meetings) == 4
    assert gaps(meetings) == [(12, 13)]
