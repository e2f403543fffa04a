"""The agent tools on every provider route, over HTTP to the fake provider on loopback: the
tools go out in each API's own tool shape beside the actions, a reply that only calls a tool
is answered with its result in the API's tool-result shape and asked again, and a reply that
calls a tool and takes an action gets the result at the start of the next turn; the episode
takes the reference's actions and score. Then the text and tag formats, where tools are tags,
and the python tool through the sandbox."""

from __future__ import annotations

import os

import pytest
from fake_provider import FakeProvider
from provider_bodies import chat_body, messages_body, responses_body
from scripted import WORLD, action_call, reference
from tiers import slow

from llm_eval.agents import make_agent
from llm_eval.agents.llm import LLMAgent
from llm_eval.calls import CallPolicy
from llm_eval.tasks.store import load_task
from llm_eval.worldtest import run_episode

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("DISABLE_AIOHTTP_TRANSPORT", "True")

SECRET = "fake-test-credential-ROUTESKEY0123"
POLICY = CallPolicy(max_attempts=2, timeout=20.0)
NOTE = "a note about the wolves"

ROUTES = {
    "openai": ("openai/gpt-5", "/v1", lambda calls: responses_body(calls=calls)),
    "openai-chat": ("openai-chat/gpt-4.1-mini", "/v1", lambda calls: chat_body(calls=calls)),
    "anthropic": ("anthropic/claude-sonnet-4-5", "",
                  lambda calls: messages_body(calls=calls)),
    "litellm": ("litellm/openai/local-model", "/v1",
                lambda calls: chat_body(calls=calls, model="local-model")),
}


def tool_names(route: str, body: dict) -> set[str]:
    if route in ("openai-chat", "litellm"):
        return {t["function"]["name"] for t in body["tools"]}
    return {t["name"] for t in body["tools"]}


def tool_results(route: str, body: dict) -> dict[str, str]:
    """call id -> the text of its result, in the API's own shape."""
    match route:
        case "openai":
            return {i["call_id"]: i["output"] for i in body["input"]
                    if i.get("type") == "function_call_output"}
        case "anthropic":
            return {b["tool_use_id"]: (b["content"] if isinstance(b["content"], str)
                                       else b["content"][0]["text"])
                    for m in body["messages"] if isinstance(m["content"], list)
                    for b in m["content"] if b.get("type") == "tool_result"}
    return {m["tool_call_id"]: m["content"] for m in body["messages"] if m["role"] == "tool"}


# litellm's first import is most of its case's time: that case runs in the slow tier
@pytest.mark.parametrize("route", [pytest.param(r, marks=(slow,) if r == "litellm" else ())
                                   for r in ROUTES])
def test_tools_beside_the_actions_on_every_route(route, monkeypatch):
    spec, suffix, body = ROUTES[route]
    task = load_task(WORLD, "mfp")
    actions = list(reference())
    replies = [[("w", "notes_write", {"text": NOTE})],
               [("a0", *action_call(actions[0]))],
               [("r", "notes_read", {}), ("a1", *action_call(actions[1]))],
               *[[(f"a{i}", *action_call(a))] for i, a in enumerate(actions[2:], 2)]]
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    with FakeProvider() as fake:
        for calls in replies:
            fake.reply(body(calls))
        options = {"base_url": fake.base_url + suffix, "timeout": 5.0}
        if route == "litellm":
            options["api_key"] = SECRET
        agent = make_agent(spec, task, policy=POLICY, adapter_options=options,
                           agent_tools="notes", tool_seed=task.seed)
        try:
            result = run_episode(task, agent)
        finally:
            agent.close()
        bodies = [s.body for s in fake.seen]
    assert [r.action for r in result.records] == actions and result.score == 1.0
    assert {"notes_read", "notes_write", "left", "click"} <= tool_names(route, bodies[0])
    # the write's result came back, and the model was asked again before any action
    assert tool_results(route, bodies[1]) == {"w": "saved (23 of 4,000 characters)"}
    # the read and the action in one reply: both answered at the start of the next turn
    third = tool_results(route, bodies[3])
    assert third["r"] == NOTE and "a1" in third
    assert [r.tool for r in agent.toolbox.records] == ["notes_write", "notes_read"]


class TextModel:
    """An in-process model for the text and tag formats: replies in order."""

    def __init__(self, replies):
        from llm_eval.adapters.base import Adapter

        outer = self

        class Scripted(Adapter):
            provider = "scripted"

            async def complete(self, request):
                from llm_eval.adapters import Response

                outer.requests.append(request)
                return Response(provider="scripted", model_requested="m", model="m",
                                text=outer.replies.pop(0), stop_reason="end_turn")

        self.replies = list(replies)
        self.requests = []
        self.adapter = Scripted("m")


@pytest.mark.parametrize("mode, answer", [("tags", "<action>{}</action>"),
                                          ("text", "ACTION: {}")])
def test_text_formats_call_tools_as_tags(mode, answer):
    task = load_task(WORLD, "mfp")
    actions = list(reference())
    replies = [f"I will write it down.\n<notes_write>\n{NOTE}\n</notes_write>",
               "<notes_read/>\n" + answer.format(actions[0]),
               *[answer.format(a) for a in actions[1:]]]
    model = TextModel(replies)
    agent = LLMAgent("scripted/m", adapter=model.adapter, tool_mode=mode, agent_tools="notes")
    result = run_episode(task, agent)
    assert [r.action for r in result.records] == actions
    assert [(r.tool, r.result) for r in agent.toolbox.records] == \
        [("notes_write", "saved (23 of 4,000 characters)"), ("notes_read", NOTE)]
    system = model.requests[0].messages[0].parts[0].text
    assert "`<notes_write>text</notes_write>`" in system and model.requests[0].tools == ()
    second = model.requests[1].messages[-1].parts[0].text
    assert second == "Result of notes_write:\nsaved (23 of 4,000 characters)"
    third = model.requests[2].messages[-1].parts
    assert third[0].text == f"Result of notes_read:\n{NOTE}"


def _sandbox_refused() -> str | None:
    from llm_eval.agent_tools.sandbox import SandboxUnavailable, run_python

    try:
        run_python("pass")
    except SandboxUnavailable as exc:
        return str(exc)
    return None


@pytest.mark.skipif(_sandbox_refused() is not None, reason="this kernel cannot confine the "
                    "sandbox (docs/sandbox.md); its own tests skip too")
def test_the_python_tool_runs_code_in_the_sandbox():
    task = load_task(WORLD, "mfp")
    actions = list(reference())
    model = TextModel(["<python_run>print(sum(range(10)))</python_run>",
                       "<python_run>import socket</python_run>",
                       *[f"<action>{a}</action>" for a in actions]])
    agent = LLMAgent("scripted/m", adapter=model.adapter, tool_mode="tags", agent_tools="python")
    run_episode(task, agent)
    first, second = agent.toolbox.records
    assert first.status == "ok" and first.result == "exit status: 0\nstdout:\n45\n"
    assert second.status == "error" and "stopped: refused import" in second.result
