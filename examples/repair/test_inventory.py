import pytest
from inventory import Inventory, OutOfStock


def test_unknown_item_has_none():
    assert Inventory().count("pear") == 0


def test_add_and_count():
    inv = Inventory()
    inv.add("apple", 3)
    inv.add("apple")
    assert inv.count("apple") == 4
    assert inv.total() == 4


def test_remove():
    inv = Inventory()
    inv.add("apple", 3)
    inv.remove("apple", 2)
    assert inv.count("apple") == 1


def test_remove_more_than_stocked():
    inv = Inventory()
    with pytest.raises(OutOfStock):
        inv.remove("pear")
