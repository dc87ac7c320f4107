"""Reading what a model wrote, in autofix's own process, under bounds. A reply is chosen by whoever
steers the model (a prompt-injected issue, a hostile endpoint), so every parser of one (code
extraction, edit blocks, a JSON or YAML document, a SQL query) reads it through here: its size
is checked first, the parse has a deadline, and whatever it raises becomes `Unreadable`, one line
naming what was wrong: a failed attempt, never a traceback.

The deadline (of CPU time) is a backstop for what a library does that the size bounds didn't foresee (a
validator's quadratic keyword, say): the bounds on size and shape are what keep a usable reply
far below it, so they, not the clock, decide every reply but a pathological one."""

from __future__ import annotations

import ctypes
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from bot.errors import UserError

T = TypeVar("T")

MAX_CHARS = 1_000_000  # a reply, a document, a query: more than any file a model writes whole
DEADLINE_SECONDS = 10.0  # of CPU: a reply of MAX_CHARS reads in well under a second, YAML's excepted
POLL_SECONDS = 0.05  # how often the deadline's watcher looks at the reading thread's CPU time
SHOWN_CHARS = 200  # of an exception's message, in a reason


class Unreadable(Exception):
    """What a reply's reading found wrong, one line."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class Overrun(BaseException):
    """Raised into the reading thread at its deadline. A BaseException, so that a library's own
    `except Exception` can't swallow it and read on."""


def checked(text: str, what: str, max_chars: int = MAX_CHARS) -> str:
    """`text`, if it can be read at all: not longer than `max_chars`, without a NUL (no source
    text holds one) and valid Unicode (an API's JSON can carry a lone surrogate, which no file can
    be written with)."""
    if len(text) > max_chars:
        raise Unreadable(f"{what} is {len(text):,} characters long; at most {max_chars:,} are read")
    nul = text.find("\0")
    if nul >= 0:
        raise Unreadable(f"{what} holds a NUL character (line {line_of(text, nul)}), which no source text holds")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise Unreadable(
            f"{what} holds a lone surrogate (line {line_of(text, exc.start)}), which is not a Unicode character"
        ) from None
    return text


def read(parse: Callable[[], T], deadline: float = DEADLINE_SECONDS) -> T:
    """`parse()`'s result, or Unreadable for any exception it raises, or past the deadline. What
    `parse` raises as Unreadable, or UserError (the spec's mistake, not the reply's), passes."""
    try:
        with bounded_by(deadline):
            return parse()
    except (Unreadable, UserError):
        raise
    except Overrun:
        raise Unreadable(f"stopped after {deadline:g} s of CPU") from None
    except RecursionError:
        raise Unreadable("nested too deeply") from None
    except Exception as exc:  # noqa: BLE001 - any failure of a parser on hostile text is the reply's, not autofix's
        raise Unreadable(described(exc)) from None


def described(exc: BaseException) -> str:
    """`ValueError: month must be in 1..12`: the type and the message's first line, clipped."""
    message = str(exc).strip().partition("\n")[0]
    if len(message) > SHOWN_CHARS:
        message = message[:SHOWN_CHARS] + "..."
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


@contextmanager
def bounded_by(seconds: float) -> Iterator[None]:
    """Overrun is raised into this thread once the block has used `seconds` of its CPU time (not
    the clock's: a loaded machine slows a reading, it doesn't make it longer). It is delivered
    between two bytecodes, so a long C call (a regex, json's decoder) ends first: what reaches one
    is bounded by size instead."""
    thread = threading.get_ident()
    clock = time.pthread_getcpuclockid(thread)
    used = time.clock_gettime(clock) + seconds
    done, lock = threading.Event(), threading.Lock()

    def watch() -> None:
        while not done.wait(POLL_SECONDS):
            if time.clock_gettime(clock) >= used:
                with lock:
                    if not done.is_set():
                        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread), ctypes.py_object(Overrun))
                return

    threading.Thread(target=watch, name="autofix-deadline", daemon=True).start()
    try:
        yield
    finally:
        # Overrun is set only under the lock and only before `done`: one set while this thread
        # waited for the lock is raised at `done.set()` (a Python call checks for it), inside
        # the block, so it never lands in the code after it.
        with lock:
            done.set()


def line_of(text: str, index: int) -> int:
    return text.count("\n", 0, index) + 1
