"""Descriptors a run is given (``pass_fds``) reach the command on every tier; no other does."""

from __future__ import annotations

import json
import os
import sys
import textwrap

import pytest
from test_sandbox import ALL, get_sandbox, private_tmp, workdir  # noqa: F401 - fixtures

from bot.sandbox.tiers import Limits, allowed_environ

LIST_FDS = """
    import json, os, sys
    os.write(int(sys.argv[1]), b"through the pipe")
    listed = [int(fd) for fd in os.listdir("/proc/self/fd")]
    open_now = []
    for fd in listed:            # the listing's own descriptor is closed by now
        try:
            os.fstat(fd)
            open_now.append(fd)
        except OSError:
            pass
    print(json.dumps(sorted(open_now)))
"""


@pytest.mark.parametrize("tier", ALL)
def test_passed_pipe_reaches_the_command_and_nothing_else_does(tier, workdir):
    r, w = os.pipe()
    stray = os.open("/dev/null", os.O_RDONLY)
    os.set_inheritable(stray, True)  # inheritable, yet not passed: must stay out
    try:
        argv = [sys.executable, "-c", textwrap.dedent(LIST_FDS), str(w)]
        out = get_sandbox(tier).run(argv, workdir, allowed_environ(), Limits(wall_seconds=20), pass_fds=(w,))
    finally:
        os.close(w)
        os.close(stray)
    try:
        assert os.read(r, 100) == b"through the pipe"
    finally:
        os.close(r)
    assert out.returncode == 0, out.output
    assert json.loads(out.output) == [0, 1, 2, w]


def test_stdio_numbers_cannot_be_passed(workdir):
    with pytest.raises(ValueError):
        get_sandbox("none").run(["true"], workdir, allowed_environ(), Limits(), pass_fds=(1,))
