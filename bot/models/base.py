"""The one protocol every model keeps: messages in, reply text and token usage out."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Reply:
    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0  # of input_tokens, served from the provider's prompt cache (priced lower)


class Model(Protocol):
    name: str
    banner: str  # one line for the log: what is answering

    def complete(self, messages: list[dict[str, str]]) -> Reply: ...


class Masked:
    """A model whose prompts pass through `redact` first: test output, files and issue text can
    carry a secret, and a prompt leaves the machine."""

    def __init__(self, model: Model, redact: Callable[[str], str]):
        self.model, self.redact = model, redact
        self.name, self.banner = model.name, model.banner

    def complete(self, messages: list[dict[str, str]]) -> Reply:
        return self.model.complete([{**message, "content": self.redact(message["content"])} for message in messages])


@dataclass(frozen=True)
class ModelSettings:
    name: str | None
    api: str = "responses"
    base_url: str | None = None
    api_key: str | None = None
    timeout: float = 120.0
    max_retries: int = 2
