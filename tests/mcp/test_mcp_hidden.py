"""Nothing an MCP client is sent comes from a task's hidden half: whole episodes of each
family, every tool's text and structured content, searched for every hidden text (the
agents' own definition of it), and for the world's name, which no agent is told."""

from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp_types import Implementation

from llm_eval.mcp.episodes import McpEpisodes
from llm_eval.mcp.server import Players, build_server
from llm_eval.tasks.store import load_task

pytestmark = pytest.mark.timeout(120)
TESTS = Path(__file__).resolve().parents[1]
TEST_ACTIONS = {"mfp": ["watch 0", "watch 3", "choose 2"],
                "cd": ["noop", "left", "noop", "declare", "watch 1", "submit 1"],
                "planning": ["left", "click 2 2", "up", "quit"]}


@functools.cache
def _hidden_needles():
    """The agents' definition of a task's hidden texts (tests/agents/test_llm_agent.py)."""
    spec = importlib.util.spec_from_file_location(
        "agents_test_llm_agent_for_mcp", TESTS / "agents" / "test_llm_agent.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module._hidden_needles


@pytest.mark.parametrize("world, family", [("gravity", "mfp"), ("garden", "cd"),
                                           ("gravity", "planning"), ("garden", "planning")])
def test_no_call_of_a_whole_episode_holds_hidden_text(tmp_path, world, family):
    task = load_task(world, family)
    needles = _hidden_needles()(task.hidden.model_dump(mode="json")) | {world}
    episodes = McpEpisodes(tmp_path)
    server = build_server(Players(episodes, [(world, family)]))
    calls = [("observe", {"instructions": True}), ("valid_actions", {}),
             ("act", {"action": "left"}), ("act", {"action": "bogus"}), ("reset", {}),
             ("go_to_test", {}), ("observe", {"instructions": True}), ("valid_actions", {}),
             *[("act", {"action": a}) for a in TEST_ACTIONS[family]], ("observe", {})]

    async def run():
        async with Client(server, mode="legacy",
                          client_info=Implementation(name="seeker", version="1")) as c:
            return [await c.call_tool(name, args) for name, args in calls]

    results = anyio.run(run)
    episodes.close()
    assert results[-1].structured_content["done"] is True   # the whole episode was played
    for result in results:
        sent = "\n".join(b.text for b in result.content) + json.dumps(result.structured_content)
        leaked = sorted(n for n in needles if n in sent)
        assert not leaked, f"{task.id}: hidden text sent to the client: {leaked[:3]}"
