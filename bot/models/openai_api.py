"""The official OpenAI SDK, against OpenAI or any compatible endpoint (Ollama, vLLM, llama.cpp...)."""

from __future__ import annotations

import random
import ssl
import time
from collections.abc import Mapping
from typing import Any

from bot.errors import ModelUnavailable, UserError, warn
from bot.models.base import ModelSettings, Reply, request_reply_tokens, request_seed, request_temperature


class OpenAIModel:
    """The official SDK, against OpenAI or any compatible endpoint (Ollama, vLLM, llama.cpp...)."""

    def __init__(self, settings: ModelSettings):
        self.name = settings.name
        self.settings = settings
        self.api = settings.api  # "chat" once a server without the Responses API said so
        where = settings.base_url or "api.openai.com"
        self.banner = f"model: {settings.name} via the {settings.api} API at {where}"
        self._client: Any = None  # an openai.OpenAI, made on the first call

    def client(self):
        if self._client is None:
            import openai  # costs ~0.5-0.9 s: paid only when a model is really called

            extra: dict[str, Any] = {}
            if self.settings.ca_bundle:  # the SDK's own client, verifying against these certificates
                context = ssl.create_default_context(cafile=self.settings.ca_bundle)
                extra["http_client"] = openai.DefaultHttpxClient(verify=context)
            self._client = openai.OpenAI(
                api_key=self.settings.api_key or "unused",
                base_url=self.settings.base_url,
                timeout=self.settings.timeout,
                max_retries=0,  # `complete` retries, but never a request that timed out
                **extra,
            )
        return self._client

    def complete(self, messages: list[dict[str, str]]) -> Reply:
        """One request, tried again (`max_retries` times, with backoff) when it failed before the
        server could generate: no connection, 408, 409, 429, a 5xx. Never after a timeout: the SDK
        would send the request again while the server still generates the first reply (a model that
        rambles takes half an hour), and the retry waits behind it; the run stops instead."""
        for retry in range(self.settings.max_retries + 1):
            try:
                return self.ask(messages)
            except Unanswered as exc:
                if retry == self.settings.max_retries or not exc.retryable:
                    raise ModelUnavailable(str(exc)) from None
                time.sleep(backoff(retry, exc.headers))
        raise AssertionError("unreachable: the last try returns or raises")

    def ask(self, messages: list[dict[str, str]]) -> Reply:
        import openai

        try:
            # Only what was asked for is sent: without it, the endpoint's own defaults hold.
            sampling: dict[str, Any] = {}
            limit = request_reply_tokens(self.settings)  # always sent: a reply that never ends stalls the run
            temperature = request_temperature(self.settings)
            if temperature is not None:
                sampling["temperature"] = temperature
            if self.api == "chat":
                seed = request_seed(self.settings)  # the Responses API takes no seed
                if seed is not None:
                    sampling["seed"] = seed
                # `max_tokens`, which llama.cpp's server, Ollama and vLLM read (OpenAI's reasoning
                # models want `max_completion_tokens`: they are called through the Responses API).
                response = self.client().chat.completions.create(
                    model=self.name, messages=messages, max_tokens=limit, **sampling
                )
                usage, choice = response.usage, response.choices[0]
                return Reply(
                    choice.message.content or "",
                    usage.prompt_tokens if usage else 0,
                    usage.completion_tokens if usage else 0,
                    cached_tokens(usage, "prompt_tokens_details"),
                    cut_at=limit if choice.finish_reason == "length" else None,
                )
            response = self.client().responses.create(
                model=self.name, input=messages, max_output_tokens=limit, **sampling
            )
            usage, incomplete = response.usage, response.incomplete_details
            cut = response.status == "incomplete" and getattr(incomplete, "reason", None) == "max_output_tokens"
            return Reply(
                response.output_text,
                usage.input_tokens if usage else 0,
                usage.output_tokens if usage else 0,
                cached_tokens(usage, "input_tokens_details"),
                cut_at=limit if cut else None,
            )
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise UserError(
                f"the model API refused the credentials ({exc.status_code}): {server_message(exc)}; "
                "check OPENAI_API_KEY"
            ) from None
        except openai.NotFoundError as exc:
            if self.api == "responses" and self.settings.base_url:
                # llama.cpp's server, older vLLMs and others serve only Chat Completions.
                self.api = "chat"
                warn(
                    f"the server at {self.settings.base_url} has no Responses API (404); using Chat Completions "
                    "(set --api chat, or the Action's `api: chat` input, to skip this)"
                )
                return self.ask(messages)
            raise UserError(
                f"the model API rejected the request ({exc.status_code}): {server_message(exc)}; "
                f"check --model and --base-url{'' if self.api == 'chat' else ', or use --api chat'}"
            ) from None
        except (openai.BadRequestError, openai.UnprocessableEntityError) as exc:
            raise UserError(
                f"the model API rejected the request ({exc.status_code}): {server_message(exc)}; "
                "check --model, --api and --base-url"
            ) from None
        except openai.APIStatusError as exc:
            raise Unanswered(
                f"the model API failed after retries ({exc.status_code}): {server_message(exc)}",
                retryable(exc.response),
                exc.response.headers,
            ) from None
        except openai.APITimeoutError:
            # A slow server, not a broken one, most often: a model on a CPU takes minutes over a long prompt.
            raise ModelUnavailable(
                f"the model did not answer within {self.settings.timeout:g} s (not tried again: it may still be "
                "generating); raise request_timeout for a slow endpoint"
            ) from None
        except openai.APIConnectionError:
            raise Unanswered(f"cannot reach the model API at {self.settings.base_url or 'api.openai.com'}") from None


class Unanswered(ModelUnavailable):
    """A request the server failed before it generated anything: `retryable` when another try may
    get an answer (no connection; 408, 409, 429 or a 5xx, unless the server said not to retry)."""

    def __init__(self, message: str, retryable: bool = True, headers: Mapping[str, str] | None = None):
        super().__init__(message)
        self.retryable, self.headers = retryable, headers or {}


FIRST_WAIT, LONGEST_WAIT = 0.5, 8.0  # seconds between tries, doubling: the SDK's own backoff
LONGEST_ASKED = 60.0  # a server's retry-after beyond this is not waited for (the backoff is)


def retryable(response: Any) -> bool:
    """What the SDK retries (its `_should_retry`): the server's `x-should-retry`, else 408, 409, 429, 5xx."""
    said = response.headers.get("x-should-retry")
    if said in ("true", "false"):
        return said == "true"
    return response.status_code in (408, 409, 429) or response.status_code >= 500


def backoff(retry: int, headers: Mapping[str, str]) -> float:
    """Seconds to wait before try `retry + 2`: the server's retry-after-ms or retry-after (in
    seconds) when it says one within reason, else the SDK's doubling wait, less up to a quarter."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            asked = float(headers.get(name, "")) * scale
        except ValueError:
            continue
        if 0 < asked <= LONGEST_ASKED:
            return asked
    return min(FIRST_WAIT * 2**retry, LONGEST_WAIT) * (1 - 0.25 * random.random())


def cached_tokens(usage: Any, details: str) -> int:
    """The input tokens served from the prompt cache: `usage.<details>.cached_tokens` (Responses:
    input_tokens_details, Chat Completions: prompt_tokens_details); 0 when the server doesn't say
    (Ollama, llama.cpp and older vLLMs send no details)."""
    return getattr(getattr(usage, details, None), "cached_tokens", None) or 0


def server_message(exc) -> str:
    """The server's own error text, kept to one short line: it is untrusted."""
    body = exc.body if isinstance(exc.body, dict) else {}
    message = body.get("message") or str(exc)
    return " ".join(str(message).split())[:200]


def provider(rest: str, settings: ModelSettings) -> OpenAIModel:
    return OpenAIModel(settings)
