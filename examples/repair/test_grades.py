import pytest
from grades import distribution, letter, report


def test_letters():
    assert letter(95) == "A"
    assert letter(85) == "B"
    assert letter(42) == "F"


def test_cutoffs_are_inclusive():
    assert [letter(s) for s in (90, 80, 70, 60, 59)] == ["A", "B", "C", "D", "F"]


def test_out_of_range():
    with pytest.raises(ValueError):
        letter(101)


def test_report_and_distribution():
    scores = {"ada": 100, "bob": 80, "cy": 12}
    assert report(scores) == {"ada": "A", "bob": "B", "cy": "F"}
    assert distribution(scores) == {"A": 1, "B": 1, "C": 0, "D": 0, "F": 1}
