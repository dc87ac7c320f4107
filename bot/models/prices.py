"""What tokens cost, in US dollars per million: OpenAI's list prices for the models autofix is
usually pointed at, and `price:` in a spec or `.github/autofix.yml` for any other (a local or
self-hosted model costs what you say it does, 0 by default: unknown, never guessed).

Cached input: the input tokens the provider served from its prompt cache (OpenAI reports them as
`cached_tokens`, a part of the input tokens) cost `cached_input`; a price without one charges
them as ordinary input.

Source: OpenAI's API pricing page (platform.openai.com/docs/pricing), standard tier, as
third-party snapshots of it showed in June 2026 (no page of OpenAI's was reachable where this was
written): input, cached input, output. Prices change: a spec's `price:` wins over this table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the report imports this module, and the CLI's start-up must not load pydantic
    from bot.spec import ModelPrice


@dataclass(frozen=True)
class Price:
    input: float  # dollars per million input tokens
    output: float  # dollars per million output tokens
    cached_input: float | None = None  # dollars per million cached input tokens; None: as input

    def of(self, tokens_in: int, tokens_out: int, cached: int = 0) -> float:
        """`cached` of the `tokens_in` came from the provider's prompt cache."""
        cached = min(cached, tokens_in)
        cached_rate = self.input if self.cached_input is None else self.cached_input
        return ((tokens_in - cached) * self.input + cached * cached_rate + tokens_out * self.output) / 1_000_000


AS_OF = "June 2026"
LIST = {
    "gpt-4.1": Price(2.00, 8.00, cached_input=0.50),
    "gpt-4.1-mini": Price(0.40, 1.60, cached_input=0.10),
    "gpt-4.1-nano": Price(0.10, 0.40, cached_input=0.025),
    "gpt-4o": Price(2.50, 10.00, cached_input=1.25),
    "gpt-4o-mini": Price(0.15, 0.60, cached_input=0.075),
}


def price_of(model: str, given: ModelPrice | None = None) -> Price | None:
    """The spec's (or the repository's) price, else the list's for the model (a dated snapshot
    like `gpt-4.1-2025-04-14` costs what its family does), else None: unknown."""
    if given is not None:
        return Price(given.input, given.output, given.cached_input)
    if model in LIST:
        return LIST[model]
    family = next((name for name in sorted(LIST, key=len, reverse=True) if model.startswith(name + "-20")), None)
    return LIST[family] if family else None
