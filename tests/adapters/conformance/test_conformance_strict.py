"""Every tool schema a route sends with ``strict: true`` is one the SDK's own strict-schema
conversion leaves as it is (``strict_schemas``): for every phase's action forms, on every
route (issue 29, item 3). On the Anthropic route this fails while the integer parameters keep
``minimum``/``maximum`` under strict (the API answers "For 'integer' type, properties maximum,
minimum are not supported")."""

from __future__ import annotations

import functools

import pytest
from scenarios import first_reply
from strict_schemas import changed_by, phase_forms, strict_tools
from wire_bodies import ROUTES, send

from llm_eval.adapters import GenerationConfig, Message, Request, action_tools

PHASES = phase_forms()


@functools.cache
def _tool_bodies(route: str) -> dict[str, dict]:
    """The body ``route`` sends for each phase's tools."""
    requests = [Request(messages=(Message.system("s"), Message.user("Frame 0.")),
                        tools=action_tools(forms),
                        config=GenerationConfig(max_output_tokens=256))
                for forms in PHASES.values()]
    api = ROUTES[route].api
    bodies, _ = send(ROUTES[route], requests, [first_reply(api, True, False)] * len(requests))
    return dict(zip(PHASES, bodies))


@pytest.mark.parametrize("route", ROUTES)
def test_strict_tools_are_unchanged_by_the_sdks_strict_conversion(route):
    api = ROUTES[route].api
    problems = []
    for phase, body in _tool_bodies(route).items():
        assert [t.get("name") or t["function"]["name"] for t in body["tools"]], phase
        for name, schema in strict_tools(api, body):
            theirs = changed_by(api, schema)
            if theirs is not None:
                problems.append(f"{phase}.{name}: sent {schema}\n    the SDK makes it {theirs}")
    assert not problems, f"{route}: strict tools the API would refuse:\n  " + \
        "\n  ".join(problems)


def test_the_openai_routes_do_send_strict_tools():
    """So the check above is not vacuous there: OpenAI's strict mode is on for every tool."""
    for route in ("openai", "openai-chat"):
        body = _tool_bodies(route)["interaction"]
        assert len(strict_tools(ROUTES[route].api, body)) == len(body["tools"])


@pytest.mark.parametrize("api,schema", [
    # numeric bounds: Anthropic's strict subset has none
    ("messages", {"type": "object", "properties": {"t": {"type": "integer", "minimum": 0}},
                  "required": ["t"], "additionalProperties": False}),
    # an object left open
    ("messages", {"type": "object", "properties": {}, "required": []}),
    ("responses", {"type": "object", "properties": {"t": {"type": "integer"}},
                   "required": ["t"]}),
    # a property not required
    ("chat", {"type": "object", "properties": {"t": {"type": "integer"}}, "required": [],
              "additionalProperties": False}),
])
def test_the_check_catches_a_schema_the_sdk_would_change(api, schema):
    assert changed_by(api, schema) is not None


@pytest.mark.parametrize("api", ["responses", "chat", "messages"])
def test_a_schema_in_the_strict_subset_passes(api):
    schema = {"type": "object", "properties": {
        "t": {"type": "integer", "description": "t (0 to 39)"}},
        "required": ["t"], "additionalProperties": False}
    assert changed_by(api, schema) is None
