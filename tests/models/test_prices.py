"""What a run costs: the dated list prices with their cached-input column, a spec's `price:`, and
cached input tokens counted from the SDK's usage (Responses and Chat Completions) through the
loop into the report's `cost_usd` and the console's last line."""

import json
from types import SimpleNamespace

import pytest
from conftest import RIGHT, WRONG
from fake_openai import Reply, ScriptedOpenAI

from bot.cli import main
from bot.models.base import ModelSettings
from bot.models.openai_api import OpenAIModel, cached_tokens
from bot.models.prices import LIST, Price, price_of
from bot.spec import ModelPrice


def test_the_list_holds_input_cached_input_and_output_per_million():
    assert {name: (p.input, p.cached_input, p.output) for name, p in LIST.items()} == {
        "gpt-4.1": (2.00, 0.50, 8.00),
        "gpt-4.1-mini": (0.40, 0.10, 1.60),
        "gpt-4.1-nano": (0.10, 0.025, 0.40),
        "gpt-4o": (2.50, 1.25, 10.00),
        "gpt-4o-mini": (0.15, 0.075, 0.60),
    }


def test_cached_tokens_are_part_of_the_input_and_cost_the_cached_rate():
    mini = price_of("gpt-4.1-mini-2025-04-14")
    assert mini is LIST["gpt-4.1-mini"]
    # 1,000,000 in, 600,000 of them cached, 100,000 out: 0.4 * 0.4 + 0.6 * 0.1 + 0.1 * 1.6
    assert mini.of(1_000_000, 100_000, cached=600_000) == pytest.approx(0.38)
    assert mini.of(1_000_000, 100_000) == pytest.approx(0.56)  # nothing cached: the old figure
    assert mini.of(100, 0, cached=500) == pytest.approx(100 * 0.10 / 1e6)  # never more cached than input


def test_a_given_price_without_cached_input_charges_cached_tokens_as_input():
    given = price_of("my-own", ModelPrice(input=1.0, output=2.0))
    assert given == Price(1.0, 2.0, None)
    assert given.of(1_000_000, 0, cached=1_000_000) == pytest.approx(1.0)
    cheaper = price_of("gpt-4.1", ModelPrice(input=1.0, output=2.0, cached_input=0.25))
    assert cheaper == Price(1.0, 2.0, 0.25)  # the spec's price wins over the list's
    assert cheaper.of(1_000_000, 0, cached=1_000_000) == pytest.approx(0.25)


@pytest.mark.parametrize("api", ["responses", "chat"])
def test_the_sdk_reports_cached_tokens_on_both_apis(api):
    with ScriptedOpenAI([Reply("x = 1", 1200, 30, cached_tokens=1024), Reply("y = 2", 50, 5)]) as fake:
        model = OpenAIModel(ModelSettings(name="m", api=api, base_url=fake.base_url, api_key="k", max_retries=0))
        first, second = model.complete([{"role": "user", "content": "hi"}]), model.complete([])
    assert (first.input_tokens, first.output_tokens, first.cached_tokens) == (1200, 30, 1024)
    assert second.cached_tokens == 0  # the scripted server's default, as before


def test_a_server_that_sends_no_usage_details_has_no_cached_tokens():
    assert cached_tokens(None, "input_tokens_details") == 0
    assert cached_tokens(SimpleNamespace(prompt_tokens=5), "prompt_tokens_details") == 0
    assert cached_tokens(SimpleNamespace(prompt_tokens_details=None), "prompt_tokens_details") == 0
    details = SimpleNamespace(cached_tokens=None)
    assert cached_tokens(SimpleNamespace(prompt_tokens_details=details), "prompt_tokens_details") == 0


@pytest.mark.parametrize("api", ["responses", "chat"])
def test_a_run_with_cached_tokens_costs_the_cached_rate(task, capsys, api):
    report = task.parent / "report.json"
    script = [Reply(WRONG, 1000, 500), Reply(RIGHT, 3000, 500, cached_tokens=2000)]
    with ScriptedOpenAI(script) as fake:
        argv = ["run", str(task), "--base-url", fake.base_url, "--model", "gpt-4.1-mini", "--api", api]
        assert main([*argv, "--report", str(report)]) == 0
    # gpt-4.1-mini: 2000 uncached in at $0.40, 2000 cached at $0.10, 1000 out at $1.60 per million:
    # 0.0008 + 0.0002 + 0.0016 = $0.0026 (without the cache: $0.0032)
    assert capsys.readouterr().out.splitlines()[-1].endswith(", 5000 tokens, $0.0026)")
    data = json.loads(report.read_text())
    assert data["cost_usd"] == 0.0026
    assert data["tokens"] == {"input": 4000, "output": 1000} and data["cached_tokens"] == 2000
    assert [a["cached_tokens"] for a in data["attempts"]] == [0, 2000]
    assert data["price"] == {"input": 0.40, "output": 1.60, "cached_input": 0.10}


def test_a_spec_price_with_and_without_cached_input(task, capsys):
    report = task.parent / "report.json"
    spec = task.read_text()
    for price, dollars in (
        ("{input: 1.0, output: 2.0, cached_input: 0.25}", 0.0023),
        ("{input: 1.0, output: 2.0}", 0.0026),
    ):
        task.write_text(spec + f"price: {price}\n")
        with ScriptedOpenAI([Reply(RIGHT, 1600, 500, cached_tokens=400)]) as fake:
            argv = ["run", str(task), "--base-url", fake.base_url, "--model", "my-own", "--report", str(report)]
            assert main(argv) == 0
        # 1200 in at $1, 400 cached at $0.25 (or $1 when the spec gives no cached price), 500 out at $2
        assert json.loads(report.read_text())["cost_usd"] == dollars
        assert capsys.readouterr().out.splitlines()[-1].endswith(f", 2100 tokens, ${dollars:.4f})")
