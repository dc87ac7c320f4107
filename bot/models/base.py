"""The one protocol every model keeps: messages in, reply text and token usage out."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Protocol

LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # a str holds a pair as one code point: any left is lone


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
        reply = self.model.complete([{**message, "content": self.redact(message["content"])} for message in messages])
        # An API's JSON can carry a lone surrogate (`"\\ud800"`): no file, prompt or log line can
        # be written with one, and the reply goes into all three. U+FFFD stands in for it.
        text = LONE_SURROGATE.sub("\ufffd", reply.text)
        return reply if text == reply.text else replace(reply, text=text)


@dataclass(frozen=True)
class ModelSettings:
    name: str | None
    api: str = "responses"
    base_url: str | None = None
    api_key: str | None = None
    timeout: float = 120.0
    max_retries: int = 2
    temperature: float | None = None  # None: the endpoint's default, nothing sent
    seed: int | None = None  # sent where the API takes one; None: none sent
    ca_bundle: str | None = None  # a PEM file of the certificates HTTPS is verified against; None: the SDK's


# Added to the settings' seed by calls made inside `seed_offset`: a caller that sends one prompt
# several times (the eval's resampling) gives each call a seed of its own, else an endpoint that
# honours the seed would send the same reply back each time.
SEED_OFFSET: ContextVar[int] = ContextVar("seed_offset", default=0)


@contextmanager
def seed_offset(offset: int) -> Iterator[None]:
    token = SEED_OFFSET.set(offset)
    try:
        yield
    finally:
        SEED_OFFSET.reset(token)


def request_seed(settings: ModelSettings) -> int | None:
    """The seed this call sends: the settings', moved by the caller's offset."""
    return None if settings.seed is None else settings.seed + SEED_OFFSET.get()
