"""The one protocol every model keeps: messages in, reply text and token usage out."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Protocol, TypeVar
from urllib.parse import urlsplit

LONE_SURROGATE = re.compile("[\ud800-\udfff]")  # a str holds a pair as one code point: any left is lone


@dataclass(frozen=True)
class Reply:
    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0  # of input_tokens, served from the provider's prompt cache (priced lower)
    cut_at: int | None = None  # the reply stopped at this limit of tokens, before it ended: None when it ended


class Model(Protocol):
    name: str
    banner: str  # one line for the log: what is answering

    def complete(self, messages: list[dict[str, str]]) -> Reply: ...


class Masked:
    """A model whose prompts pass through `redact` first: test output, files and issue text can
    carry a secret, and a prompt leaves the machine. It also says where the model runs, for the
    prompts sized to it (bot/core/repomap.py's budget)."""

    def __init__(self, model: Model, redact: Callable[[str], str], settings: ModelSettings | None = None):
        self.model, self.redact = model, redact
        self.name, self.banner = model.name, model.banner
        self.local = settings is not None and settings.local  # on this machine: prompt processing is the cost
        self.map_tokens = settings.map_tokens if settings is not None else None

    def complete(self, messages: list[dict[str, str]]) -> Reply:
        reply = self.model.complete([{**message, "content": self.redact(message["content"])} for message in messages])
        # An API's JSON can carry a lone surrogate (`"\\ud800"`): no file, prompt or log line can
        # be written with one, and the reply goes into all three. U+FFFD stands in for it.
        text = LONE_SURROGATE.sub("\ufffd", reply.text)
        return reply if text == reply.text else replace(reply, text=text)


REQUEST_TIMEOUT = 120.0  # seconds; a model on a CPU may need more for a long prompt (`request_timeout`)


@dataclass(frozen=True)
class ModelSettings:
    name: str | None
    api: str = "responses"
    base_url: str | None = None
    api_key: str | None = None
    timeout: float = REQUEST_TIMEOUT  # seconds one request may take (`request_timeout`)
    max_retries: int = 2
    temperature: float | None = None  # None: the endpoint's default, nothing sent
    seed: int | None = None  # sent where the API takes one; None: none sent
    ca_bundle: str | None = None  # a PEM file of the certificates HTTPS is verified against; None: the SDK's
    map_tokens: int | None = None  # the repository map's budget; None: by where the model runs
    reply_tokens: int | None = None  # the most one reply may have (`reply_tokens`); None: by the target's size

    @property
    def local(self) -> bool:
        """The model runs on this machine: in-process (`local:`), or behind a loopback address."""
        return (self.name or "").startswith("local:") or on_loopback(self.base_url)


def on_loopback(url: str | None) -> bool:
    host = (urlsplit(url).hostname or "") if url else ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


# Added to the settings' seed by calls made inside `seed_offset`: a caller that sends one prompt
# several times (the eval's resampling) gives each call a seed of its own, else an endpoint that
# honours the seed would send the same reply back each time.
SEED_OFFSET: ContextVar[int] = ContextVar("seed_offset", default=0)


Held = TypeVar("Held")


@contextmanager
def holding(variable: ContextVar[Held], value: Held) -> Iterator[None]:
    """`variable` at `value` for the calls made inside the block."""
    token = variable.set(value)
    try:
        yield
    finally:
        variable.reset(token)


def seed_offset(offset: int) -> AbstractContextManager[None]:
    return holding(SEED_OFFSET, offset)


# Set by a caller that asks several candidates of one prompt at once (the loop's `candidates`): a
# call sends a seed even when the settings set none (0, moved by its offset), so the candidates
# differ where the endpoint honours seeds.
SEEDED: ContextVar[bool] = ContextVar("seeded", default=False)


def seeded(on: bool) -> AbstractContextManager[None]:
    return holding(SEEDED, on)


def request_seed(settings: ModelSettings) -> int | None:
    """The seed this call sends: the settings' (or 0 inside `seeded`), moved by the caller's offset."""
    base = settings.seed if settings.seed is not None else 0 if SEEDED.get() else None
    return None if base is None else base + SEED_OFFSET.get()


# Steps of WARMER_STEP added to the settings' temperature by calls made inside `warmer`: a model
# that sent back code it had already sent is asked again a little hotter, so it leaves that reply.
WARMTH: ContextVar[int] = ContextVar("warmth", default=0)
WARMER_STEP = 0.3
WARMEST = 1.2  # above this a small model's replies turn to noise; a temperature set higher stays as it is


def warmer(steps: int) -> AbstractContextManager[None]:
    return holding(WARMTH, steps)


def request_temperature(settings: ModelSettings) -> float | None:
    """The temperature this call sends: the settings', raised inside `warmer`. None when the
    settings set none: the endpoint's own default is unknown, and some endpoints refuse any."""
    if settings.temperature is None:
        return None
    raised = settings.temperature + WARMER_STEP * WARMTH.get()
    return round(max(settings.temperature, min(raised, WARMEST)), 3)


# The most tokens one reply may have, sent with every request (`max_tokens`, `max_output_tokens`):
# without it a small model that rambles generates until the server's own limit (15,000 tokens, half
# an hour on a CPU) while autofix waits. Scaled to the target: a reply is its code, whole or as
# edits, with a little prose; four times the target's tokens leaves room for both.
CHARS_PER_TOKEN = 4  # OpenAI's rule of thumb for code and English
REPLY_TOKENS_PER_TARGET_TOKEN = 4
REPLY_TOKENS_FLOOR = 2048  # a short target's reply still has room to explain and restate
REPLY_TOKENS_CAP = 16384
REPLY_TOKENS_DEFAULT = 4096  # no target to scale by: code written from nothing, a stage of free-form
REPLY_TOKENS: ContextVar[int | None] = ContextVar("reply_tokens", default=None)


def scaled_reply_tokens(target_chars: int | None) -> int:
    """The reply limit for a target of this many characters (None or 0: none yet)."""
    if not target_chars:
        return REPLY_TOKENS_DEFAULT
    wanted = REPLY_TOKENS_PER_TARGET_TOKEN * -(-target_chars // CHARS_PER_TOKEN)
    return max(REPLY_TOKENS_FLOOR, min(wanted, REPLY_TOKENS_CAP))


def reply_tokens(limit: int | None) -> AbstractContextManager[None]:
    """The calls made inside the block send `limit` (None: the default), unless the settings set one."""
    return holding(REPLY_TOKENS, limit)


def request_reply_tokens(settings: ModelSettings) -> int:
    """The reply limit this call sends: the settings' (`--reply-tokens`), else the caller's (the
    target's, `reply_tokens`), else REPLY_TOKENS_DEFAULT."""
    return settings.reply_tokens or REPLY_TOKENS.get() or REPLY_TOKENS_DEFAULT
