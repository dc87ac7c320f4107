import random

from backoff import delay, jittered, schedule, total_wait


def test_doubles():
    assert schedule(5) == [0.5, 1.0, 2.0, 4.0, 8.0]


def test_capped():
    assert delay(10) == 30.0
    assert schedule(4, base=10, cap=25) == [10, 20, 25, 25]


def test_total():
    assert total_wait(3, base=1, cap=100) == 7


def test_jitter_stays_below_the_delay():
    rng = random.Random(1)
    assert all(0 <= jittered(n, rng) <= delay(n) for n in range(8))
