"""The fake OpenAI server, driven by the real openai SDK."""

from __future__ import annotations

import time

import openai
import pytest
from fake_openai import Failure, Hang, Reply, ScriptedOpenAI
from openai.types.chat import ChatCompletion
from openai.types.responses import Response


def client(fake: ScriptedOpenAI, **kw) -> openai.OpenAI:
    kw.setdefault("max_retries", 0)
    return openai.OpenAI(base_url=fake.base_url, api_key="test", **kw)


def test_responses_returns_scripted_text_and_usage():
    with ScriptedOpenAI([Reply("hello", input_tokens=11, output_tokens=7)]) as fake:
        r = client(fake).responses.create(model="m", input="fix the bug")
    assert r.output_text == "hello"
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.total_tokens) == (11, 7, 18)
    assert fake.requests[0].path == "/v1/responses"
    assert fake.requests[0].json["model"] == "m"
    assert fake.requests[0].headers["authorization"] == "Bearer test"


def test_chat_returns_scripted_text_and_usage():
    with ScriptedOpenAI([Reply("hi there", input_tokens=3, output_tokens=2)]) as fake:
        c = client(fake).chat.completions.create(model="m", messages=[{"role": "user", "content": "yo"}])
    assert c.choices[0].message.content == "hi there"
    assert (c.usage.prompt_tokens, c.usage.completion_tokens) == (3, 2)
    assert fake.requests[0].path == "/v1/chat/completions"


def test_plain_string_uses_default_usage():
    prompt, reply = "x" * 40, "y" * 12
    with ScriptedOpenAI([reply, reply]) as fake:
        r = client(fake).responses.create(model="m", input=prompt)
        c = client(fake).chat.completions.create(model="m", messages=[{"role": "user", "content": prompt}])
    assert (r.usage.input_tokens, r.usage.output_tokens) == (10, 3)  # chars // 4
    assert (c.usage.prompt_tokens, c.usage.completion_tokens) == (10, 3)


def test_payloads_validate_strictly_against_sdk_models():
    # The SDK builds its models leniently; strict validation proves no required field is missing.
    with ScriptedOpenAI(["a", "b"]) as fake:
        raw_r = client(fake).responses.with_raw_response.create(model="m", input="q").http_response.json()
        raw_c = (
            client(fake)
            .chat.completions.with_raw_response.create(model="m", messages=[{"role": "user", "content": "q"}])
            .http_response.json()
        )
    assert Response.model_validate(raw_r).output_text == "a"
    assert ChatCompletion.model_validate(raw_c).choices[0].message.content == "b"


def test_script_is_shared_across_endpoints_in_order():
    with ScriptedOpenAI(["one", "two"]) as fake:
        cl = client(fake)
        assert (
            cl.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}])
            .choices[0]
            .message.content
            == "one"
        )
        assert cl.responses.create(model="m", input="q").output_text == "two"
        assert fake.remaining == 0


def test_500_then_text_is_retried_by_sdk():
    # Uses the SDK's real backoff (~0.4-0.5 s) once, on purpose.
    with ScriptedOpenAI([Failure(500, "boom"), "recovered"]) as fake:
        r = client(fake, max_retries=2).responses.create(model="m", input="q")
    assert r.output_text == "recovered"
    assert len(fake.requests) == 2


def test_failure_headers_reach_the_client():
    # retry-after-ms lets other tests retry without the SDK's default backoff.
    script = [Failure(429, "slow down", headers={"retry-after-ms": "1"}), "ok"]
    with ScriptedOpenAI(script) as fake:
        r = client(fake, max_retries=1).responses.create(model="m", input="q")
    assert r.output_text == "ok"
    assert len(fake.requests) == 2


def test_401_raises_authentication_error_with_openai_style_body():
    with (
        ScriptedOpenAI([Failure(401, "bad key", code="invalid_api_key")]) as fake,
        pytest.raises(openai.AuthenticationError) as ei,
    ):
        client(fake).chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}])
    assert ei.value.status_code == 401
    assert "bad key" in str(ei.value)
    assert ei.value.body == {
        "message": "bad key",
        "type": "invalid_request_error",
        "param": None,
        "code": "invalid_api_key",
    }


def test_prompts_returns_sent_text():
    with ScriptedOpenAI(["a", "b", "c"]) as fake:
        cl = client(fake)
        cl.responses.create(model="m", instructions="be terse", input="plain string")
        cl.responses.create(
            model="m",
            input=[
                {"role": "system", "content": "sys"},
                {
                    "role": "user",
                    "content": [{"type": "input_text", "text": "part1"}, {"type": "input_text", "text": "part2"}],
                },
                {"role": "assistant", "content": "earlier answer"},
            ],
        )
        cl.chat.completions.create(
            model="m",
            messages=[
                {"role": "system", "content": "chat sys"},
                {"role": "user", "content": [{"type": "text", "text": "chat user"}]},
            ],
        )
    assert fake.prompts() == ["be terse\nplain string", "sys\npart1\npart2", "chat sys\nchat user"]


def test_callable_item_computes_reply_from_request():
    def echo(body):
        return Reply("echo: " + body["input"], input_tokens=1, output_tokens=1)

    def broken(body):
        raise KeyError("oops")

    with ScriptedOpenAI([echo, lambda body: Failure(503, "down"), broken, "after"]) as fake:
        cl = client(fake)
        assert cl.responses.create(model="m", input="ping").output_text == "echo: ping"
        with pytest.raises(openai.InternalServerError, match="down"):
            cl.responses.create(model="m", input="ping")
        # A bug in a test's callable is reported as a 500, not a dead server.
        with pytest.raises(openai.InternalServerError, match="oops"):
            cl.responses.create(model="m", input="ping")
        assert cl.responses.create(model="m", input="ping").output_text == "after"


def test_script_exhaustion_gives_500():
    with ScriptedOpenAI(["only"]) as fake:
        cl = client(fake)
        cl.responses.create(model="m", input="q")
        with pytest.raises(openai.InternalServerError) as ei:
            cl.responses.create(model="m", input="q")
    assert ei.value.status_code == 500
    assert "script exhausted" in str(ei.value)


def test_stream_and_bad_requests_get_400_without_consuming_script():
    import urllib.error
    import urllib.request

    with ScriptedOpenAI(["still here"]) as fake:
        cl = client(fake)
        with pytest.raises(openai.BadRequestError, match="streaming not supported by the fake"):
            cl.responses.create(model="m", input="q", stream=True)
        req = urllib.request.Request(fake.base_url + "/responses", data=b"{not json", method="POST")
        with pytest.raises(urllib.error.HTTPError) as ei:
            urllib.request.urlopen(req)
        ei.value.close()
        assert ei.value.code == 400
        # The server survived both and the scripted item is still there.
        assert cl.responses.create(model="m", input="q").output_text == "still here"


def test_hang_triggers_client_timeout_and_exit_does_not_wait_it_out():
    start = time.monotonic()
    with ScriptedOpenAI([Hang(30)]) as fake, pytest.raises(openai.APITimeoutError):
        client(fake, timeout=0.2).responses.create(model="m", input="q")
    assert time.monotonic() - start < 5


def test_short_hang_then_replies_empty_text():
    with ScriptedOpenAI([Hang(0.01)]) as fake:
        assert client(fake).responses.create(model="m", input="q").output_text == ""
