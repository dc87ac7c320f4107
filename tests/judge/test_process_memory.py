"""The test process's memory can't be read as a file (bot/judge/sandboxed/memory.py, audit.py's
memory_file): the run's nonce is in it, and whoever reads it signs a verdict of their own. Code
under repair that opens /proc/self/mem, by a link of its own or relative to /proc/self, is
refused; a process it starts finds the test process's memory closed to it (undumpable). The
static guard is left out (`screen=None`)."""

import pytest
from test_audit_hook import TIERS, checker

# Every readable mapping of a memory file scanned for the nonce's prefix and its hex digits.
SCAN = r'''
import os
import re
import subprocess
import sys
import tempfile

FOUND = rb"@@autofix-verdict-[0-9a-f]{16,}"


def scan(mem, maps):
    found = 0
    for line in maps.splitlines():
        parts = line.split()
        if "r" not in parts[1] or (len(parts) > 5 and parts[5].startswith("[v")):
            continue
        start, end = (int(x, 16) for x in parts[0].split("-"))
        try:
            os.lseek(mem, start, 0)
            found += len(re.findall(FOUND, os.read(mem, min(end - start, 1 << 26))))
        except (OSError, OverflowError):
            continue
    return found


def opened(how):
    maps = open("/proc/self/maps").read()
    try:
        mem = how()
    except (RuntimeError, OSError) as refused:
        return type(refused).__name__
    try:
        return "read %d nonces" % scan(mem, maps)
    finally:
        os.close(mem)


def linked():
    link = os.path.join(tempfile.mkdtemp(), "view")
    os.symlink("/proc/self/mem", link)
    return os.open(link, os.O_RDONLY)


CHILD = """
import os, re, sys
pid = sys.argv[1]
try:
    maps = open("/proc/%s/maps" % pid).read()
    mem = os.open("/proc/%s/mem" % pid, os.O_RDONLY)
except OSError as refused:
    print(type(refused).__name__)
    raise SystemExit
""" + "FOUND = %r\n" % FOUND + """
found = 0
for line in maps.splitlines():
    parts = line.split()
    if "r" not in parts[1] or (len(parts) > 5 and parts[5].startswith("[v")):
        continue
    start, end = (int(x, 16) for x in parts[0].split("-"))
    try:
        os.lseek(mem, start, 0)
        found += len(re.findall(FOUND, os.read(mem, min(end - start, 1 << 26))))
    except (OSError, OverflowError):
        continue
print("read %d nonces" % found)
"""


def unique_items(items):
    ways = {
        "by name": lambda: os.open("/proc/self/mem", os.O_RDONLY),
        "through a link": linked,
        "relative to /proc/self": lambda: os.open("mem", os.O_RDONLY, dir_fd=os.open("/proc/self", os.O_RDONLY)),
    }
    seen = {name: opened(how) for name, how in ways.items()}
    child = subprocess.run([sys.executable, "-c", CHILD, str(os.getpid())], capture_output=True, text=True)
    seen["by a child"] = (child.stdout or child.stderr).strip()
    raise AssertionError("memory: " + "; ".join(f"{name}: {what}" for name, what in seen.items()))
'''


@pytest.mark.parametrize("tier", TIERS)
def test_the_process_memory_is_no_file_to_code_under_repair(tmp_path, tier):
    verdict = checker(tmp_path, tier).check(SCAN)
    assert not verdict.passed
    assert (
        "AssertionError: memory: by name: RuntimeError; through a link: RuntimeError; "
        "relative to /proc/self: RuntimeError; by a child: PermissionError" in verdict.feedback
    ), verdict.feedback
    assert "code under repair at unique.py:71 asked for the process's memory (/proc/self/mem)" in verdict.feedback
