"""Whole episodes of the LLM agent over real HTTP to the fake provider on loopback.

The fake's replies are scripted from a reference run: a few exploring actions, then
``go-to-test``, then the oracle's answer. Through each adapter (OpenAI Responses, Chat
Completions, Anthropic, LiteLLM), with 30% of the calls faulted (429 with Retry-After, 500,
503, 529, timeouts, dropped connections, malformed JSON), the episode takes the same actions
and gets the same score as without faults, and the retries show in ``agent.calls``. The
command line plays through the fake too, and nothing it writes holds the key."""

from __future__ import annotations

import functools
import json
import os
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "adapters"))

from fake_provider import FakeProvider  # noqa: E402
from provider_bodies import chat_body, messages_body, responses_body  # noqa: E402

from llm_eval.agents import OracleAgent, make_agent  # noqa: E402
from llm_eval.calls import CallPolicy  # noqa: E402
from llm_eval.cli import main  # noqa: E402
from llm_eval.tasks.store import load_task  # noqa: E402
from llm_eval.transcripts import expand_calls  # noqa: E402
from llm_eval.worldtest import run_episode  # noqa: E402

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("DISABLE_AIOHTTP_TRANSPORT", "True")

SECRET = "fake-test-credential-EPISODEKEY0123"
CLIENT_TIMEOUT = 2.0   # generous: a busy machine must not turn a normal answer into a timeout
POLICY = CallPolicy(max_attempts=4, timeout=20.0)
EXPLORE = ("click 1 1", "left", "reset", "noop")
ARGS = {"click": ("x", "y"), "watch": ("t",), "submit": ("t",), "choose": ("k",)}


class ScriptAgent:
    """The reference run: explore a little, go to the test, then play as the oracle."""

    def __init__(self, task) -> None:
        self.oracle = OracleAgent(task)
        self.explore = list(EXPLORE)

    def reset(self, start) -> None:
        self.oracle.reset(start)
        self.explore = list(EXPLORE)

    def act(self, observation) -> str:
        if observation.phase == "interaction":
            return self.explore.pop(0) if self.explore else "go-to-test"
        return self.oracle.act(observation)


@functools.cache
def reference(world: str, family: str):
    task = load_task(world, family)
    result = run_episode(task, ScriptAgent(task))
    return task, [r.action for r in result.records], result


def tool_call(action: str) -> tuple[str, dict]:
    kind, *values = action.split()
    return kind.replace("-", "_"), dict(zip(ARGS.get(kind, ()), map(int, values)))


PROVIDERS = {
    # spec, base_url suffix, body of the i-th reply, the fault kinds used
    "openai": ("openai/gpt-5", "/v1",
               lambda i, a: responses_body(calls=[(f"call_{i}", *tool_call(a))],
                                           reasoning=f"step {i}"),
               ["429", "500", "timeout", "drop", "malformed", "503", "429"]),
    "openai-chat": ("openai-chat/gpt-4.1-mini", "/v1",
                    lambda i, a: chat_body(calls=[(f"call_{i}", *tool_call(a))]),
                    ["503", "429", "drop", "timeout", "500", "malformed", "500"]),
    "anthropic": ("anthropic/claude-sonnet-4-5", "",
                  lambda i, a: messages_body(calls=[(f"toolu_{i}", *tool_call(a))],
                                             thinking=f"step {i}"),
                  ["529", "429", "500", "timeout", "drop", "malformed", "529"]),
    "litellm": ("litellm/openai/local-model", "/v1",
                lambda i, a: chat_body(calls=[(f"call_{i}", *tool_call(a))],
                                       model="local-model"),
                ["429", "503", "500", "timeout", "drop", "malformed", "503"]),
}


def play(name: str, task, actions: list[str], faults: dict[int, str], monkeypatch, **settings):
    spec, suffix, body, _ = PROVIDERS[name]
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    with FakeProvider(hang=CLIENT_TIMEOUT * 4) as fake:
        for i, action in enumerate(actions):
            if i in faults:
                fake.fault(faults[i], retry_after=3)
            fake.reply(body(i, action))
        options = {"base_url": fake.base_url + suffix, "timeout": CLIENT_TIMEOUT}
        if name == "litellm":
            options["api_key"] = SECRET
        agent = make_agent(spec, task, policy=POLICY, adapter_options=options, **settings)
        try:
            result = run_episode(task, agent)
        finally:
            agent.close()
        assert not fake.steps, "every scripted step was used"
    return result, agent, fake


@pytest.mark.parametrize("name", list(PROVIDERS))
def test_a_faulted_episode_plays_like_a_clean_one(name, monkeypatch, no_waits, tmp_path):
    task, actions, expected = reference("warehouse", "planning")
    assert expected.score == 1.0 and len(actions) >= 20
    faulted = sorted(random.Random(name).sample(range(len(actions)), round(0.3 * len(actions))))
    kinds = PROVIDERS[name][3]
    faults = {i: kinds[k % len(kinds)] for k, i in enumerate(faulted)}

    clean, clean_agent, clean_fake = play(name, task, actions, {}, monkeypatch)
    faulty, agent, fake = play(name, task, actions, faults, monkeypatch)

    for result in (clean, faulty):
        assert [r.action for r in result.records] == actions
        assert result.score == expected.score and result.raw_reward == expected.raw_reward
        assert result.invalid_actions == 0
    assert len(fake.seen) == len(actions) + len(faults)
    bodies = [s.body for s in fake.seen]
    folded = [b for k, b in enumerate(bodies) if k == 0 or b != bodies[k - 1]]
    assert folded == [s.body for s in clean_fake.seen]     # a retry resends the same request
    assert len(agent.calls) == len(actions)
    for i, record in enumerate(agent.calls):
        outcomes = [a["outcome"] for a in record["attempts"]]
        if i in faults:
            expected_first = "rate_limited" if faults[i] in ("429", "529") else "transient"
            assert outcomes == [expected_first, "ok"], (i, faults[i], outcomes)
        else:
            assert outcomes == ["ok"]
        assert record["action"] == actions[i]
        assert record["request_hash"] == clean_agent.calls[i]["request_hash"]
    assert 3 in no_waits

    # the key went to the provider, but nothing the agent keeps holds it
    assert any(SECRET in " ".join(s.headers.values()) for s in fake.seen)
    out = tmp_path / "episode.json"
    out.write_text(json.dumps({"result": faulty.to_dict(), "calls": agent.calls}))
    text = out.read_text()
    assert SECRET not in text and "Bearer" not in text and "x-api-key" not in text.lower()


@pytest.mark.parametrize("family", ["mfp", "cd"])
def test_other_families_play_through_the_chat_adapter(family, monkeypatch):
    task, actions, expected = reference("warehouse", family)
    result, agent, _ = play("openai-chat", task, actions, {}, monkeypatch,
                            rendering="compact+png", history=3)
    assert [r.action for r in result.records] == actions
    assert result.score == expected.score == 1.0
    *_, last = expand_calls(agent.calls)   # stored as patches on the call before
    assert last["request"]["messages"][-1]["parts"][-1]["data"].startswith("<image sha256=")


def _cli_args(fake: FakeProvider, tmp_path: Path, *extra: str) -> list[str]:
    return ["episode", "warehouse", "--family", "planning", "--agent",
            "openai-chat/gpt-4.1-mini", "--base-url", fake.base_url + "/v1",
            "--calls", str(tmp_path / "calls.jsonl"), "--record", str(tmp_path / "rec.json"),
            *extra]


def test_the_command_line_plays_a_model_and_writes_no_secret(monkeypatch, tmp_path, capsys):
    task, actions, expected = reference("warehouse", "planning")
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with FakeProvider() as fake:
        for i, action in enumerate(actions):
            if i % 4 == 1:
                fake.fault(("429", "500", "503", "malformed")[i % 3])
            fake.reply(chat_body(calls=[(f"call_{i}", *tool_call(action))]))
        code = main([*_cli_args(fake, tmp_path), "--json", "--steps", "--history", "5",
                     "--max-output-tokens", "300", "--temperature", "0"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    assert data["score"] == expected.score and data["agent"] == "openai-chat/gpt-4.1-mini"
    assert [s["action"] for s in data["steps"]] == actions
    assert data["model_calls"]["calls"] == len(actions) and data["model_calls"]["retries"] > 0
    sent = fake.seen[0].body
    assert sent["max_completion_tokens"] == 300 or sent.get("max_tokens") == 300
    (tmp_path / "out.json").write_text(out)
    for path in tmp_path.iterdir():
        text = path.read_text()
        assert SECRET not in text and "Bearer" not in text, path.name
        assert "x-api-key" not in text.lower(), path.name

    # the recording replays the episode offline, without a key
    monkeypatch.delenv("OPENAI_API_KEY")
    code = main(["episode", "warehouse", "--family", "planning", "--agent",
                 f"replay/{tmp_path / 'rec.json'}", "--history", "5",
                 "--max-output-tokens", "300", "--temperature", "0", "--json", "--steps"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert [s["action"] for s in json.loads(out)["steps"]] == actions


def test_a_missing_key_is_a_usage_error_naming_the_variable(capsys):
    code = main(["episode", "warehouse", "--family", "mfp", "--agent", "openai/gpt-5"])
    err = capsys.readouterr().err
    assert code == 2 and "OPENAI_API_KEY is not set" in err and "Traceback" not in err


def test_history_auto_without_a_known_window_is_a_usage_error_naming_the_flag(capsys):
    code = main(["episode", "warehouse", "--family", "mfp", "--agent",
                 "openai-chat/house-model", "--base-url", "http://127.0.0.1:9/v1",
                 "--history", "auto"])
    err = capsys.readouterr().err
    assert code == 2 and "--context-window N" in err and "Traceback" not in err


def test_exhausted_retries_are_an_infrastructure_error_not_a_score(monkeypatch, tmp_path,
                                                                   capsys):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with FakeProvider() as fake:
        for _ in range(6):
            fake.fault("503")
        code = main(_cli_args(fake, tmp_path))
    out, err = capsys.readouterr()
    assert code == 3 and out == ""
    assert "infrastructure error (the episode is not scored)" in err
    assert "gave up after 6 attempts" in err
