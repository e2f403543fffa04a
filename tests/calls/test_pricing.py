"""Prices from LiteLLM's price map (read offline, lazily), a user's price file over it, and
unpriced models."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from llm_eval.adapters import Usage
from llm_eval.pricing import (
    PriceFileError,
    book_for,
    describe_cost,
    litellm_name,
    load_prices,
    price,
    source_of_record,
)

USAGE = Usage(input_tokens=12_000, output_tokens=900, cache_read_tokens=4_096)
ROUTES = ("openai/gpt-4.1-mini", "openai-chat/gpt-4.1-mini", "litellm/gpt-4.1-mini")


def test_one_model_through_three_routes_costs_what_litellm_says():
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    costs = {route: price(USAGE, route) for route in ROUTES}
    assert len({c.usd for c in costs.values()}) == 1
    cost = costs["openai/gpt-4.1-mini"]
    prompt, completion = litellm.cost_per_token(
        model="gpt-4.1-mini", prompt_tokens=USAGE.input_tokens,
        completion_tokens=USAGE.output_tokens, cache_read_input_tokens=USAGE.cache_read_tokens)
    assert cost.usd == pytest.approx(prompt + completion, rel=1e-9)
    entry = litellm.model_cost["gpt-4.1-mini"]
    assert cost.parts["cache_read"] == pytest.approx(
        USAGE.cache_read_tokens * entry["cache_read_input_token_cost"])
    assert cost.model == "gpt-4.1-mini"
    from importlib.metadata import version

    assert cost.source == f"LiteLLM price map (litellm {version('litellm')})"


def test_litellm_names():
    assert litellm_name("openai/gpt-5") == "openai/gpt-5"
    assert litellm_name("openai-chat/gpt-5") == "openai/gpt-5"
    assert litellm_name("anthropic/claude-sonnet-4-5") == "anthropic/claude-sonnet-4-5"
    assert litellm_name("litellm/gemini/gemini-2.5-pro") == "gemini/gemini-2.5-pro"
    assert litellm_name("replay/runs/a.jsonl") is None and litellm_name("random") is None
    # a bare map entry serves a prefixed name only for its own provider
    assert price(USAGE, "anthropic/claude-sonnet-4-5").model == "claude-sonnet-4-5"
    assert price(USAGE, "anthropic/gpt-4.1-mini") is None


def test_cache_writes_reasoning_and_long_prompts_use_the_maps_rates():
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    entry = litellm.model_cost["claude-sonnet-4-5"]
    usage = Usage(input_tokens=10_000, output_tokens=100, cache_write_tokens=6_000)
    cost = price(usage, "anthropic/claude-sonnet-4-5")
    assert cost.parts["cache_write"] == pytest.approx(6_000 *
                                                     entry["cache_creation_input_token_cost"])
    assert cost.parts["input"] == pytest.approx(4_000 * entry["input_cost_per_token"])
    gemini = litellm.model_cost["gemini/gemini-2.5-pro"]
    long = price(Usage(input_tokens=300_000, output_tokens=10), "litellm/gemini/gemini-2.5-pro")
    assert long.parts["input"] == pytest.approx(
        300_000 * gemini["input_cost_per_token_above_200k_tokens"])


def test_a_price_file_overrides_and_adds_models(tmp_path):
    path = tmp_path / "prices.yaml"
    path.write_text("# negotiated\nmodels:\n"
                    "  gpt-4.1-mini: {input: 0.2, output: 0.8}\n"
                    "  openai-chat/smollm2-135m: {input: 0.01, output: 0.02, reasoning: 1}\n")
    book = load_prices(path)
    for route in ROUTES:
        cost = price(USAGE, route, book)
        assert cost.usd == pytest.approx((12_000 * 0.2 + 900 * 0.8) / 1e6)  # cache = input
        assert cost.source == f"prices file {path}"
    assert price(USAGE, "openai-chat/gpt-4.1-mini").usd != cost.usd   # the map's is unchanged
    local = price(Usage(input_tokens=100, output_tokens=10, reasoning_tokens=4),
                  "openai-chat/smollm2-135m", book)
    assert local.parts == pytest.approx({"input": 1e-6, "cache_read": 0, "cache_write": 0,
                                         "output": 6 * 0.02e-6, "reasoning": 4e-6})
    assert book.describe()["file"] == str(path) and len(book.describe()["file_sha256"]) == 64
    # the same data inline, as a sweep spec's prices: holds it
    inline = book_for({"models": {"gpt-4.1-mini": {"input": 0.2, "output": 0.8}}})
    assert price(USAGE, "litellm/gpt-4.1-mini", inline).usd == pytest.approx(cost.usd)


@pytest.mark.parametrize("text,message", [
    ("models:\n  m: {input: 1}\n", r"prices.yaml:2: models.m: missing output"),
    ("models:\n  m:\n    input: 1\n    output: -2\n", r"prices.yaml:4: models.m.output: a rate"),
    ("models:\n  m: {input: 1, output: 1, cached: 2}\n", r"models.m.cached: unknown rate"),
    ("version: 1\nmodels: {}\n", r"prices.yaml:1: version: unknown field"),
    ("[1, 2]\n", r"prices.yaml: a price file is a mapping"),
    ("models: {m: [\n", r"prices.yaml:\d+: not valid YAML"),
])
def test_a_bad_price_file_names_the_file_line_and_field(tmp_path, text, message):
    path = tmp_path / "prices.yaml"
    path.write_text(text)
    with pytest.raises(PriceFileError, match=message):
        load_prices(path)


def test_an_unknown_model_is_unpriced_never_zero():
    assert price(USAGE, "openai-chat/smollm2-135m") is None
    assert describe_cost(None) == "unpriced" and describe_cost(0.0) == "$0.0000"
    book = load_prices()
    assert book.unpriced(["random", "replay/x.jsonl", "openai-chat/smollm2-135m",
                          "openai/gpt-4.1-mini"]) == ["openai-chat/smollm2-135m"]


def test_a_stored_usage_is_repriced_and_old_costs_name_their_table():
    stored = {"input_tokens": 12_000, "output_tokens": 900, "reasoning_tokens": 0,
              "cache_read_tokens": 4_096, "cache_write_tokens": 0}
    assert price(stored, "openai/gpt-4.1-mini").usd == price(USAGE, "openai/gpt-4.1-mini").usd
    old = {"usd": 0.001, "model": "gpt-4.1-mini", "table_version": 1,
           "table_date": "2026-01-15", "parts": {}}
    assert source_of_record({}, old) == \
        "the hand-written table of earlier versions (version 1 of 2026-01-15)"
    assert source_of_record({"prices": {"map": "litellm", "litellm": "9.9", "file": "p.yaml"}},
                            None) == "LiteLLM price map (litellm 9.9) under prices file p.yaml"


def test_importing_reads_no_map_and_no_litellm():
    code = ("import sys, llm_eval.pricing as p; "
            "print(p._litellm_map.cache_info().currsize, 'litellm' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["0", "False"]


def test_the_map_is_read_once_per_process():
    from llm_eval import pricing

    price(USAGE, "openai/gpt-4.1-mini")
    price(USAGE, "anthropic/claude-sonnet-4-5")
    assert pricing._litellm_map.cache_info().misses <= 1
    assert json.dumps(load_prices().describe()).startswith('{"map": "litellm"')
