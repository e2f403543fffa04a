"""The SDKs' own strict-schema rules, applied to a tool schema we send with ``strict``.

- OpenAI: ``openai.lib._pydantic._ensure_strict_json_schema``, what the SDK runs on a schema
  before sending it as a strict function (every object closed with ``additionalProperties:
  false``, every property required, ``$ref`` siblings unravelled, null defaults dropped). A
  schema it would change is one OpenAI's strict mode does not take as it is.
- Anthropic: ``anthropic.lib._parse._transform.transform_schema``, what the SDK sends for a
  strict tool or structured output: keywords outside strict tool use's JSON Schema subset
  (numeric ``minimum``/``maximum``, string ``pattern``, ...) are moved into the description.
  A schema it would change is one the API refuses under ``strict`` ("For 'integer' type,
  properties maximum, minimum are not supported").

``changed_by(api, schema)`` is the SDK's version of the schema when it differs, else None.
"""

from __future__ import annotations

import copy
from typing import Any

from anthropic.lib._parse._transform import transform_schema
from openai.lib._pydantic import _ensure_strict_json_schema

__all__ = ["changed_by", "strict_tools", "phase_forms"]


def changed_by(api: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    mine = copy.deepcopy(schema)
    if api == "messages":
        theirs = transform_schema(mine)
    else:
        theirs = _ensure_strict_json_schema(mine, path=(), root=mine)
    return None if theirs == schema else theirs


def strict_tools(api: str, body: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(name, parameters schema) of every tool ``body`` sends with ``strict: true``."""
    out = []
    for tool in body.get("tools", ()):
        spec = tool.get("function", tool) if api == "chat" else tool
        if spec.get("strict") is True:
            schema = spec.get("input_schema") if api == "messages" else spec.get("parameters")
            out.append((spec["name"], schema))
    return out


def phase_forms() -> dict[str, tuple]:
    """Every phase's action forms, built as the phases build them (a 16x16 world; the MFP
    and CD recordings 40 frames long)."""
    from llm_eval.worldtest.commands import ActionForm, Param, world_forms

    world = world_forms(16)
    watch = ActionForm("watch", (Param("T", 0, 39),), "show frame T (0..39)")
    return {
        "interaction": (*world, ActionForm("reset", help="restart the world"),
                        ActionForm("go-to-test", help="end the interaction phase")),
        "mfp": (watch, ActionForm("choose", (Param("K", 0, 5),), "answer: option K")),
        "cd-play": (*world, ActionForm("reset", help="a new run"),
                    ActionForm("declare", help="declare that the world changed")),
        "cd-declared": (watch, ActionForm("submit", (Param("T", 0, 39),), "answer: frame T")),
        "planning": (*world, ActionForm("quit", help="give up the planning test")),
    }
