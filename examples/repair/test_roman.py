from roman import to_roman


def test_small():
    assert [to_roman(n) for n in range(1, 11)] == ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X"]


def test_large():
    assert to_roman(1994) == "MCMXCIV"
    assert to_roman(2024) == "MMXXIV"
    assert to_roman(3999) == "MMMCMXCIX"
