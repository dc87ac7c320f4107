"""Colour goes to a terminal and nowhere else: a pty stands for the terminal, a pipe and a
StringIO for a log; NO_COLOR, the Action's environment and TERM=dumb turn it off."""

from __future__ import annotations

import io
import os

import pytest

from bot.console import PLAIN, Paint, colour_wanted

TERMINAL = {"TERM": "xterm-256color"}


@pytest.fixture
def terminal():
    """The writing end of a pty, as a text stream: isatty() is true."""
    master, slave = os.openpty()
    with os.fdopen(slave, "w") as stream:
        yield stream
    os.close(master)


@pytest.fixture
def pipe():
    read, write = os.pipe()
    with os.fdopen(write, "w") as stream:
        yield stream
    os.close(read)


def test_a_terminal_gets_colour(terminal):
    assert colour_wanted(terminal, TERMINAL)
    assert colour_wanted(terminal, TERMINAL | {"NO_COLOR": ""})  # no-color.org: set and empty is not set


@pytest.mark.parametrize(
    "environ",
    [
        TERMINAL | {"NO_COLOR": "1"},
        TERMINAL | {"GITHUB_ACTIONS": "true"},  # the Action's log: workflow commands group it there
        {"TERM": "dumb"},
    ],
    ids=["NO_COLOR", "GITHUB_ACTIONS", "TERM=dumb"],
)
def test_no_colour_where_it_is_refused_even_on_a_terminal(terminal, environ):
    assert not colour_wanted(terminal, environ)


def test_no_colour_into_a_pipe_or_a_string(pipe):
    assert not colour_wanted(pipe, TERMINAL)
    assert not colour_wanted(io.StringIO(), TERMINAL)
    closed = io.StringIO()
    closed.close()
    assert not colour_wanted(closed, TERMINAL)  # isatty() raises ValueError on a closed stream


def test_the_words_and_their_colours():
    paint = Paint(True)
    assert [paint.verdict(word) for word in ("PASS", "FAIL", "SAME")] == [
        "\033[1;32mPASS\033[0m",
        "\033[1;31mFAIL\033[0m",
        "\033[1;33mSAME\033[0m",
    ]
    assert (paint.passed("passed"), paint.failed("failed"), paint.note("note:")) == (
        "\033[1;32mpassed\033[0m",
        "\033[1;31mfailed\033[0m",
        "\033[1;33mnote:\033[0m",
    )
    assert [PLAIN.verdict("FAIL"), PLAIN.passed("passed"), PLAIN.note("note:")] == ["FAIL", "passed", "note:"]
