"""The token estimate, the request's blocks and the prompt cache each route bills."""

from __future__ import annotations

import pytest
from adapter_sample import PNG

from llm_eval.adapters import ImagePart, Message, Request, TextPart, Tool
from llm_eval.adapters.caching import (
    MIN_CACHED_TOKENS,
    PromptCache,
    cache_kind,
    marked_part,
    min_cached_tokens,
)
from llm_eval.adapters.tokens import blocks, estimate_image, estimate_request, estimate_text

TOOLS = (Tool(name="noop", description="do nothing", parameters={"type": "object"}),)
LONG = "The ball falls until it lands on the floor, then it rolls to the left. " * 40


def history(turns: int, *, image: bool = False) -> Request:
    """A request of ``turns`` turns, each past one the same objects every time (``TURNS``)."""
    messages = [SYSTEM]
    for i in range(turns):
        messages.append(TURNS[i][0])
        if i < turns - 1:
            messages.append(TURNS[i][1])
    if image:   # the latest turn's image, after its text
        last = messages[-1]
        messages[-1] = Message(role="user", parts=(*last.parts, ImagePart.from_bytes(PNG)))
    return Request(messages=tuple(messages), tools=TOOLS)


SYSTEM = Message.system(LONG)
TURNS = [(Message.user(f"turn {i}: {LONG}"), Message(role="assistant",
                                                     parts=(TextPart(text=f"reply {i}"),)))
         for i in range(12)]


def test_the_text_estimate():
    assert estimate_text("The quick brown fox jumps over the lazy dog.") == 10
    assert estimate_text("." * 16) == 2                 # a grid row of one symbol
    assert estimate_text("...w............") == 4
    assert estimate_text("123456") == 2
    assert estimate_text('["a","b"]') == 5
    assert estimate_text("") == 0


def test_an_image_counts_its_area():
    one_pixel = ImagePart.from_bytes(PNG)
    assert estimate_image(one_pixel) == 1
    assert estimate_image(ImagePart(data="bm90IGEgcG5n")) == 1600   # unreadable: the most


def test_blocks_reused_from_the_previous_request_equal_blocks_read_afresh():
    first = history(5)
    second = history(6)
    fresh = blocks(second)
    assert blocks(second, (first, blocks(first))) == fresh
    # a shared prefix has equal digests, the first differing block does not
    before = blocks(first)
    shared = len(before) - 1          # all but the latest turn's message
    assert [b.digest for b in before[:shared]] == [b.digest for b in fresh[:shared]]
    assert sum(b.tokens for b in fresh) == estimate_request(second)
    # other tools: nothing is reused, and every digest changes
    other = second.model_copy(update={"tools": ()})
    assert blocks(other, (first, before))[0].digest != fresh[0].digest


def test_the_moving_breakpoint_is_the_latest_text_before_any_image():
    assert marked_part(history(3, image=True)) == (5, 0)
    assert marked_part(history(3)) == (5, 0)


def test_explicit_cache_reads_what_the_last_request_wrote_and_off_reads_nothing():
    cache, off = PromptCache("explicit", "auto"), PromptCache("explicit", "off")
    bills = [cache.bill(history(n, image=True)) for n in range(1, 8)]
    assert bills[0].cache_read_tokens == 0 and bills[0].cache_write_tokens > 0
    for bill, n in zip(bills[1:], range(2, 8)):
        # read: the whole previous request up to its marker (its text; its image is not sent
        # again); written: the rest up to this request's marker; its image is plain input
        assert bill.cache_read_tokens == estimate_request(history(n - 1))
        assert bill.cache_write_tokens == bill.input_tokens - bill.cache_read_tokens - 1
    assert all(off.bill(history(n)).cache_read_tokens == 0 for n in range(1, 8))


def test_automatic_cache_reads_from_1024_tokens_in_steps_of_128():
    cache = PromptCache("automatic")
    first = cache.bill(history(1))
    assert (first.cache_read_tokens, first.cache_write_tokens) == (0, 0)
    second = cache.bill(history(2))
    assert second.cache_read_tokens >= MIN_CACHED_TOKENS
    assert (second.cache_read_tokens - MIN_CACHED_TOKENS) % 128 == 0
    small = PromptCache("automatic")
    tiny = Request(messages=(Message.system("short"), Message.user("hi")))
    small.bill(tiny)
    assert small.bill(tiny).cache_read_tokens == 0     # under 1,024 tokens: never cached
    assert PromptCache("none").bill(history(3)).cache_read_tokens == 0


@pytest.mark.parametrize("model,options,kind", [
    ("anthropic/claude-sonnet-4-5", {}, "explicit"),
    ("openai/gpt-4.1", {}, "automatic"),
    ("openai-chat/gpt-4.1", {}, "automatic"),
    ("openai-chat/smollm2", {"base_url": "http://127.0.0.1:8000/v1"}, "none"),
    ("litellm/anthropic/claude-sonnet-4-5", {}, "explicit"),
    ("litellm/claude-sonnet-4-5", {}, "explicit"),
    ("litellm/openai/gpt-4.1", {}, "automatic"),
    ("litellm/openai/qwen", {"base_url": "http://127.0.0.1:9/v1"}, "none"),
    ("litellm/gemini/gemini-2.5-pro", {}, "none"),
])
def test_how_each_route_caches(model, options, kind):
    assert cache_kind(model, options) == kind


def test_a_bad_setting_is_refused():
    with pytest.raises(ValueError, match="cache must be one of auto, off"):
        PromptCache("explicit", "on")


@pytest.mark.parametrize("model,tokens", [
    ("anthropic/claude-sonnet-4-5", 1024), ("anthropic/claude-opus-4-1", 1024),
    ("anthropic/claude-3-5-haiku-20241022", 2048), ("anthropic/claude-3-haiku-20240307", 2048),
    ("anthropic/claude-haiku-4-5", 4096), ("litellm/anthropic/claude-opus-4-5-20251101", 4096),
    ("anthropic/claude-sonnet-4.6", 2048), ("openai/gpt-4.1", 1024)])
def test_the_shortest_cached_prefix_is_the_models_documented_minimum(model, tokens):
    assert min_cached_tokens(model) == tokens


def test_a_prefix_under_the_models_minimum_is_neither_written_nor_read():
    """The prefix a Sonnet cache writes at once (1,404 tokens), a cache with Haiku 4.5's
    minimum leaves alone until the request reaches 4,096 tokens (five turns)."""
    sonnet = PromptCache("explicit", "auto")
    haiku = PromptCache("explicit", "auto", min_tokens=min_cached_tokens("claude-haiku-4-5"))
    assert sonnet.bill(history(1)).cache_write_tokens > 0
    for turns in (1, 2, 3, 4):
        bill = haiku.bill(history(turns))
        assert estimate_request(history(turns)) < 4096
        assert bill.cache_write_tokens == bill.cache_read_tokens == 0
    assert haiku.bill(history(5)).cache_write_tokens >= 4096
    assert haiku.bill(history(6)).cache_read_tokens >= 4096
