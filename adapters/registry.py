"""Providers registered by name with lazy factories; ``provider/model`` parsed here only.

Model-name grammar (``parse_model`` is the one place that reads it)::

    openai/<model>             OpenAI Responses API            openai/gpt-5
    openai-chat/<model>        OpenAI Chat Completions         openai-chat/gpt-4.1-mini
    anthropic/<model>          Anthropic Messages              anthropic/claude-sonnet-4-5
    litellm/<litellm model>    anything LiteLLM knows          litellm/gemini/gemini-2.5-pro
                               (an OpenAI-compatible server:   litellm/openai/qwen2 with the
                                                               option base_url=http://...)
    replay/<path>              answers from a recording        replay/runs/a/calls.json

The provider is everything before the first ``/``; the model is the rest, verbatim (it may
contain more slashes). Options such as ``base_url`` are given to ``create_adapter`` as keyword
arguments, never packed into the name.

A third-party provider registers through the same door as the built-in ones::

    @register_provider("mine", sdk="mine_sdk", key_env="MINE_API_KEY")
    def _mine(model, **options):
        from mine_adapter import MineAdapter   # imported only when used
        return MineAdapter(model, **options)
"""

from __future__ import annotations

import difflib
import importlib.util
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from llm_eval.errors import LlmEvalError

if TYPE_CHECKING:   # ``llm-eval providers`` reads the registry without pydantic
    from .base import Adapter

__all__ = ["ModelRef", "ProviderInfo", "UnknownProviderError", "register_provider",
           "parse_model", "create_adapter", "providers"]

_PROVIDER = re.compile(r"[a-z][a-z0-9_-]*")
Factory = Callable[..., "Adapter"]   # factory(model, **options) -> Adapter


class UnknownProviderError(LlmEvalError):
    """A model name whose provider is not registered, or that is not ``provider/model``."""


@dataclass(frozen=True, slots=True)
class ModelRef:
    provider: str
    model: str

    def __str__(self) -> str:
        return f"{self.provider}/{self.model}"


@dataclass(frozen=True, slots=True)
class ProviderInfo:
    name: str
    factory: Callable[..., Adapter]
    sdk: str | None
    key_env: tuple[str, ...]
    description: str

    @property
    def available(self) -> bool:
        """Whether the provider's SDK is installed (checked without importing it)."""
        return self.sdk is None or importlib.util.find_spec(self.sdk) is not None

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "available": self.available, "sdk": self.sdk,
                "key_env": list(self.key_env),
                "key_set": [k for k in self.key_env if os.environ.get(k)],
                "description": self.description}


_REGISTRY: dict[str, ProviderInfo] = {}


def register_provider(name: str, *, sdk: str | None, key_env: tuple[str, ...] | str = (),
                      description: str = "") -> Callable[[Factory], Factory]:
    """Register ``factory(model, **options) -> Adapter`` under ``name``."""
    if not _PROVIDER.fullmatch(name):
        raise ValueError(f"bad provider name {name!r}")
    keys = (key_env,) if isinstance(key_env, str) else tuple(key_env)

    def decorate(factory: Factory) -> Factory:
        _REGISTRY[name] = ProviderInfo(name, factory, sdk, keys, description)
        return factory

    return decorate


def providers() -> list[ProviderInfo]:
    """Every registered provider, by name."""
    return [_REGISTRY[name] for name in sorted(_REGISTRY)]


def parse_model(spec: str) -> ModelRef:
    """``"provider/model"`` -> ``ModelRef``; the one place model names are read."""
    provider, slash, model = spec.partition("/")
    if not slash or not model or not provider:
        raise UnknownProviderError(
            f"model {spec!r}: expected provider/model, e.g. openai/gpt-5 or "
            f"anthropic/claude-sonnet-4-5 (providers: {', '.join(sorted(_REGISTRY))})")
    if provider not in _REGISTRY:
        close = difflib.get_close_matches(provider, list(_REGISTRY), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise UnknownProviderError(f"model {spec!r}: unknown provider {provider!r}{hint} "
                                   f"(providers: {', '.join(sorted(_REGISTRY))})")
    return ModelRef(provider, model)


def create_adapter(spec: str | ModelRef, **options: Any) -> Adapter:
    """Build the adapter for ``spec``; the provider's SDK is imported now, not before."""
    ref = spec if isinstance(spec, ModelRef) else parse_model(spec)
    return _REGISTRY[ref.provider].factory(ref.model, **options)


# --- the built-in providers (same door as third-party ones) ----------------------------------


@register_provider("openai", sdk="openai", key_env="OPENAI_API_KEY",
                   description="OpenAI Responses API")
def _openai(model: str, **options: Any) -> Adapter:
    from .openai_responses import OpenAIResponsesAdapter

    return OpenAIResponsesAdapter(model, **options)


@register_provider("openai-chat", sdk="openai", key_env="OPENAI_API_KEY",
                   description="OpenAI Chat Completions (also any OpenAI-compatible server "
                               "via base_url)")
def _openai_chat(model: str, **options: Any) -> Adapter:
    from .openai_chat import OpenAIChatAdapter

    return OpenAIChatAdapter(model, **options)


@register_provider("anthropic", sdk="anthropic", key_env="ANTHROPIC_API_KEY",
                   description="Anthropic Messages, with extended thinking")
def _anthropic(model: str, **options: Any) -> Adapter:
    from .anthropic_messages import AnthropicAdapter

    return AnthropicAdapter(model, **options)


@register_provider("litellm", sdk="litellm",
                   description="any provider LiteLLM knows (key: the routed provider's "
                               "variable, e.g. GEMINI_API_KEY); OpenAI-compatible servers "
                               "via base_url")
def _litellm(model: str, **options: Any) -> Adapter:
    from .litellm_adapter import LiteLLMAdapter

    return LiteLLMAdapter(model, **options)


@register_provider("replay", sdk=None, description="answers from a recorded file of calls")
def _replay(model: str, **options: Any) -> Adapter:
    from .replay import ReplayAdapter

    return ReplayAdapter(model, **options)
