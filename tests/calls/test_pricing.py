"""The shipped price table and ``price``."""

from __future__ import annotations

import pytest

from adapters import Usage
from llm_eval.pricing import PriceTableError, load_prices, price


def test_table_is_dated_and_versioned():
    table = load_prices()
    assert table.version >= 1 and table.date.startswith("20")
    assert {"gpt-5", "claude-sonnet-4-5", "gemini-2.5-pro"} <= set(table.models)


def test_price_by_token_kind():
    usage = Usage(input_tokens=3_000_000, output_tokens=1_000_000, reasoning_tokens=400_000,
                  cache_read_tokens=1_000_000, cache_write_tokens=1_000_000)
    cost = price(usage, "claude-sonnet-4-5-20250929")
    assert cost.model == "claude-sonnet-4-5"
    assert cost.parts == pytest.approx({"input": 3.0, "cache_read": 0.3, "cache_write": 3.75,
                                        "output": 15.0})
    assert cost.usd == pytest.approx(22.05)


def test_names_with_provider_prefix_and_unknown_models():
    assert price(Usage(input_tokens=1_000_000), "gemini/gemini-2.5-pro").usd == 1.25
    assert price(Usage(input_tokens=10), "no-such-model") is None


def test_separate_reasoning_price_and_bad_tables(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("version: 2\ndate: '2026-02-01'\nmodels:\n  m: {input: 1, cache_read: 0, "
                    "cache_write: 0, output: 2, reasoning: 4}\n")
    cost = price(Usage(output_tokens=1_000_000, reasoning_tokens=500_000), "m",
                 load_prices(path))
    assert cost.parts["output"] == 1.0 and cost.parts["reasoning"] == 2.0
    assert cost.table_version == 2
    path.write_text("version: 2\ndate: x\nmodels:\n  m: {input: 1}\n")
    with pytest.raises(PriceTableError, match="models.m: missing"):
        load_prices(path)
