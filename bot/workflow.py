"""GitHub Actions workflow commands, step outputs and the job summary.

Untrusted text (model replies, test output, issue text) is printed only between
`::stop-commands::<random token>` and `::<token>::`, so a line in it that looks like a workflow
command (`::add-mask::`, `::set-output`, `::error`...) is shown, not obeyed.
"""

from __future__ import annotations

import secrets
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, TextIO


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


class Workflow:
    def __init__(self, out: TextIO = sys.stdout, redact: Callable[[str], str] = lambda text: text):
        self.out = out
        self.redact = redact

    def print(self, line: str) -> None:
        """Trusted text of autofix's own making (secrets still masked)."""
        print(self.redact(line), file=self.out, flush=True)

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
            f"{key}={escape_property(str(value))}" for key, value in (("file", file), ("line", line)) if value is not None
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
    if path is None:
        return
    with path.open("a", encoding="utf-8") as out:
        out.write(redact(markdown).rstrip("\n") + "\n\n")
