"""The MCP tools in process (the SDK's ``Client`` over its in-memory transport, with the
``initialize`` handshake): a suite's queue of tasks played in turn, invalid actions of every
kind (reported and counted, never a crash), the consecutive-invalid limit, the server's stop,
the autumnbench protocol, and client names as agent names."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client
from mcp_helpers import jobs, text_of
from mcp_types import Implementation

from llm_eval.mcp.episodes import MAX_ACTION_CHARS, McpEpisodes
from llm_eval.mcp.server import Players, build_server, client_name
from llm_eval.replay import recorded_actions
from llm_eval.worldtest.phase import DEFAULT_MAX_CONSECUTIVE_INVALID

pytestmark = pytest.mark.timeout(120)


def _serve(run_dir, tasks, **settings):
    episodes = McpEpisodes(run_dir, **settings)
    return episodes, build_server(Players(episodes, tasks))


def _client(server, name="tester"):
    return Client(server, mode="legacy", client_info=Implementation(name=name, version="1"))


def test_a_queue_of_tasks_is_played_in_turn(tmp_path):
    episodes, server = _serve(tmp_path, [("gravity", "planning"), ("gravity", "mfp")])

    async def run():
        async with _client(server) as c:
            first = await c.call_tool("observe", {})
            ended = [await c.call_tool("go_to_test", {}), await c.call_tool("act",
                                                                          {"action": "quit"})]
            late = await c.call_tool("act", {"action": "noop"})   # nothing left to act on
            second = await c.call_tool("observe", {})
            again = await c.call_tool("observe", {"instructions": True})
            last = [await c.call_tool(*call) for call in
                    (("go_to_test", {}), ("act", {"action": "choose 0"}))]
            over = await c.call_tool("observe", {})
            after = await c.call_tool("act", {"action": "noop"})
        return first, ended, late, second, again, last, over, after

    first, ended, late, second, again, last, over, after = anyio.run(run)
    episodes.close()
    assert first.structured_content["task_number"] == 1
    assert "1 more task: call observe" in text_of(ended[-1])
    assert late.is_error and "No action was taken" in text_of(late)
    assert second.structured_content["task_number"] == 2
    assert second.structured_content["job"] != first.structured_content["job"]
    assert "Task 2 of 2." in text_of(second) and "# Interaction phase" in text_of(second)
    assert "# Interaction phase" in text_of(again) and "Task 2 of 2." not in text_of(again)
    assert last[-1].structured_content["done"] and "last task" in text_of(last[-1])
    assert "have been played" in text_of(over) and not over.is_error
    assert after.is_error and "No action was taken" in text_of(after)
    rows = jobs(tmp_path)
    assert sorted(r.settings["family"] for r in rows) == ["mfp", "planning"]
    assert all(r.status == "done" for r in rows)
    assert [len(recorded_actions(tmp_path / r.transcript)) for r in rows] == [2, 2]


def test_invalid_actions_are_reported_counted_and_never_crash(tmp_path):
    episodes, server = _serve(tmp_path, [("gravity", "planning")])
    huge = "click " + "9" * 10_000

    async def run():
        async with _client(server) as c:
            results = [await c.call_tool("act", {"action": a})
                       for a in ("Left", huge, "", "click 12 0", "quit")]
            typed = await c.call_tool("act", {"action": 5})   # not text: the SDK refuses it
            empty = await c.call_tool("act", {})
            more = [await c.call_tool("act", {"action": "nope"})   # to the limit in a row
                    for _ in range(DEFAULT_MAX_CONSECUTIVE_INVALID - 5)]
        return results, typed, empty, more

    results, typed, empty, more = anyio.run(run)
    episodes.close()
    assert all(r.is_error for r in results)
    assert "valid actions now" in text_of(results[0])
    assert "click X must satisfy 0 <= X <= 11, got 12" in text_of(results[3])
    assert "quit is not an action of this phase" in text_of(results[4])
    assert typed.is_error and empty.is_error
    assert all(r.is_error and r.structured_content["phase"] == "interaction" for r in more[:-1])
    # the phase's limit of invalid actions in a row ends the interaction: the test begins,
    # and the client is told the action that ended it was invalid
    last = more[-1]
    assert last.is_error and last.structured_content["phase"] == "planning"
    assert last.structured_content["invalid"].startswith("unknown action 'nope'")
    assert "the interaction phase has ended" in text_of(last)
    assert "# Test: planning" in text_of(last)
    (row,) = jobs(tmp_path)
    actions = recorded_actions(tmp_path / row.transcript)
    assert actions[:5] == ("Left", huge[:MAX_ACTION_CHARS], "", "click 12 0", "quit")
    # the two calls that were not text never reached the episode
    assert len(actions) == DEFAULT_MAX_CONSECUTIVE_INVALID


def test_the_server_stopping_leaves_an_unfinished_episode_unscored(tmp_path):
    episodes, server = _serve(tmp_path, [("gravity", "cd")])

    async def run():
        async with _client(server) as c:
            return await c.call_tool("act", {"action": "noop"})

    assert not anyio.run(run).is_error
    episodes.close()
    (row,) = jobs(tmp_path)
    assert row.status == "queued" and row.score is None
    assert row.error == "stopped: the MCP server stopped while the client was playing"


def test_autumnbench_shows_the_harness_text_and_offered_strings(tmp_path):
    episodes, server = _serve(tmp_path, [("gravity", "cd")], protocol="autumnbench")

    async def run():
        async with _client(server) as c:
            return [await c.call_tool("observe", {}), await c.call_tool("valid_actions", {}),
                    await c.call_tool("go_to_test", {})]

    observed, valid, test = anyio.run(run)
    episodes.close()
    assert "This is the interactive phase" in text_of(observed)
    assert "Actions offered now:" in text_of(observed)
    assert "- `go-to-test`" in text_of(valid)
    assert observed.structured_content["valid_actions"][-2:] == ["go-to-test", "reset"]
    assert "Detect the change" in text_of(test)
    (row,) = jobs(tmp_path)
    assert row.settings["protocol"] == "autumnbench"


@pytest.mark.parametrize("raw, name", [
    ("Claude Code", "Claude-Code"), ("codex-mcp-client", "codex-mcp-client"),
    ("../../etc/passwd", "etc-passwd"), ("", "client"), (None, "client"), ("名前", "client"),
    ("a" * 100, "a" * 64), ("-x-", "x"), ("v1.2_beta", "v1.2_beta")])
def test_client_names_become_agent_names(raw, name):
    assert client_name(raw) == name


def test_an_episode_that_fails_is_reported_as_such_not_as_played(tmp_path, monkeypatch):
    from llm_eval.sweep import job as module
    from llm_eval.sweep.job import JobOutcome

    monkeypatch.setattr(module, "execute_job",
                        lambda *args, **kwargs: JobOutcome("failed", error="OSError: disk full"))
    episodes, server = _serve(tmp_path, [("gravity", "cd")])

    async def run():
        async with _client(server) as c:
            return await c.call_tool("observe", {})

    result = anyio.run(run)
    episodes.close()
    assert result.is_error and result.structured_content["done"] is True
    assert "could not be played to its end (failed: OSError: disk full)" in text_of(result)
    (row,) = jobs(tmp_path)
    assert row.status == "failed" and row.error == "OSError: disk full"
