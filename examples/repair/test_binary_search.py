from binary_search import binary_search


def test_finds_every_item():
    items = [1, 3, 5, 7, 9, 11]
    assert [binary_search(items, x) for x in items] == [0, 1, 2, 3, 4, 5]


def test_missing():
    assert binary_search([1, 3, 5], 4) == -1
    assert binary_search([], 4) == -1


def test_single():
    assert binary_search([7], 7) == 0
