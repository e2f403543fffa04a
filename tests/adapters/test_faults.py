"""A scripted multi-call conversation through each adapter and the core, against the fake
provider on loopback: with 30% of the calls faulted (429 with Retry-After, 500, 503, 529,
timeouts, dropped connections, malformed JSON) the responses are the same as without faults,
the retries show in the attempt records, and no key reaches anything written to disk."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
from adapter_sample import FORMS, SECRET
from fake_provider import FakeProvider
from provider_bodies import chat_body, messages_body, responses_body

from llm_eval.adapters import (
    GenerationConfig,
    Message,
    Request,
    action_tools,
    create_adapter,
    next_turn_parts,
    read_tool_reply,
)
from llm_eval.calls import CallPolicy, call

N_CALLS = 20
N_FAULTED = 6  # 30%
POLICY = CallPolicy(max_attempts=4, timeout=20.0)
CLIENT_TIMEOUT = 0.5  # the SDK's own timeout; the fake hangs longer on a "timeout" fault


def _action(i: int) -> tuple[str, dict]:
    return [("left", {}), ("click", {"x": i % 7, "y": (3 * i) % 7}), ("noop", {}),
            ("reset", {})][i % 4]


PROVIDERS = {
    # provider spec, adapter options (base_url filled in), body builder, fault kinds
    "openai": ("openai/gpt-5", "/v1",
               lambda i: responses_body(calls=[(f"call_{i}", *_action(i))],
                                        reasoning=f"step {i}"),
               ["429", "500", "timeout", "drop", "malformed", "503"]),
    "openai-chat": ("openai-chat/gpt-4.1-mini", "/v1",
                    lambda i: chat_body(calls=[(f"call_{i}", *_action(i))]),
                    ["503", "429", "drop", "timeout", "500", "malformed"]),
    "anthropic": ("anthropic/claude-sonnet-4-5", "",
                  lambda i: messages_body(calls=[(f"toolu_{i}", *_action(i))],
                                          thinking=f"step {i}"),
                  ["529", "429", "500", "timeout", "drop", "malformed"]),
    "litellm": ("litellm/openai/local-model", "/v1",
                lambda i: chat_body(calls=[(f"call_{i}", *_action(i))], model="local-model"),
                ["429", "503", "500", "timeout", "drop", "malformed"]),
}


async def _conversation(adapter) -> list:
    messages: list[Message] = [Message.system("You explore a grid world."),
                               Message.user("frame 0")]
    tools = action_tools(FORMS)
    results = []
    for i in range(N_CALLS):
        request = Request(messages=tuple(messages), tools=tools,
                          config=GenerationConfig(max_output_tokens=256))
        result = await call(adapter, request, policy=POLICY)
        results.append(result)
        reply = read_tool_reply(result.response, FORMS)
        messages.append(Message.from_response(result.response))
        messages.append(Message.user(*next_turn_parts(reply, f"frame {i + 1}")))
    await adapter.aclose()
    return results


def _run(name: str, faults: dict[int, str], monkeypatch) -> tuple[list, FakeProvider]:
    spec, suffix, body, _ = PROVIDERS[name]
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    with FakeProvider(hang=CLIENT_TIMEOUT * 4) as fake:
        for i in range(N_CALLS):
            if i in faults:
                fake.fault(faults[i], retry_after=3)
            fake.reply(body(i))
        options = {"base_url": fake.base_url + suffix, "timeout": CLIENT_TIMEOUT}
        if name == "litellm":
            options["api_key"] = SECRET
        adapter = create_adapter(spec, **options)
        results = asyncio.run(_conversation(adapter))
        assert not fake.steps, "every scripted step was used"
    return results, fake


def _comparable(result) -> dict:
    data = result.response.model_dump(mode="json", exclude={"latency_s"})
    data["raw_response"].pop("created", None)  # litellm stamps its own creation time
    return data


@pytest.mark.parametrize("name", list(PROVIDERS))
def test_faults_are_retried_to_the_same_answers(name, monkeypatch, no_waits, tmp_path):
    kinds = PROVIDERS[name][3]
    faulted = sorted(random.Random(name).sample(range(N_CALLS), N_FAULTED))
    faults = dict(zip(faulted, kinds))

    clean, clean_fake = _run(name, {}, monkeypatch)
    no_waits.clear()
    faulty, fake = _run(name, faults, monkeypatch)

    assert [_comparable(r) for r in faulty] == [_comparable(r) for r in clean]
    # a retry resends the same request: with repeats folded, the faulty run's requests are
    # the clean run's
    bodies = [s.body for s in fake.seen]
    folded = [b for k, b in enumerate(bodies) if k == 0 or b != bodies[k - 1]]
    assert folded == [s.body for s in clean_fake.seen]
    assert len(fake.seen) == N_CALLS + N_FAULTED
    for i, result in enumerate(faulty):
        outcomes = [a.outcome for a in result.attempts]
        if i in faults:
            assert outcomes[-1] == "ok" and len(outcomes) == 2, (i, faults[i], outcomes)
            first = result.attempts[0]
            expected = "rate_limited" if faults[i] in ("429", "529") else "transient"
            assert first.outcome == expected, (faults[i], first)
            if faults[i] in ("429", "529"):
                assert first.retry_after == 3 and first.wait_s == 3
            else:
                assert first.wait_s is not None
        else:
            assert outcomes == ["ok"]
    assert 3 in no_waits

    # The key was sent to the provider...
    assert any(SECRET in " ".join(s.headers.values()) for s in fake.seen)
    # ...but nothing we would write holds it: responses (raw request and response) and the
    # attempt records.
    out = tmp_path / "calls.jsonl"
    with out.open("w") as f:
        for result in faulty:
            f.write(result.response.model_dump_json() + "\n")
            f.write(json.dumps([a.to_dict() for a in result.attempts]) + "\n")
    text = out.read_text()
    assert SECRET not in text and "Bearer" not in text and "x-api-key" not in text.lower()
