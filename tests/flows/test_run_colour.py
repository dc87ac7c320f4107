"""`autofix run` as a person at a terminal sees it: the quick start's replay (`make demo`) with its
stdout on a pty, so the child finds a terminal; PASS, FAIL and the final verdict in colour there,
and plain text under NO_COLOR or in the Action's environment."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time

import pytest
from conftest import ROOT

RED, GREEN, RESET = "\033[1;31m", "\033[1;32m", "\033[0m"


def on_a_terminal(workdir, environ: dict[str, str], seconds: float = 60) -> tuple[int, list[str]]:
    """The demo's run with its stdout on a pty; its exit code and what the terminal got, by line."""
    master, slave = os.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "GITHUB_ACTIONS")} | {"TERM": "xterm"}
    command = [sys.executable, "-m", "bot", "run", "examples/unique_items.yml"]
    command += ["--model", "replay:examples/unique_items.replay.yml", "--workdir", str(workdir)]
    child = subprocess.Popen(
        command, cwd=ROOT, stdin=subprocess.DEVNULL, stdout=slave, stderr=subprocess.DEVNULL, env=env | environ
    )
    os.close(slave)
    received = b""
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], deadline - time.monotonic())
            if not ready:
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed its side
                break
            if not chunk:
                break
            received += chunk
    finally:
        os.close(master)
    code = child.wait(timeout=max(1.0, deadline - time.monotonic()))
    return code, received.decode().replace("\r\n", "\n").splitlines()  # the pty turns \n into \r\n


def test_on_a_terminal_the_verdicts_are_in_colour_and_the_last_line_says_the_attempt_once(tmp_path):
    code, lines = on_a_terminal(tmp_path, {})
    assert code == 0, lines
    assert lines[2].startswith(f"attempt 1/3  {RED}FAIL{RESET}  ") and lines[2].endswith("  133 tokens")
    assert lines[3] == "    order: expected [3, 1, 2], got [1, 2, 3]"  # the feedback stays plain
    assert lines[5].startswith(f"attempt 2/3  {GREEN}PASS{RESET}  ")
    last = lines[-1].removeprefix(f"{GREEN}passed{RESET} on attempt 2: wrote {tmp_path / 'unique.py'} (")
    assert last != lines[-1] and last.endswith(" s, 471 tokens)") and "attempt" not in last


@pytest.mark.parametrize(
    "environ", [{"NO_COLOR": "1"}, {"GITHUB_ACTIONS": "true"}], ids=["NO_COLOR", "the Action's environment"]
)
def test_no_colour_when_refused_even_on_a_terminal(tmp_path, environ):
    code, lines = on_a_terminal(tmp_path, environ)
    assert code == 0, lines
    assert not any("\033" in line for line in lines)
    assert lines[2].startswith("attempt 1/3  FAIL  ") and lines[-1].startswith("passed on attempt 2: wrote ")
