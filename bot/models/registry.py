"""Models behind one tiny protocol: messages in, reply text and token usage out."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import yaml

from bot.errors import ModelUnavailable, UserError


@dataclass(frozen=True)
class Reply:
    text: str
    input_tokens: int = 0
    output_tokens: int = 0


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


class OpenAIModel:
    """The official SDK, against OpenAI or any compatible endpoint (Ollama, vLLM, llama.cpp...)."""

    def __init__(self, settings: ModelSettings):
        self.name = settings.name
        self.settings = settings
        where = settings.base_url or "api.openai.com"
        self.banner = f"model: {settings.name} via the {settings.api} API at {where}"
        self._client = None

    def client(self):
        if self._client is None:
            import openai  # costs ~0.5-0.9 s: paid only when a model is really called

            self._client = openai.OpenAI(
                api_key=self.settings.api_key or "unused",
                base_url=self.settings.base_url,
                timeout=self.settings.timeout,
                max_retries=self.settings.max_retries,
            )
        return self._client

    def complete(self, messages: list[dict[str, str]]) -> Reply:
        import openai

        try:
            if self.settings.api == "chat":
                response = self.client().chat.completions.create(model=self.name, messages=messages)
                usage = response.usage
                return Reply(
                    response.choices[0].message.content or "",
                    usage.prompt_tokens if usage else 0,
                    usage.completion_tokens if usage else 0,
                )
            response = self.client().responses.create(model=self.name, input=messages)
            usage = response.usage
            return Reply(
                response.output_text,
                usage.input_tokens if usage else 0,
                usage.output_tokens if usage else 0,
            )
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise UserError(
                f"the model API refused the credentials ({exc.status_code}): {server_message(exc)}; check OPENAI_API_KEY"
            ) from None
        except (openai.NotFoundError, openai.BadRequestError, openai.UnprocessableEntityError) as exc:
            raise UserError(
                f"the model API rejected the request ({exc.status_code}): {server_message(exc)}; check --model, --api and --base-url"
            ) from None
        except openai.APIStatusError as exc:
            raise ModelUnavailable(
                f"the model API failed after retries ({exc.status_code}): {server_message(exc)}"
            ) from None
        except openai.APITimeoutError:
            raise ModelUnavailable(
                f"the model API did not answer within {self.settings.timeout:g} s (after retries)"
            ) from None
        except openai.APIConnectionError:
            raise ModelUnavailable(
                f"cannot reach the model API at {self.settings.base_url or 'api.openai.com'}"
            ) from None


def server_message(exc) -> str:
    """The server's own error text, kept to one short line: it is untrusted."""
    body = exc.body if isinstance(exc.body, dict) else {}
    message = body.get("message") or str(exc)
    return " ".join(str(message).split())[:200]


class ReplayModel:
    """Plays recorded replies from a YAML file (`replies:` list), for demos and tests."""

    def __init__(self, path: Path):
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise UserError(f"{path}: cannot read replay file: {exc.strerror}") from None
        except yaml.YAMLError as exc:
            raise UserError(f"{path}: invalid YAML: {exc}".splitlines()[0]) from None
        replies = data.get("replies") if isinstance(data, dict) else None
        if not isinstance(replies, list) or not replies:
            raise UserError(f"{path}: a replay file needs a non-empty `replies:` list")
        self.replies = [as_reply(item, path, i) for i, item in enumerate(replies)]
        self.name = f"replay:{path}"
        self.banner = f"model: replaying {len(self.replies)} recorded replies from {path} (no model is called)"
        self.played = 0

    def complete(self, messages: list[dict[str, str]]) -> Reply:
        if self.played >= len(self.replies):
            raise UserError(f"{self.name}: all {len(self.replies)} recorded replies were used")
        self.played += 1
        return self.replies[self.played - 1]


def as_reply(item, path: Path, index: int) -> Reply:
    if isinstance(item, str):
        return Reply(item)
    if isinstance(item, dict) and isinstance(item.get("text"), str):
        return Reply(item["text"], int(item.get("input_tokens", 0)), int(item.get("output_tokens", 0)))
    raise UserError(f"{path}: replies[{index}]: must be a string or a mapping with `text`")


# Providers chosen by a `prefix:` on the model name; anything else goes to the OpenAI SDK,
# so names like Ollama's `llama3:8b` still work.
PROVIDERS: dict[str, Callable[[str, ModelSettings], Model]] = {
    "replay": lambda rest, settings: ReplayModel(Path(rest)),
    "local": lambda rest, settings: local_model(Path(rest)),
}


def local_model(path: Path) -> Model:
    from bot.models.local import LocalModel  # llama.cpp loads only for a local model

    return LocalModel(path)


def open_model(settings: ModelSettings) -> Model:
    if not settings.name:
        raise UserError("no model configured: pass --model NAME (or set AUTOFIX_MODEL, or `model:` in the spec)")
    prefix, _, rest = settings.name.partition(":")
    if rest and prefix in PROVIDERS:
        return PROVIDERS[prefix](rest, settings)
    if not settings.api_key and not settings.base_url:
        raise UserError("no API key: set OPENAI_API_KEY, or --base-url for a local OpenAI-compatible server")
    return OpenAIModel(settings)


def settings_from(args_model, args_base_url, args_api, spec_model, spec_api, environ=os.environ) -> ModelSettings:
    """Flags win over the spec, which wins over the environment's defaults."""
    return ModelSettings(
        name=args_model or spec_model or environ.get("AUTOFIX_MODEL"),
        api=args_api or spec_api or "responses",
        base_url=args_base_url or environ.get("OPENAI_BASE_URL") or None,
        api_key=environ.get("OPENAI_API_KEY") or None,
    )
