import pytest
from temperature import c_to_f, c_to_k, convert, f_to_c


def test_celsius_to_fahrenheit():
    assert c_to_f(100) == 212
    assert c_to_f(-40) == -40


def test_fahrenheit_to_celsius():
    assert f_to_c(212) == 100
    assert f_to_c(32) == 0


def test_kelvin():
    assert c_to_k(0) == 273.15
    with pytest.raises(ValueError):
        c_to_k(-300)


def test_convert():
    assert convert(98.6, "F", "C") == pytest.approx(37.0)
    assert convert(300, "K", "F") == pytest.approx(80.33, abs=0.01)
