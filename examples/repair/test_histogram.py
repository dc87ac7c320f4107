from histogram import bars, bin_edges, bin_index, histogram


def test_edges():
    assert bin_edges(0, 10, 5) == [0, 2, 4, 6, 8, 10]


def test_bin_index():
    assert [bin_index(v, 0, 10, 5) for v in (0, 1.9, 2, 9.99)] == [0, 0, 1, 4]
    assert bin_index(10, 0, 10, 5) == 4


def test_histogram_counts_every_value():
    values = [1, 2, 2, 3, 3, 3, 4, 4, 5]
    counts = histogram(values, bins=4)
    assert sum(counts) == len(values)
    assert counts == [1, 2, 3, 3]


def test_bars():
    assert bars([1, 2, 4], width=4) == ["#", "##", "####"]
