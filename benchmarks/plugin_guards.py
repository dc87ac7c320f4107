"""What autofix's pytest plugin (its audit hook, code census, stand-ins, recorder and canaries)
adds to one pytest run, against the same run with no plugin: a suite of 2,000 small tests whose
modules import 37 standard library modules after the plugin loaded (each an import the audit hook
checks is its file's own), and the unique_items suite. No sandbox, so only the plugin's cost shows.

Every figure is a median of RUNS runs, interleaved, so load from elsewhere falls on each alike.
Run with `make bench-plugin`. Not a test: the figures depend on the machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from validate_tiers import medians  # interleaved, after a warm-up each

from bot.judge.hooks import generated

RUNS = 9
IMPORTS = (
    "asyncio",
    "decimal",
    "email.message",
    "email.parser",
    "http.client",
    "http.cookies",
    "xml.etree.ElementTree",
    "xml.dom.minidom",
    "json.decoder",
    "csv",
    "difflib",
    "fractions",
    "statistics",
    "uuid",
    "zipfile",
    "tarfile",
    "gzip",
    "bz2",
    "lzma",
    "sqlite3",
    "configparser",
    "argparse",
    "smtplib",
    "imaplib",
    "ftplib",
    "poplib",
    "mailbox",
    "mimetypes",
    "calendar",
    "textwrap",
    "shlex",
    "html.parser",
    "urllib.request",
    "urllib.parse",
    "wave",
    "plistlib",
    "pprint",
)
MANY = (
    "import pytest\n"
    + "".join(f"import {name}\n" for name in IMPORTS)
    + "\n\n@pytest.mark.parametrize('n', range(1000))\ndef test_square(n):\n    assert n * n >= 0\n"
)
UNIQUE = "def unique_items(items):\n    return list(dict.fromkeys(items))\n"
UNIQUE_TESTS = (
    "from unique import unique_items\n\n\n@__import__('pytest').mark.parametrize('n', range(1000))\n"
    "def test_order(n):\n    assert unique_items([3, 1, 3, 2, 1]) == [3, 1, 2]\n"
)
CANARIES = "c1\t1\t2\ttests.test_many\t0\t0\nc2\t1\t1\ttests.test_many\t0\t1\n"


def suite(folder: Path) -> None:
    (folder / "tests").mkdir()
    (folder / "tests" / "test_many.py").write_text(MANY)
    (folder / "tests" / "test_unique.py").write_text(UNIQUE_TESTS)
    (folder / "unique.py").write_text(UNIQUE)


def pytest_run(folder: Path, plugin: bool) -> None:
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
    if not plugin:
        subprocess.run(command, cwd=folder, check=True, capture_output=True)
        return
    fd = os.memfd_create("nonce", 0)
    try:
        os.write(fd, b"@@autofix-verdict-" + os.urandom(16).hex().encode() + b"\n" + CANARIES.encode())
        os.set_inheritable(fd, True)
        with generated(fd, None, folder, "unique.py", sites=[]) as hooks:
            env = {**os.environ, "PYTHONPATH": str(hooks.folder)}
            command[4:4] = ["-p", hooks.plugin]
            done = subprocess.run(command, cwd=folder, env=env, pass_fds=(fd,), capture_output=True, text=True)
            assert done.returncode == 0 and "2000 passed" in done.stdout, done.stdout[-2000:]
            assert b"'tampered': []" in os.pread(fd, 1 << 20, 0), "the plugin refused something"
    finally:
        os.close(fd)


def main() -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        suite(folder)
        actions = {"pytest": lambda: pytest_run(folder, False), "pytest + plugin": lambda: pytest_run(folder, True)}
        figures = medians(actions, RUNS)
        print(f"2,000 tests, 37 standard modules imported after load (median of {RUNS}, interleaved)")
        for key, seconds in figures.items():
            print(f"  {key:<18} {seconds * 1000:8.1f} ms  {seconds / figures['pytest']:5.2f}x")


if __name__ == "__main__":
    main()
