"""A few turns of a real episode played by the LLM agent through a route's real adapter and
SDK, against the loopback fake provider scripted to answer like the provider (``Replier``);
every request and every reply kept, in order.

The replier answers each request with the action the stand-in model would take from the tools
on the wire (``cache_billing.standin_action``), in the provider's documented shape: with
thinking or reasoning on, the blocks or items that come with it; on turn 1, two parallel calls
(the agent takes the first and answers both); on a Gemini-like route, empty call ids and a
thought signature on each call.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import dataclass, field
from typing import Any

from cache_billing import standin_action
from fake_provider import FakeProvider
from wire_bodies import KEY

from llm_eval.adapters import GenerationConfig
from llm_eval.calls import CallPolicy

__all__ = ["Replier", "Recording", "play"]

PARALLEL_TURN = 1


@dataclass
class Replier:
    api: str
    thinking: bool = False
    gemini: bool = False
    turns: itertools.count = field(default_factory=itertools.count)
    replies: list[dict[str, Any]] = field(default_factory=list)

    def __call__(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        turn = next(self.turns)
        tools = body.get("tools") or []
        calls = [standin_action(tools, turn)]
        if turn == PARALLEL_TURN:
            calls.append(standin_action(tools, turn + 1))
        reply = getattr(self, f"_{self.api}")(turn, calls)
        self.replies.append(reply)
        return 200, reply

    def _responses(self, turn: int, calls: list) -> dict[str, Any]:
        output: list[dict[str, Any]] = []
        if self.thinking:
            output.append({"type": "reasoning", "id": f"rs_{turn:04d}",
                           "summary": [{"type": "summary_text", "text": f"plan {turn}"}],
                           "encrypted_content": f"gAAAAB-encrypted-{turn}"})
            output.append({"type": "message", "id": f"msg_{turn:04d}", "role": "assistant",
                           "status": "completed", "phase": "commentary",
                           "content": [{"type": "output_text", "text": f"Trying {turn}.",
                                        "annotations": []}]})
        for i, (name, args) in enumerate(calls):
            output.append({"type": "function_call", "id": f"fc_{turn:04d}{i}",
                           "call_id": f"call_{turn}_{i}", "name": name,
                           "arguments": json.dumps(args), "status": "completed"})
        return {"id": f"resp_{turn}", "object": "response", "created_at": 1764979200 + turn,
                "status": "completed", "model": "gpt-5-2025-08-07", "output": output,
                "parallel_tool_calls": False, "tool_choice": "required", "tools": [],
                "error": None, "incomplete_details": None, "instructions": None,
                "metadata": {}, "temperature": 1.0, "top_p": 1.0,
                "usage": {"input_tokens": 1000, "output_tokens": 50, "total_tokens": 1050,
                          "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                          "output_tokens_details": {"reasoning_tokens": 30 * self.thinking}}}

    def _chat(self, turn: int, calls: list) -> dict[str, Any]:
        tool_calls = []
        for i, (name, args) in enumerate(calls):
            call: dict[str, Any] = {"id": "" if self.gemini else f"call_{turn}_{i}",
                                    "type": "function",
                                    "function": {"name": name, "arguments": json.dumps(args)}}
            if self.gemini:
                call["extra_content"] = {"google": {"thought_signature": f"sig-{turn}-{i}"}}
            tool_calls.append(call)
        return {"id": f"chatcmpl-{turn}", "object": "chat.completion",
                "created": 1764979200 + turn, "model": "gpt-5-2025-08-07",
                "choices": [{"index": 0, "finish_reason": "tool_calls",
                             "message": {"role": "assistant", "content": None,
                                         "tool_calls": tool_calls}}],
                "usage": {"prompt_tokens": 1000, "completion_tokens": 50, "total_tokens": 1050}}

    def _messages(self, turn: int, calls: list) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        if self.thinking:
            content.append({"type": "thinking", "thinking": f"plan {turn}",
                            "signature": f"EqQBsig{turn:04d}=="})
            if turn == 0:
                content.append({"type": "redacted_thinking", "data": "EmwKAhgBredacted=="})
        for i, (name, args) in enumerate(calls):
            content.append({"type": "tool_use", "id": f"toolu_{turn}_{i}", "name": name,
                            "input": args})
        return {"id": f"msg_{turn}", "type": "message", "role": "assistant",
                "model": "claude-sonnet-4-5-20250929", "content": content,
                "stop_reason": "tool_use", "stop_sequence": None,
                "usage": {"input_tokens": 1000, "output_tokens": 50,
                          "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}


@dataclass
class Recording:
    bodies: list[dict[str, Any]]
    replies: list[dict[str, Any]]
    actions: list[str]


class _StopAfter:
    """The LLM agent, ended after ``turns`` actions (``StopEpisode``)."""

    def __init__(self, agent: Any, turns: int) -> None:
        self.agent, self.left = agent, turns

    def reset(self, start: Any) -> None:
        self.agent.reset(start)

    def act(self, observation: Any) -> Any:
        from llm_eval.worldtest.episode import StopEpisode

        if self.left == 0:
            raise StopEpisode("enough turns recorded")
        self.left -= 1
        return self.agent.act(observation)


def play(spec: str, replier: Any, *, suffix: str = "/v1", turns: int = 4,
         config: GenerationConfig | None = None, rendering: str = "compact+png") -> Recording:
    """Play ``turns`` turns of warehouse/planning with ``spec`` against ``replier``."""
    from llm_eval.agents import make_agent
    from llm_eval.tasks.store import load_task
    from llm_eval.worldtest import run_episode

    task = load_task("warehouse", "planning")
    with FakeProvider(responder=replier) as fake:
        options = {"base_url": fake.base_url + suffix, "api_key": KEY, "timeout": 10}
        agent = make_agent(spec, task, adapter_options=options, rendering=rendering,
                           config=config or GenerationConfig(max_output_tokens=512),
                           policy=CallPolicy(max_attempts=1, timeout=20.0))
        try:
            result = run_episode(task, _StopAfter(agent, turns))
        finally:
            agent.close()
        bodies = [seen.body for seen in fake.seen]
    return Recording(bodies, replier.replies, [r.action for r in result.records])


@dataclass
class Refusing:
    """A provider that refuses as the real Anthropic API does (``replier`` answers the rest):
    a body outside the SDK's request type (400 with what is wrong), a strict tool schema the
    SDK's ``transform_schema`` would change (the ``anthropic_strict_integer_bounds`` error
    fixture), a forced tool with thinking on (``anthropic_thinking_forced_tool``), a thinking
    budget not below ``max_tokens`` (``anthropic_thinking_budget_over_max_tokens``).
    ``refused`` keeps the message of each refusal."""

    replier: Replier
    refused: list[str] = field(default_factory=list)

    @property
    def replies(self) -> list[dict[str, Any]]:
        return self.replier.replies

    def __call__(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        from sdk_request_types import Violation, check
        from strict_schemas import changed_by, strict_tools
        from turn_rules import no_forced_tool_with_thinking, thinking_within_max_tokens
        from wire_bodies import error

        refusal = None
        try:
            check("messages", body)
        except Violation as exc:
            refusal = {"type": "error", "error": {"type": "invalid_request_error",
                                                  "message": str(exc)}}
        if refusal is None and any(changed_by("messages", schema) is not None
                                   for _, schema in strict_tools("messages", body)):
            refusal = error("anthropic_strict_integer_bounds")["body"]
        if refusal is None and no_forced_tool_with_thinking("messages", [body], []):
            refusal = error("anthropic_thinking_forced_tool")["body"]
        if refusal is None and thinking_within_max_tokens("messages", [body], []):
            refusal = error("anthropic_thinking_budget_over_max_tokens")["body"]
        if refusal is not None:
            self.refused.append(refusal["error"]["message"])
            return 400, refusal
        return self.replier(path, body)
