"""A pytest run stopped at its time limit, told as the test that hung and where, not only as
"timed out after 30 s": autofix's plugin writes a signed line naming each test as it starts (the
last one is the test that was running), and a test still running just before the limit dumps
every thread's stack to the run's stderr (faulthandler). The dump is the run's output, which
code under test can write too: it only ever says where, in the feedback, of the test the signed
line names.

    - tests/test_x.py::test_loop: hung (over 28 s) in f() at mod.py:2: the run timed out after 30 s
"""

from __future__ import annotations

import re

from bot.judge.failures import node_id

DUMP = "Timeout ("  # faulthandler's first line, after pytest's progress dots on theirs
THREAD = re.compile(r"^(?:Current thread|Thread) 0x[0-9a-f]+ \(most recent call first\):\n((?:  .*\n?)*)", re.M)
FRAME = re.compile(r'^  File "(?P<path>[^"\n]+)", line (?P<line>\d+) in (?P<function>\S+)', re.M)
LINE = re.compile(FRAME.pattern + r".*\n?", re.M)


def hung(test_id: str, seconds: float, killed: str, output: str, root: str) -> str:
    """What is said of `test_id`, which had run `seconds` when its run was stopped (`killed`:
    "timed out after 30 s", "output limit of 16 MB exceeded"): where it was, from the last dump
    in `output` whose frames reach the test's file."""
    if not killed.startswith("timed out"):
        return f"running when the run was stopped: {killed}"
    place = where(output, node_id(test_id).partition("::")[0], root)
    return f"hung (over {int(seconds)} s){f' in {place}' if place else ''}: the run {killed}"


def trimmed(output: str, root: str) -> str:
    """`output` with the dump's frames outside the work folder (pytest's, the standard
    library's) left out, and the work folder's paths relative to it."""
    prefix = root.rstrip("/") + "/"

    def own(frame: re.Match) -> str:
        path = frame["path"].removeprefix(prefix)
        return "" if path.startswith(("/", "<")) else frame[0].replace(frame["path"], path, 1)

    start = output.rfind(DUMP)
    if start < 0:
        return output
    return output[:start] + LINE.sub(own, output[start:])


def where(output: str, test_file: str, root: str) -> str:
    """`f() at mod.py:2`: the innermost frame in the work folder (`root`) of the thread whose
    stack holds the test's file, in the last dump; "" when there is none."""
    start = output.rfind(DUMP)
    if start < 0:
        return ""
    prefix = root.rstrip("/") + "/"
    for stack in THREAD.findall(output[start:]):
        frames = [(m["path"].removeprefix(prefix), m["line"], m["function"]) for m in FRAME.finditer(stack)]
        if not any(path == test_file for path, _, _ in frames):
            continue
        path, line, function = next((frame for frame in frames if not frame[0].startswith("/")), frames[0])
        return f"{function}() at {path}:{line}"
    return ""
