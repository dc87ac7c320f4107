import pytest
from matrix import identity, multiply, transpose


def test_transpose():
    assert transpose([[1, 2, 3], [4, 5, 6]]) == [[1, 4], [2, 5], [3, 6]]


def test_identity_leaves_a_matrix_alone():
    m = [[1, 2], [3, 4]]
    assert multiply(m, identity(2)) == m
    assert multiply(identity(2), m) == m


def test_product():
    assert multiply([[1, 2], [3, 4]], [[5, 6], [7, 8]]) == [[19, 22], [43, 50]]
    assert multiply([[1, 2, 3]], [[1], [2], [3]]) == [[14]]


def test_shapes_must_agree():
    with pytest.raises(ValueError):
        multiply([[1, 2]], [[1, 2]])
