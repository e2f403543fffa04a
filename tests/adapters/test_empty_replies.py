"""An empty reply (no text, no tool call) is the same on every route: an invalid action fed
back to the model ("no action ..."), never an infrastructure error, never a silent no-op.

Each route's own empty shape (Responses: no output item, or only reasoning cut off; Chat: a
message with ``content: null``; Messages: no content block, or only thinking) is played
through the LLM agent, whose episode goes on: the call records the invalid reply, and the next
request tells the model, in a request the provider accepts (no reasoning item sent without
the item after it, no empty assistant turn).
"""

from __future__ import annotations

import json
import threading

import pytest
from cache_billing import standin_action
from fake_provider import FakeProvider

from llm_eval.agents.llm import LLMAgent
from llm_eval.calls import CallPolicy
from llm_eval.tasks.store import load_task
from llm_eval.worldtest import run_episode

USAGE_CHAT = {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
USAGE_RESPONSES = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                   "output_tokens": 2, "output_tokens_details": {"reasoning_tokens": 0},
                   "total_tokens": 12}
USAGE_MESSAGES = {"input_tokens": 10, "output_tokens": 2}


def _responses(empty: str):
    def answer(turn: int, body: dict) -> dict:
        output: list[dict] = []
        status, incomplete = "completed", None
        if turn == 0 and empty == "reasoning only":
            output = [{"type": "reasoning", "id": "rs_0", "summary": [],
                       "encrypted_content": "gAAAAABcutOff=="}]
            status, incomplete = "incomplete", {"reason": "max_output_tokens"}
        elif turn > 0:
            name, args = standin_action(body["tools"], turn)
            output = [{"type": "function_call", "id": f"fc_{turn}", "call_id": f"call_{turn}",
                       "name": name, "arguments": json.dumps(args), "status": "completed"}]
        return {"id": f"resp_{turn}", "object": "response", "created_at": 1764720000.0,
                "status": status, "model": body["model"], "output": output,
                "parallel_tool_calls": False, "tool_choice": "required", "tools": [],
                "error": None, "instructions": None, "metadata": {},
                "incomplete_details": incomplete, "usage": USAGE_RESPONSES}
    return answer


def _chat(turn: int, body: dict) -> dict:
    message: dict = {"role": "assistant", "content": None}
    if turn > 0:
        name, args = standin_action(body["tools"], turn)
        message["tool_calls"] = [{"id": f"call_{turn}", "type": "function",
                                  "function": {"name": name, "arguments": json.dumps(args)}}]
    return {"id": f"chatcmpl-{turn}", "object": "chat.completion", "created": 1764720000,
            "model": body["model"], "usage": USAGE_CHAT,
            "choices": [{"index": 0, "finish_reason": "tool_calls" if turn else "stop",
                         "message": message}]}


def _messages(empty: str):
    def answer(turn: int, body: dict) -> dict:
        content: list[dict] = []
        if turn == 0 and empty == "thinking only":
            content = [{"type": "thinking", "thinking": "let me see",
                        "signature": "EqQBCkYIsignature=="}]
        elif turn > 0:
            name, args = standin_action(body["tools"], turn)
            content = [{"type": "tool_use", "id": f"toolu_{turn}", "name": name,
                        "input": args}]
        return {"id": f"msg_{turn}", "type": "message", "role": "assistant",
                "model": body["model"], "content": content,
                "stop_reason": "tool_use" if turn else "end_turn", "stop_sequence": None,
                "usage": USAGE_MESSAGES}
    return answer


# route: (model, base-url suffix, answer(turn, body), options)
ROUTES = {
    "openai no output": ("openai/gpt-5", "/v1", _responses("none"), {}),
    "openai reasoning only": ("openai/gpt-5", "/v1", _responses("reasoning only"),
                              {"reasoning_effort": "low"}),
    "openai-chat content null": ("openai-chat/gpt-4.1", "/v1", _chat, {}),
    "anthropic no content": ("anthropic/claude-sonnet-4-5", "", _messages("none"), {}),
    "anthropic thinking only": ("anthropic/claude-sonnet-4-5", "", _messages("thinking only"),
                                {"thinking_budget": 1024}),
    "litellm->anthropic no content": ("litellm/anthropic/claude-sonnet-4-5", "",
                                      _messages("none"), {}),
    "litellm->openai content null": ("litellm/openai/gpt-4.1", "/v1", _chat, {}),
}


@pytest.mark.parametrize("route", ROUTES)
def test_an_empty_reply_is_an_invalid_action_told_to_the_model(route):
    from llm_eval.adapters import GenerationConfig

    model, suffix, answer, knobs = ROUTES[route]
    bodies: list[dict] = []
    lock = threading.Lock()

    def respond(path: str, body: dict) -> tuple[int, dict]:
        with lock:
            turn = len(bodies)
            bodies.append(body)
        return 200, answer(turn, body)

    with FakeProvider(responder=respond) as fake:
        agent = LLMAgent(model, history="full", policy=CallPolicy(max_attempts=1, timeout=30),
                         config=GenerationConfig(max_output_tokens=256, **knobs),
                         adapter_options={"base_url": fake.base_url + suffix,
                                          "api_key": "not-needed", "timeout": 10})
        try:
            run_episode(load_task("sparks", "planning"), agent, interaction_steps=3)
        finally:
            agent.close()
    assert len(bodies) >= 3
    first = agent.calls[0]
    assert first["action"] is None and first["invalid_reply"].startswith("no action")
    second = json.dumps(bodies[1])
    assert "invalid action: no action" in second
    assert "(empty reply)" in second          # the assistant turn is never empty
    if "reasoning only" in route:            # never a reasoning item without its follower
        assert '"type": "reasoning"' not in second
    if "thinking only" in route:             # thinking blocks go back, first, signed
        assistant = [m for m in bodies[1]["messages"] if m["role"] == "assistant"][0]
        assert [b["type"] for b in assistant["content"]] == ["thinking", "text"]
