"""Models opened by name: a `prefix:` picks a provider from PROVIDERS (a dotted path, imported only
when used, so `--help` never loads an SDK); any other name goes to the OpenAI SDK, so names like
Ollama's `llama3:8b` still work. Every model comes back Masked: its prompts leave the machine."""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from bot.errors import UserError
from bot.models.base import REQUEST_TIMEOUT, Masked, Model, ModelSettings

Provider = Callable[[str, ModelSettings], Model]

# prefix -> "module:function" taking (the rest of the name, the settings); a callable also works
# (benchmarks register an instant model this way).
PROVIDERS: dict[str, str | Provider] = {
    "replay": "bot.models.replay:provider",
    "local": "bot.models.local:provider",
}
DEFAULT_PROVIDER = "bot.models.openai_api:provider"


@dataclass(frozen=True)
class Hints:
    """How the user of this flow names a model and gives a key: a flag, an input, a variable."""

    name: str = "pass --model NAME (or set AUTOFIX_MODEL, or `model:` in the spec)"
    key: str = "set OPENAI_API_KEY, or --base-url for a local OpenAI-compatible server"


def open_model(settings: ModelSettings, redact: Callable[[str], str], hints: Hints = Hints()) -> Masked:
    """The named model, its prompts masked by `redact`; a one-line UserError when it can't be."""
    if not settings.name:
        raise UserError(f"no model configured: {hints.name}")
    prefix, _, rest = settings.name.partition(":")
    if rest and prefix in PROVIDERS:
        return Masked(load(PROVIDERS[prefix])(rest, settings), redact, settings)
    if not settings.api_key and not settings.base_url:
        raise UserError(f"no API key: {hints.key}")
    return Masked(load(DEFAULT_PROVIDER)(settings.name, settings), redact, settings)


def preload(name: str | None) -> None:
    """Start importing the SDK a model of this name is called through, on a thread of its own, so
    it loads while the baseline runs rather than before the first call (the openai SDK takes 0.5-2
    s). A later import waits for this one; one that fails here fails again there, and says why."""
    prefix, _, rest = (name or "").partition(":")
    if name and not (rest and prefix in PROVIDERS):
        threading.Thread(target=quietly_import, args=("openai",), name="autofix-preload", daemon=True).start()


def quietly_import(module: str) -> None:
    try:
        importlib.import_module(module)
    except BaseException:  # noqa: BLE001  # the import that needs it raises again, where it is reported
        return


def load(provider: str | Provider) -> Provider:
    if callable(provider):
        return provider
    module, _, function = provider.partition(":")
    found: Provider = getattr(importlib.import_module(module), function)
    return found


def settings_from(
    args_model: str | None,
    args_base_url: str | None,
    args_api: str | None,
    spec_model: str | None,
    spec_api: str | None,
    environ: Mapping[str, str] = os.environ,
    *,
    args_timeout: float | None = None,
    spec_timeout: float | None = None,
    args_reply_tokens: int | None = None,
    spec_reply_tokens: int | None = None,
    args_temperature: float | None = None,
    spec_temperature: float | None = None,
) -> ModelSettings:
    """Flags win over the spec, which wins over the environment's defaults."""
    return ModelSettings(
        name=args_model or spec_model or environ.get("AUTOFIX_MODEL"),
        api=args_api or spec_api or "responses",
        base_url=args_base_url or environ.get("OPENAI_BASE_URL") or None,
        api_key=environ.get("OPENAI_API_KEY") or None,
        timeout=args_timeout or spec_timeout or REQUEST_TIMEOUT,
        reply_tokens=args_reply_tokens or spec_reply_tokens,  # None: by the target's size
        temperature=args_temperature if args_temperature is not None else spec_temperature,  # 0 is one
    )
