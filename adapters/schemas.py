"""Tool schemas in the subset each route's provider accepts (``docs/adapters.md``).

Our tools (``tools.action_tools``) are full JSON schemas: every integer parameter carries its
``minimum`` and ``maximum``, and its description says the same range in words. The request
keeps them whole (its hash, and so every recording, does not depend on the route); each
adapter sends them through one ``SchemaSubset``, the subset its provider takes:

- ``OPENAI_STRICT``: OpenAI's own API (``openai``, ``openai-chat`` and ``litellm/openai``
  without a base URL). ``strict: true``, the schema whole: OpenAI's structured outputs take
  numeric bounds in strict mode (the openai SDK's ``to_strict_json_schema`` keeps them), except
  for fine-tuned models (``ft:...``), which get ``OPENAI_STRICT_FINE_TUNED`` (no bounds).
- ``ANTHROPIC``: Anthropic's Messages API, directly or through LiteLLM (any Claude model). No
  ``strict``: strict tool use compiles the schemas into a grammar with a size ceiling, is not
  offered on every model, and refuses numeric bounds. Bounds are left out as well, so the
  tools read the same with strict on or off (the anthropic SDK's ``transform_schema`` leaves
  the schema as it is).
- ``PORTABLE``: any other server (``--base-url``, LiteLLM to other providers): no ``strict``,
  no bounds, no ``additionalProperties`` (Gemini's OpenAI-compatible endpoint has refused it)
  and no empty ``required`` list (JSON Schema draft 4 requires one item at least). A tool
  without parameters keeps ``{"type": "object", "properties": {}}``: llama-cpp-python's
  function-calling template reads ``parameters`` and fails without it.

Wherever a bound is left out, the description still states the range and our own check of
the action (``tools._check``) refuses a value outside it as an invalid action, fed back to the
model like any other.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["SchemaSubset", "OPENAI_STRICT", "OPENAI_STRICT_FINE_TUNED", "ANTHROPIC", "PORTABLE",
           "NUMERIC_BOUNDS", "openai_subset", "litellm_subset", "is_claude"]

NUMERIC_BOUNDS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")


@dataclass(frozen=True, slots=True)
class SchemaSubset:
    """What one route's provider accepts of a tool's JSON schema (module docstring)."""

    name: str
    strict: bool     # send "strict": true: the provider constrains the arguments to the schema
    bounds: bool     # keep numeric bounds (NUMERIC_BOUNDS)
    closed: bool     # keep "additionalProperties": false
    empty_required: bool = True   # keep a "required" list with no names

    def parameters(self, schema: dict[str, Any]) -> dict[str, Any]:
        """``schema`` as this subset sends it (a new dict; ``schema`` is left as it is)."""
        walked: dict[str, Any] = self._walk(schema)   # a dict walks to a dict
        return walked

    def _walk(self, schema: Any) -> Any:
        if not isinstance(schema, dict):
            return schema
        out: dict[str, Any] = {}
        for key, value in schema.items():
            if key in NUMERIC_BOUNDS and not self.bounds:
                continue
            if key == "additionalProperties" and not self.closed:
                continue
            if key == "required" and not value and not self.empty_required:
                continue
            if key in ("properties", "$defs"):
                out[key] = {name: self._walk(sub) for name, sub in value.items()}
            elif key == "items":
                out[key] = self._walk(value)
            elif key in ("anyOf", "allOf", "oneOf"):
                out[key] = [self._walk(sub) for sub in value]
            else:
                out[key] = value
        return out


OPENAI_STRICT = SchemaSubset("openai-strict", strict=True, bounds=True, closed=True)
OPENAI_STRICT_FINE_TUNED = SchemaSubset("openai-strict-fine-tuned", strict=True, bounds=False,
                                        closed=True)
ANTHROPIC = SchemaSubset("anthropic", strict=False, bounds=False, closed=True)
PORTABLE = SchemaSubset("portable", strict=False, bounds=False, closed=False,
                        empty_required=False)


def openai_subset(model: str, base_url: str | None) -> SchemaSubset:
    """The subset for an OpenAI route: OpenAI's own API, or any server at ``base_url``."""
    if base_url:
        return PORTABLE
    return OPENAI_STRICT_FINE_TUNED if model.startswith("ft:") else OPENAI_STRICT


def is_claude(model: str, routed_provider: str) -> bool:
    """A Claude model, wherever LiteLLM routes it (Anthropic's API, Bedrock, Vertex AI)."""
    return routed_provider == "anthropic" or "claude" in model.lower()


def litellm_subset(model: str, routed_provider: str, base_url: str | None) -> SchemaSubset:
    """The subset for ``litellm/<model>`` routed to ``routed_provider``."""
    if is_claude(model, routed_provider):
        return ANTHROPIC
    if routed_provider == "openai":
        return openai_subset(model.split("/", 1)[-1], base_url)
    return PORTABLE
