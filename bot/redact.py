"""Every secret value autofix knows is masked in whatever it prints or writes."""

from __future__ import annotations

import os
import re
from typing import Mapping

SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH", re.I)
MIN_LENGTH = 6  # shorter values would mask ordinary words


class Redactor:
    def __init__(self, values=()):
        self.values: set[str] = set()
        for value in values:
            self.add(value)

    @classmethod
    def from_environ(cls, environ: Mapping[str, str] = os.environ) -> Redactor:
        return cls(value for name, value in environ.items() if SECRET_NAME.search(name))

    def add(self, value: str | None) -> None:
        if value and len(value) >= MIN_LENGTH:
            self.values.add(value)

    def __call__(self, text: str) -> str:
        for value in sorted(self.values, key=len, reverse=True):
            text = text.replace(value, "***")
        return text
