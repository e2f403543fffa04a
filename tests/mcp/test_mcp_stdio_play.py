"""An MCP client of the official SDK plays a task through ``llm-eval mcp`` over stdio: the
episode is the one the ``script/FILE`` agent plays with the same actions (score, actions,
validity), it is a job of ``mcp/<client name>`` in the run directory, and ``llm-eval replay``
reproduces it and ``llm-eval report`` shows it like any agent's."""

from __future__ import annotations

import json

import anyio
import pytest
from mcp import stdio_client
from mcp_helpers import jobs, play, session, stdio_params, text_of

from llm_eval.agents import mfp_answer
from llm_eval.cli import main
from llm_eval.replay import recorded_actions
from llm_eval.tasks.store import load_task
from llm_eval.transcripts import TranscriptStream

pytestmark = pytest.mark.timeout(120)


def _actions() -> list[str]:
    answer, _ = mfp_answer(load_task("gravity", "mfp"))
    # an invalid action, world actions, a reset, the test, a frame re-watched, the right answer
    return ["jump", "noop", "left", "click 3 4", "reset", "go-to-test", "watch 2",
            f"choose {answer}"]


async def _play_stdio(run_dir, actions, name):
    async with stdio_client(stdio_params("--task", "gravity-mfp", "--run-dir",
                                         str(run_dir))) as (read, write):
        async with session(read, write, name) as client:
            await client.initialize()
            tools = {t.name for t in (await client.list_tools()).tools}
            first = await client.call_tool("observe", {})
            valid = await client.call_tool("valid_actions", {})
            results = await play(client, actions)
            after = await client.call_tool("act", {"action": "noop"})
            again = await client.call_tool("observe", {})
    return tools, first, valid, results, after, again


def test_a_client_plays_as_the_script_agent_and_is_recorded_like_any_agent(tmp_path, capsys):
    run_dir = tmp_path / "run"
    actions = _actions()
    tools, first, valid, results, after, again = anyio.run(
        _play_stdio, run_dir, actions, "Test Client 2/beta")
    assert tools == {"observe", "act", "reset", "go_to_test", "valid_actions"}

    # what the client was shown: the briefing, the phase, the frame, the actions; no test named
    shown = text_of(first)
    assert not first.is_error and "# Interaction phase" in shown and "legend:" in shown
    assert first.structured_content["phase"] == "interaction"
    assert first.structured_content["agent"] == "mcp/Test-Client-2-beta"
    assert "masked-frame" not in shown.lower() and "mfp" not in shown
    assert "go-to-test: end the interaction phase" in text_of(valid)

    # the invalid action: a tool error with the phase's message, counted; the rest accepted
    assert results[0].is_error and "unknown action 'jump'" in text_of(results[0])
    assert results[0].structured_content["invalid"].startswith("unknown action 'jump'")
    assert [r.is_error for r in results[1:]] == [False] * (len(actions) - 1)
    test_start = results[actions.index("go-to-test")]
    assert "# Test: masked-frame prediction" in text_of(test_start)
    assert results[-1].structured_content["done"] is True
    assert "nothing more to play" in text_of(results[-1])
    assert after.is_error and "No action was taken" in text_of(after)   # the episode is over
    assert again.structured_content == {**again.structured_content, "done": True, "more": False}

    # the same actions played by the script agent
    script = tmp_path / "actions.txt"
    script.write_text("\n".join(actions) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["episode", "gravity", "--family", "mfp", "--agent", f"script/{script}",
                 "--json", "--steps"]) == 0
    scripted = json.loads(capsys.readouterr().out)

    (row,) = jobs(run_dir)
    assert row.settings["model"] == "mcp/Test-Client-2-beta" and row.status == "done"
    assert row.score == scripted["score"] == 1.0
    path = run_dir / row.transcript
    assert list(recorded_actions(path)) == actions == [s["action"] for s in scripted["steps"]]
    events = list(TranscriptStream(path, expand=False))
    assert [e.valid for e in events if e.type == "action"] == \
        [s["valid"] for s in scripted["steps"]]
    score = next(e for e in events if e.type == "score")
    assert score.score == 1.0
    assert score.result["invalid_actions"] == scripted["invalid_actions"] == 1
    assert all(e.time for e in events)   # every event has its time

    # replayed and reported like any agent's run
    assert main(["replay", str(run_dir)]) == 0
    assert "reproduced 1/1" in capsys.readouterr().out
    report = tmp_path / "report.html"
    assert main(["report", str(run_dir), "-o", str(report)]) == 0
    html = report.read_text(encoding="utf-8")
    # the leaderboard's arm, and its row of the behaviour measures (actions by kind)
    assert 'data-model="mcp/Test-Client-2-beta" data-kind="reset" data-count="1"' in html
