"""Fresh samples: the model as the `resample` strategy gives it the loop's calls."""

from __future__ import annotations

from bot.models.base import Model, Reply


class FreshSamples:
    """A model wrapper that withholds the feedback: whatever the loop asks, the model gets the
    loop's first prompt again, so every call is an independent sample (with a seed of its own,
    bot/core/rounds.py), and the first that passes wins."""

    def __init__(self, model: Model):
        self.model = model
        self.name, self.banner = model.name, getattr(model, "banner", model.name)  # a scripted model may have none
        self.first: list[dict[str, str]] | None = None

    def complete(self, messages: list[dict[str, str]]) -> Reply:
        if self.first is None:
            self.first = messages
        return self.model.complete(self.first)
