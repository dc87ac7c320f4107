"""A progress line on stderr: pairs done, pass rate so far, speed and ETA. No dependency.

On a terminal the line is redrawn in place; in a log (CI) a line is printed every tenth
of the way, so a long eval neither floods the log nor stays silent.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO

WIDTH = 24  # characters of the bar


class Progress:
    def __init__(
        self,
        total: int,
        stream: TextIO | None = None,
        clock: Callable[[], float] = time.monotonic,
        live: bool | None = None,
    ):
        self.total, self.clock = total, clock
        self.stream = stream or sys.stderr  # looked up now: tests and callers may have swapped it
        self.live = self.stream.isatty() if live is None else live
        self.done = self.passed = 0
        self.started = clock()
        self.lock = threading.Lock()  # workers report from their own threads
        self.shown_tenths = 0

    def update(self, passed: bool) -> None:
        with self.lock:
            self.done += 1
            self.passed += passed
            if self.live:
                self.stream.write("\r" + self.line())
                if self.done == self.total:
                    self.stream.write("\n")
            elif self.done * 10 // self.total > self.shown_tenths or self.done == self.total:
                self.shown_tenths = self.done * 10 // self.total
                self.stream.write(self.line() + "\n")
            self.stream.flush()

    def line(self) -> str:
        filled = WIDTH * self.done // self.total
        elapsed = self.clock() - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        eta = duration((self.total - self.done) / rate) if rate else "?"
        return (
            f"eval [{'#' * filled}{'.' * (WIDTH - filled)}] {self.done}/{self.total} "
            f"pass {100 * self.passed / self.done:.1f}%  {rate:.2f}/s  ETA {eta}"
        )


def duration(seconds: float) -> str:
    whole = round(seconds)
    if whole >= 3600:
        return f"{whole // 3600}h{whole % 3600 // 60:02d}m"
    return f"{whole // 60}m{whole % 60:02d}s"
