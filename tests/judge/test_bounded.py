"""The deadline every parser of a reply runs under: CPU time of the reading thread, an exception
a parser can't swallow, never delivered after the reading ended."""

from __future__ import annotations

import threading

import pytest

from bot.errors import UserError
from bot.judge import bounded


def spin() -> str:
    """A parser's endless loop inside a library's own catch-all."""
    try:
        while True:
            pass
    except Exception:  # noqa: BLE001 - the point: what a library does on an error it doesn't know
        return "read on"


def test_a_reading_that_runs_on_is_stopped_at_its_cpu_deadline_whatever_it_catches():
    with pytest.raises(bounded.Unreadable) as caught:
        bounded.read(spin, deadline=0.2)
    assert caught.value.reason == "stopped after 0.2 s of CPU"


def test_waiting_is_not_reading():
    """A reading blocked (here on an event another thread sets) uses no CPU: the deadline is not
    the clock's, so a loaded machine can't fail a reply a quiet one would pass."""
    event = threading.Event()
    threading.Timer(0.5, event.set).start()
    assert bounded.read(lambda: event.wait(5), deadline=0.1) is True


def test_no_overrun_lands_after_the_reading_ended():
    for _ in range(200):
        assert bounded.read(lambda: sum(range(20_000)), deadline=0.001) in (199990000,)
    total = sum(range(2_000_000))  # outlives every deadline above, in this thread
    assert total == 1999999000000


def test_any_exception_is_one_line_naming_it_and_the_specs_mistake_passes():
    def broken() -> None:
        raise ValueError("month must be in 1..12\nsecond line")

    with pytest.raises(bounded.Unreadable) as caught:
        bounded.read(broken)
    assert caught.value.reason == "ValueError: month must be in 1..12"

    def spec_mistake() -> None:
        raise UserError("task.yml: tests.json_schema: cannot resolve x")

    with pytest.raises(UserError):
        bounded.read(spec_mistake)
