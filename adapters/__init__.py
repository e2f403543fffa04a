"""Model-provider adapters: one module per provider (OpenAI, Anthropic, LiteLLM) plus replay.

Each adapter turns one ``Request`` into one ``Response`` and only classifies errors; the core
(``llm_eval.calls``) owns retries, concurrency and timeouts. Importing this package imports no
provider SDK: each is imported when its adapter is created (``create_adapter``).

Model names: see ``adapters.registry`` (``openai/gpt-5``, ``openai-chat/...``,
``anthropic/claude-sonnet-4-5``, ``litellm/gemini/gemini-2.5-pro``, ``replay/<path>``).
"""

from .base import Adapter
from .registry import (ModelRef, ProviderInfo, UnknownProviderError, create_adapter,
                       parse_model, providers, register_provider)
from .tools import (ChosenAction, InvalidAction, action_tools, next_turn_parts, read_reply,
                    read_tag_reply, read_text_reply, read_tool_reply, tag_format_instructions,
                    text_format_instructions)
from .types import (Fatal, GenerationConfig, ImagePart, Message, ProviderError, RateLimited,
                    Request, Response, TextPart, Tool, ToolCall, ToolCallPart, ToolResultPart,
                    Transient, Usage)

__all__ = [
    "Adapter", "ModelRef", "ProviderInfo", "UnknownProviderError", "create_adapter",
    "parse_model", "providers", "register_provider",
    "ChosenAction", "InvalidAction", "action_tools", "next_turn_parts", "read_reply",
    "read_text_reply",
    "read_tool_reply", "text_format_instructions", "read_tag_reply", "tag_format_instructions",
    "Fatal", "GenerationConfig", "ImagePart", "Message", "ProviderError", "RateLimited",
    "Request", "Response", "TextPart", "Tool", "ToolCall", "ToolCallPart", "ToolResultPart",
    "Transient", "Usage",
]
