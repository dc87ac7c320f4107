"""GitHub Actions workflow commands, step outputs and the job summary.

The runner obeys a line of the log that starts with `::` as a workflow command (`::add-mask::`,
`::set-output`, `::error`...). Untrusted text (model replies, test output and names, file names,
issue text) reaches the log only two ways: whole, between `::stop-commands::<random token>` and
`::<token>::`, where a command is shown, not obeyed; or inside one of autofix's own lines, whose
control characters are printed escaped (`\\n`), so it never starts a line of its own.
"""

from __future__ import annotations

import re
import secrets
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from bot.github import render

# What ends a line for the runner or a log viewer, or steers a terminal; tabs are harmless.
CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")
SUMMARY_BYTES = 1_000_000  # GitHub drops a step's summary over 1 MiB entirely


def one_line(text: str) -> str:
    """`text` with its control characters shown as escapes: `\\n`, `\\r`, `\\x1b`."""
    return CONTROL.sub(lambda char: repr(char[0])[1:-1], text)


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


class Workflow:
    def __init__(self, out: TextIO = sys.stdout, redact: Callable[[str], str] = lambda text: text):
        self.out = out
        self.redact = redact

    def print(self, line: str) -> None:
        """One line of autofix's own making; what is interpolated into it may be untrusted, so it
        stays on that line (secrets still masked)."""
        print(one_line(self.redact(line)), file=self.out, flush=True)

    def mask(self, value: str | None) -> None:
        # Multi-line secrets are masked line by line, as the runner expects.
        for line in (value or "").splitlines():
            if line.strip():
                print(f"::add-mask::{line}", file=self.out, flush=True)

    def untrusted(self, text: str) -> None:
        if not text.strip():
            return
        token = secrets.token_hex(16)
        print(f"::stop-commands::{token}", file=self.out)
        print(self.redact(text.rstrip("\n")), file=self.out)
        print(f"::{token}::", file=self.out, flush=True)

    @contextmanager
    def group(self, title: str) -> Iterator[None]:
        self.print(f"::group::{escape_data(title)}")
        try:
            yield
        finally:
            self.print("::endgroup::")

    def annotate(self, level: str, message: str, file: str | None = None, line: int | None = None) -> None:
        props = ",".join(
            f"{key}={escape_property(str(value))}"
            for key, value in (("file", file), ("line", line))
            if value is not None
        )
        self.print(f"::{level}{' ' + props if props else ''}::{escape_data(message)}")


def write_outputs(path: Path | None, outputs: dict[str, str], redact: Callable[[str], str]) -> None:
    """Append `name<<DELIMITER` blocks: safe for multi-line values, whatever they contain."""
    if path is None:
        return
    with path.open("a", encoding="utf-8") as out:
        for name, value in outputs.items():
            value = redact(value)
            delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
            while delimiter in value:
                delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
            out.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")


def append_summary(path: Path | None, markdown: str, redact: Callable[[str], str]) -> None:
    """Within SUMMARY_BYTES for the whole step, the part that doesn't fit cut visibly."""
    if path is None:
        return
    used = path.stat().st_size if path.exists() else 0
    text = render.capped(redact(markdown).rstrip("\n") + "\n\n", SUMMARY_BYTES - used, utf8_size)
    with path.open("a", encoding="utf-8") as out:
        out.write(text)


def utf8_size(text: str) -> int:
    return len(text.encode("utf-8"))
