"""Prompt caching: where the cache markers go, and what a provider's prefix cache bills.

The setting is ``cache``: ``"auto"`` (the default) or ``"off"``, an adapter option (a sweep's
``cache:``, ``--cache``). How a route caches (``cache_kind``):

- **explicit** (``anthropic/...``, and ``litellm/anthropic/...``): the provider caches only at
  blocks marked ``cache_control``. With ``auto`` two markers are sent (the API allows four): on
  the system prompt, which caches the tools with it (the stable prefix; tools change only when a
  phase starts), and on the last text or tool-result block of the latest turn (the moving
  breakpoint). The shortest prefix cached is the model's documented minimum
  (``min_cached_tokens``: 1,024 tokens for most, up to 4,096). An
  image of the latest turn comes after that block: later turns do not resend images, so a marker
  after one would write a prefix no later request has. A request reads the longest marked prefix
  an earlier request wrote, found at one of its markers or up to 20 blocks before it; it writes
  (at 1.25x the input price) the part of its marked prefix not read. ``off`` sends no marker.
- **automatic** (``openai/...``, ``openai-chat/...`` and ``litellm/openai/...`` talking to
  OpenAI's own API): every prompt's prefix is cached, and a request reads the longest prefix it
  shares with an earlier one once that is at least 1,024 tokens, in steps of 128. The
  ``openai`` and ``openai-chat`` adapters send a stable per-episode ``prompt_cache_key`` (the
  episode's id) so one episode's calls reach the same cache (the LiteLLM adapter sends none:
  OpenAI still caches, routing by the prefix alone); ``off`` sends no key, which is all it can
  change: OpenAI caches anyway.
- **none**: any other route (a local server through ``base_url``, other LiteLLM providers).

``PromptCache`` bills a request as the route's cache would, on the estimated tokens of
``adapters.tokens.blocks``; ``llm-eval run --estimate`` prices with it. It knows prefixes at
block granularity (a provider caches by token) and ignores the cache's time to live (5 minutes
without use at Anthropic), so it is right for an episode whose calls follow one another.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Any, Literal

from .tokens import Block, blocks
from .types import ImagePart, Request

__all__ = ["CACHE_SETTINGS", "CacheKind", "cache_kind", "marked_part", "prompt_cache_key", "PromptCache",
           "CacheBill", "MIN_CACHED_TOKENS", "LOOKBACK_BLOCKS", "check_cache_setting",
           "min_cached_tokens"]

CACHE_SETTINGS = ("auto", "off")
CacheKind = Literal["explicit", "automatic", "none"]
MIN_CACHED_TOKENS = 1024
AUTOMATIC_STEP = 128
LOOKBACK_BLOCKS = 20


def min_cached_tokens(model: str) -> int:
    """The shortest prefix a route caches for ``model``: 1,024 tokens, except the Claude models
    Anthropic documents higher minimums for (Haiku 3 and 3.5 and Sonnet 4.6: 2,048; Haiku 4.5,
    Opus 4.5 and later: 4,096)."""
    name = model.rpartition("/")[2].lower().replace(".", "-")
    if "haiku" in name:
        return 4096 if re.search(r"haiku-[4-9]", name) else 2048
    if re.search(r"opus-4-[5-9]", name):
        return 4096
    if re.search(r"sonnet-4-[6-9]", name):
        return 2048
    return MIN_CACHED_TOKENS


def check_cache_setting(value: Any) -> str:
    if not isinstance(value, str) or value not in CACHE_SETTINGS:
        raise ValueError(f"cache must be one of {', '.join(CACHE_SETTINGS)}, got {value!r}")
    return value


def cache_kind(model: str, options: dict[str, Any] | None = None) -> CacheKind:
    """How the route of ``model`` (``provider/model``) with ``options`` caches prompts."""
    provider, _, name = model.partition("/")
    local = bool((options or {}).get("base_url"))
    if provider == "anthropic":
        return "explicit"
    if provider in ("openai", "openai-chat"):
        return "none" if local else "automatic"
    if provider == "litellm":
        routed = name.partition("/")[0]
        if routed == "anthropic" or (routed == name and name.startswith("claude")):
            return "explicit"
        if (routed == "openai" or name.startswith(("gpt-", "o1", "o3", "o4"))) and not local:
            return "automatic"
    return "none"


def prompt_cache_key(request: Request, options: dict[str, Any]) -> str | None:
    """The ``prompt_cache_key`` to send to OpenAI's API: the request's episode key
    (``metadata["cache_key"]``), when caching is ``auto`` and the route is OpenAI's own."""
    if options.get("cache", "auto") != "auto" or options.get("base_url"):
        return None
    key = request.metadata.get("cache_key")
    return str(key) if key else None


def marked_part(request: Request) -> tuple[int, int] | None:
    """(message, part) of the moving breakpoint: the last part of the last message that is not
    an image; None when the request has no such part."""
    if not request.messages:
        return None
    m = len(request.messages) - 1
    parts = request.messages[m].parts
    for p in range(len(parts) - 1, -1, -1):
        if not isinstance(parts[p], ImagePart):
            return m, p
    return None


@dataclass(frozen=True, slots=True)
class CacheBill:
    input_tokens: int        # every prompt token, cached or not
    cache_read_tokens: int
    cache_write_tokens: int


class PromptCache:
    """One episode's prefix cache on a route (module docstring)."""

    def __init__(self, kind: CacheKind, setting: str = "auto", *,
                 min_tokens: int = MIN_CACHED_TOKENS) -> None:
        self.kind = kind
        self.setting = check_cache_setting(setting)
        self.min_tokens = min_tokens
        self._cached: set[bytes] = set()
        self._last: tuple[Request, list[Block]] | None = None

    def bill(self, request: Request) -> CacheBill:
        found = blocks(request, self._last)
        self._last = (request, found)
        total = found[-1].end if found else 0
        if self.kind == "automatic":
            return self._automatic(found, total)
        if self.kind == "explicit" and self.setting == "auto":
            return self._explicit(request, found, total)
        return CacheBill(total, 0, 0)

    def _automatic(self, found: list[Block], total: int) -> CacheBill:
        # every digest of every request is kept and each covers its whole prefix, so the
        # cached blocks are a prefix of ``found``: the first one not cached by bisection
        first = bisect.bisect_left(range(len(found)), True,
                                   key=lambda i: found[i].digest not in self._cached)
        read = found[first - 1].end if first else 0
        self._cached.update(b.digest for b in found[first:])
        if read < self.min_tokens:
            return CacheBill(total, 0, 0)
        return CacheBill(total, read - (read - self.min_tokens) % AUTOMATIC_STEP, 0)

    def _explicit(self, request: Request, found: list[Block], total: int) -> CacheBill:
        # the system prompt's block (before the messages') and the moving marker's
        marks: list[int] = []
        for i, b in enumerate(found):
            if isinstance(b.where[0], int):
                break
            if b.where == ("system",):
                marks[:] = [i]
        moving = marked_part(request)
        if moving is not None:
            i = len(found) - 1   # the moving marker's part is in the last message
            while i >= 0 and found[i].where[0] == moving[0] and found[i].where[:2] != moving:
                i -= 1
            if i >= 0 and found[i].where[:2] == moving:
                marks.append(i)
        read = 0
        for mark in marks:
            for j in range(mark, max(-1, mark - LOOKBACK_BLOCKS - 1), -1):
                if found[j].digest in self._cached:
                    read = max(read, found[j].end)
                    break
        written = 0
        for mark in marks:
            if found[mark].end >= self.min_tokens and found[mark].digest not in self._cached:
                self._cached.add(found[mark].digest)
                written = max(written, found[mark].end - read)
        return CacheBill(total, read, written)
