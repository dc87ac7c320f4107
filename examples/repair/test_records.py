from records import last_record, record_days, running_max, summary


def test_running_max():
    assert running_max([3, 1, 4, 1, 5]) == [3, 3, 4, 4, 5]


def test_records():
    assert record_days([3, 1, 4, 1, 5, 9, 2, 6]) == [0, 2, 4, 5]


def test_below_zero():
    assert record_days([-5, -3, -4, -1]) == [0, 1, 3]
    assert last_record([-8, -9]) == 0


def test_summary():
    assert summary([]) == "no readings"
    assert summary([-2.5]) == "1 record, the last on day 0"
