import pytest
from versions import compare, newest, parse, satisfies


def test_parse():
    assert parse("1.10.2") == (1, 10, 2)
    assert parse("2") == (2, 0, 0)


def test_compare():
    assert compare("1.2.0", "1.2") == 0
    assert compare("1.10.0", "1.9.3") == 1
    assert compare("0.9", "0.10") == -1


def test_newest_and_minimum():
    assert newest(["1.9.0", "1.10.0", "1.2.11"]) == "1.10.0"
    assert satisfies("3.12", "3.9")


def test_not_a_version():
    with pytest.raises(ValueError):
        parse("1.x")
