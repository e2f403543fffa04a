"""Model-provider adapters: one module per provider (OpenAI, Anthropic, LiteLLM) plus replay.
Installed as ``llm_eval.adapters`` (``pyproject.toml``, ``package-dir``).

Each adapter turns one ``Request`` into one ``Response`` and only classifies errors; the core
(``llm_eval.calls``) owns retries, concurrency and timeouts. Importing this package imports no
provider SDK: each is imported when its adapter is created (``create_adapter``).

Model names: see ``adapters.registry`` (``openai/gpt-5``, ``openai-chat/...``,
``anthropic/claude-sonnet-4-5``, ``litellm/gemini/gemini-2.5-pro``, ``replay/<path>``).
"""

from llm_eval.lazy import lazy_exports

_EXPORTS = {
    "Adapter": ".base", "ModelRef": ".registry", "ProviderInfo": ".registry",
    "UnknownProviderError": ".registry", "create_adapter": ".registry",
    "parse_model": ".registry", "providers": ".registry", "register_provider": ".registry",
    "ChosenAction": ".tools", "InvalidAction": ".tools", "action_tools": ".tools",
    "next_turn_parts": ".tools", "read_reply": ".tools", "read_tag_reply": ".tools",
    "read_text_reply": ".tools", "read_tool_reply": ".tools",
    "tag_format_instructions": ".tools", "text_format_instructions": ".tools",
    "Fatal": ".types", "GenerationConfig": ".types", "ImagePart": ".types",
    "Message": ".types", "ProviderError": ".types", "RateLimited": ".types",
    "Request": ".types", "Response": ".types", "TextPart": ".types", "Tool": ".types",
    "ToolCall": ".types", "ToolCallPart": ".types", "ToolResultPart": ".types",
    "Transient": ".types", "Usage": ".types",
}

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

# each name is imported from its module when first used (``llm_eval.lazy``)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
