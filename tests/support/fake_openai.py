"""A scripted, OpenAI-compatible HTTP server for tests (stdlib only).

Tests point the real ``openai`` SDK at it, so the SDK's own request building,
response parsing, error mapping and retry logic are exercised end to end:

    with ScriptedOpenAI(["first reply", Failure(429, "slow down")]) as fake:
        client = openai.OpenAI(base_url=fake.base_url, api_key="test", max_retries=0)
        ...
        assert "the bug" in fake.prompts()[0]

Each request to POST /v1/responses or POST /v1/chat/completions consumes the
next script item, whichever endpoint it hits.  Script items:

    str                 -> 200 reply with that text
    Reply(text, ...)    -> 200 reply with that text and chosen usage numbers
                           (cached_tokens=n: n of the input tokens came from the
                           prompt cache, as OpenAI reports them; finish_reason=
                           "length": the reply stopped at the request's token
                           limit -- Chat's finish_reason, and the Responses
                           API's status "incomplete" for max_output_tokens)
    Failure(status, msg)-> that status with an OpenAI-style error body
    Hang(seconds)       -> wait that long, then a 200 reply with text ""
    callable(json)      -> called with the parsed request body; returns any of
                           the above (except another callable)

Default usage numbers (when a str is given, or Reply leaves them None):
input tokens = characters of prompt text (see ``prompt_text``) // 4 and
output tokens = characters of the reply // 4 -- deterministic, and roughly
OpenAI's "4 characters per token" rule of thumb; cached tokens = 0.  Cached
tokens are part of the input tokens, as in OpenAI's usage: Responses report
them as ``usage.input_tokens_details.cached_tokens``, Chat Completions as
``usage.prompt_tokens_details.cached_tokens``.

Requests that are not scripted calls (unknown path, bad JSON, ``stream: true``)
get a 4xx error JSON and do not consume a script item.  They are still
recorded.  When the script runs out, every further call gets a 500 whose message
says "script exhausted", so a test that sends too many requests fails loudly.
"""

from __future__ import annotations

import http.server
import itertools
import json
import re
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ScriptedOpenAI", "Reply", "Failure", "Hang", "Recorded", "prompt_text"]


@dataclass(frozen=True)
class Reply:
    text: str
    input_tokens: int | None = None  # None -> len(prompt text) // 4
    output_tokens: int | None = None  # None -> len(text) // 4
    cached_tokens: int = 0  # of the input tokens, served from the prompt cache
    finish_reason: str = "stop"  # "length": cut at the request's max_tokens / max_output_tokens


@dataclass(frozen=True)
class Failure:
    status: int
    message: str
    type: str | None = None  # None -> "server_error" for 5xx, else "invalid_request_error"
    code: str | None = None
    # Extra response headers, e.g. {"retry-after-ms": "1"}: the SDK honours it,
    # which makes retry tests fast (its default backoff starts at 0.5 s).
    headers: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Hang:
    seconds: float


ScriptItem = str | Reply | Failure | Hang | Callable[[dict], Any]


@dataclass
class Recorded:
    path: str
    json: Any  # parsed body; None if the body was not valid JSON
    headers: dict[str, str]  # lower-case keys; includes "authorization" as sent


STAGE = re.compile(r"^\[autofix:(\w+)\]")


class ScriptedOpenAI:
    """Context manager. Serves POST /v1/responses and POST /v1/chat/completions.

    `script`: the items to answer with, in order; or, by stage, `{"localize": [...], "repair":
    [...]}`: each request takes the next item of the stage its prompt's tag names (`[autofix:repair]`
    at the start of the system message)."""

    def __init__(
        self,
        script: list | dict[str, list],
        endpoints: tuple[str, ...] = ("/v1/responses", "/v1/chat/completions"),
        tls: ssl.SSLContext | None = None,  # served over HTTPS with this server context
    ) -> None:
        self.tls = tls
        self._staged = {stage: list(items) for stage, items in script.items()} if isinstance(script, dict) else None
        self._script = [] if isinstance(script, dict) else list(script)
        self.endpoints = endpoints  # what it serves: ("/v1/chat/completions",) is a llama.cpp server
        self._lock = threading.Lock()  # handlers run on concurrent threads
        # Set on exit so that Hang items stop waiting at once and shutdown
        # never has to wait out a long Hang.
        self._closing = threading.Event()
        self._ids = itertools.count(1)
        self.requests: list[Recorded] = []
        self.base_url = ""
        self._server: http.server.ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -----------------------------------------------------------

    def __enter__(self) -> ScriptedOpenAI:
        fake = self

        class Handler(_Handler):
            owner = fake

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        port = self._server.server_address[1]
        if self.tls is not None:
            self._server.socket = self.tls.wrap_socket(self._server.socket, server_side=True)
        self.base_url = f"{'https' if self.tls else 'http'}://127.0.0.1:{port}/v1"
        # serve_forever only notices shutdown() between polls; the default 0.5 s
        # poll would add half a second to every test's exit.
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.01},
            name="ScriptedOpenAI",
            daemon=True,
        )
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._closing.set()
        assert self._server is not None and self._thread is not None
        self._server.shutdown()  # stops serve_forever (returns once it has)
        self._server.server_close()  # closes the socket, joins handler threads
        self._thread.join()

    # -- inspection ----------------------------------------------------------

    def prompts(self) -> list[str]:
        """For each recorded request, its system/developer/user text joined with "\\n"."""
        with self._lock:
            bodies = [r.json for r in self.requests]
        return [prompt_text(b) for b in bodies]

    @property
    def remaining(self) -> int:
        """Script items not yet consumed (handy to assert a test used them all)."""
        with self._lock:
            return len(self._script) + sum(map(len, (self._staged or {}).values()))

    def stages(self) -> list[str]:
        """The stage tag of each recorded request, in order ("" for an untagged one)."""
        found = [STAGE.match(text) for text in self.prompts()]
        return [match[1] if match else "" for match in found]

    # -- used by the handler -------------------------------------------------

    def _record(self, rec: Recorded) -> None:
        with self._lock:
            self.requests.append(rec)

    def _next_item(self, body: dict) -> ScriptItem | None:
        with self._lock:
            if self._staged is None:
                return self._script.pop(0) if self._script else None
            tag = STAGE.match(prompt_text(body))
            queue = self._staged.get(tag[1] if tag else "", [])
            return queue.pop(0) if queue else None


def prompt_text(body: Any) -> str:
    """All system/developer/user text a Responses or Chat request carries.

    Responses: ``instructions`` and ``input`` (a string, or a list of
    {role, content} items whose content is a string or a list of
    {type: "input_text", text} parts).  Chat: ``messages[].content`` (a string
    or a list of {type: "text", text} parts).  Assistant and tool turns are
    left out: they are model output, not prompt.
    """
    if not isinstance(body, dict):
        return ""
    texts: list[str] = []

    def add_content(content: Any) -> None:
        if isinstance(content, str):
            texts.append(content)
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, str):
                    texts.append(part)
                elif (
                    isinstance(part, dict)
                    and part.get("type") in ("input_text", "text")
                    and isinstance(part.get("text"), str)
                ):
                    texts.append(part["text"])

    def add_messages(items: Any) -> None:
        if isinstance(items, str):
            texts.append(items)
            return
        if not isinstance(items, list):
            return
        for item in items:
            if isinstance(item, dict) and item.get("role", "user") in ("system", "developer", "user"):
                add_content(item.get("content"))

    add_messages(body.get("instructions"))  # Responses
    add_messages(body.get("input"))  # Responses
    add_messages(body.get("messages"))  # Chat Completions
    return "\n".join(texts)


# -- HTTP plumbing ---------------------------------------------------------------

_ENDPOINTS = ("/v1/responses", "/v1/chat/completions")


class _Handler(http.server.BaseHTTPRequestHandler):
    owner: ScriptedOpenAI  # set on the per-server subclass
    # HTTP/1.0: one request per connection, so no idle keep-alive connection
    # can hold a handler thread (and therefore server_close) open.
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep pytest output clean

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def _handle(self) -> None:
        # Never let an exception escape: a crashed handler would show up as a
        # confusing connection error in the SDK instead of a readable message.
        try:
            self._dispatch()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (e.g. its timeout fired during a Hang)
        except Exception as exc:  # noqa: BLE001 - report any fake bug to the client
            try:
                self._send_error(500, f"fake server error: {exc!r}", "server_error")
            except OSError:
                pass

    def _dispatch(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        path = self.path.split("?", 1)[0]
        self.owner._record(Recorded(path=path, json=body, headers={k.lower(): v for k, v in self.headers.items()}))

        if self.command != "POST" or path not in _ENDPOINTS or path not in self.owner.endpoints:
            return self._send_error(404, f"the fake does not serve {self.command} {path}")
        if not isinstance(body, dict):
            return self._send_error(400, "request body must be a JSON object")
        if body.get("stream"):
            return self._send_error(400, "streaming not supported by the fake")

        item = self.owner._next_item(body)
        if item is None:
            return self._send_error(500, "script exhausted: no scripted reply left", "server_error")
        if callable(item):
            item = item(body)  # an exception here becomes a 500 via _handle
        if isinstance(item, Hang):
            self.owner._closing.wait(item.seconds)  # returns early when the fake exits
            item = Reply("")
        if isinstance(item, str):
            item = Reply(item)
        if isinstance(item, Failure):
            etype = item.type or ("server_error" if item.status >= 500 else "invalid_request_error")
            return self._send_error(item.status, item.message, etype, item.code, item.headers)
        if not isinstance(item, Reply):
            raise TypeError(f"bad script item: {item!r}")

        usage_in = item.input_tokens if item.input_tokens is not None else len(prompt_text(body)) // 4
        usage_out = item.output_tokens if item.output_tokens is not None else len(item.text) // 4
        model = body.get("model") if isinstance(body.get("model"), str) else "fake-model"
        n = next(self.owner._ids)
        if path == "/v1/responses":
            payload = _responses_payload(n, model, item.text, usage_in, usage_out, item.cached_tokens)
            if item.finish_reason == "length":
                payload |= {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}
                payload["output"][0]["status"] = "incomplete"
        else:
            payload = _chat_payload(n, model, item.text, usage_in, usage_out, item.cached_tokens)
            payload["choices"][0]["finish_reason"] = item.finish_reason
        self._send_json(200, payload)

    def _send_error(
        self,
        status: int,
        message: str,
        etype: str = "invalid_request_error",
        code: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self._send_json(status, {"error": {"message": message, "type": etype, "param": None, "code": code}}, headers)

    def _send_json(self, status: int, payload: dict, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)


# Shapes follow openai/types/responses/response.py (+ response_output_message.py,
# response_output_text.py, response_usage.py) and openai/types/chat/chat_completion.py
# (+ completion_usage.py): every required field is present so the SDK's models
# validate strictly, not just leniently.


def _responses_payload(n: int, model: str, text: str, tin: int, tout: int, cached: int = 0) -> dict:
    return {
        "id": f"resp_fake_{n}",
        "object": "response",
        "created_at": int(time.time()),
        "status": "completed",
        "model": model,
        "output": [
            {
                "id": f"msg_fake_{n}",
                "type": "message",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "output_text", "text": text, "annotations": []}],
            }
        ],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "metadata": {},
        "temperature": None,
        "top_p": None,
        "usage": {
            "input_tokens": tin,
            "input_tokens_details": {"cached_tokens": cached, "cache_write_tokens": 0},
            "output_tokens": tout,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": tin + tout,
        },
    }


def _chat_payload(n: int, model: str, text: str, tin: int, tout: int, cached: int = 0) -> dict:
    return {
        "id": f"chatcmpl-fake-{n}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "logprobs": None,
                "message": {"role": "assistant", "content": text, "refusal": None},
            }
        ],
        "usage": {
            "prompt_tokens": tin,
            "completion_tokens": tout,
            "total_tokens": tin + tout,
            "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
        },
    }
