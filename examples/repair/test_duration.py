import pytest
from duration import clock, humanize, split_seconds


def test_under_an_hour():
    assert split_seconds(200) == (0, 3, 20)
    assert clock(59) == "0:00:59"


def test_hours():
    assert split_seconds(3725) == (1, 2, 5)
    assert clock(3725) == "1:02:05"
    assert clock(36000) == "10:00:00"


def test_humanize():
    assert [humanize(s) for s in (45, 200, 3600, 3900)] == ["45 s", "3 min 20 s", "1 h", "1 h 5 min"]


def test_negative():
    with pytest.raises(ValueError):
        clock(-1)
