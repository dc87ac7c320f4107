import pytest
from cart import checkout, discounted, subtotal, with_tax


def test_subtotal():
    assert subtotal([(250, 2), (199, 3)]) == 1097


def test_discount_rounds_to_the_nearest_cent():
    assert discounted(1000, 15) == 850
    assert discounted(999, 10) == 899  # 899.1
    assert discounted(1001, 30) == 701  # 700.7
    assert discounted(1998, 35) == 1299  # 1298.7


def test_tax():
    assert with_tax(1000, 20) == 1200
    assert with_tax(999, 7) == 1069  # 1068.93


def test_checkout():
    assert checkout([(1001, 1)], discount_percent=30, tax_percent=20) == 841  # 1001 -> 701 -> 841.2
    with pytest.raises(ValueError):
        checkout([(100, 1)], discount_percent=120)
