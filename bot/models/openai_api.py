"""The official OpenAI SDK, against OpenAI or any compatible endpoint (Ollama, vLLM, llama.cpp...)."""

from __future__ import annotations

import ssl
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
                max_retries=self.settings.max_retries,
                **extra,
            )
        return self._client

    def complete(self, messages: list[dict[str, str]]) -> Reply:
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
                return self.complete(messages)
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
            raise ModelUnavailable(
                f"the model API failed after retries ({exc.status_code}): {server_message(exc)}"
            ) from None
        except openai.APITimeoutError:
            # A slow server, not a broken one, most often: a model on a CPU takes minutes over a long prompt.
            tries = self.settings.max_retries + 1
            raise ModelUnavailable(
                f"the model did not answer within {self.settings.timeout:g} s"
                f"{f' ({tries} tries)' if tries > 1 else ''}; raise request_timeout for a slow endpoint"
            ) from None
        except openai.APIConnectionError:
            raise ModelUnavailable(
                f"cannot reach the model API at {self.settings.base_url or 'api.openai.com'}"
            ) from None


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
