"""The agent tools in whole episodes of a scripted model over HTTP to the fake provider on
loopback (openai-chat), run as sweep jobs: the world's own program checked with ``autumn``
matches at every step, a wrong one is caught at its first differing step, a broken one gets
the interpreter's message; the notes written in the interaction phase are read back in the
test; a call past the per-turn cap is refused as an invalid action; every call is in the
transcript, and replay reproduces the episode without running any tool."""

from __future__ import annotations

import gzip
import json

import pytest
from fake_provider import FakeProvider
from provider_bodies import chat_body
from scripted import action_call, reference, true_program

from llm_eval.replay import replay_transcript
from llm_eval.sweep import Sweep, run_sweep
from llm_eval.transcripts import read_transcript

SECRET = "fake-test-credential-TOOLSKEY0123"
MODEL = "openai-chat/gpt-4.1-mini"
NOTES = "wolves step every third tick; sheep flee within 2 cells"
WRONG = true_program().replace("(% clock 3)", "(% clock 2)")
BROKEN = "(program (= GRID_SIZE 14) (object Wolf (Cell 0 0 \"red\")"


def script() -> list[list[tuple[str, dict]]]:
    """The model's replies: each a list of calls (the last one the action, if any)."""
    actions = list(reference())
    truth = true_program()
    replies: list[list[tuple[str, dict]]] = [[("notes_write", {"text": NOTES})]]
    test_start = actions.index("go-to-test") + 1
    for i, action in enumerate(actions):
        if 0 < i < test_start and i not in (3, 6):   # the true program, before each action
            replies.append([("autumn_check", {"program": truth})])
        if i == 3:               # a wrong and a broken hypothesis in one reply
            replies.append([("autumn_check", {"program": WRONG}),
                            ("autumn_check", {"program": BROKEN})])
        if i == 6:               # three calls: past the cap of 2 a turn, so refused
            replies.append([("notes_read", {}), ("notes_read", {}), ("notes_read", {})])
        if i == test_start:      # the test phase reads the notes of the interaction phase
            replies.append([("notes_read", {})])
        replies.append([action_call(action)])
    return replies


def spec_for(fake: FakeProvider, **extra) -> Sweep:
    return Sweep.from_data({
        "models": [MODEL], "worlds": ["hunters"], "families": ["mfp"],
        "agent_tools": ["notes+autumn"], "budgets": {"tool_calls_per_turn": 2},
        "calls": {"max_attempts": 2, "timeout": 20},
        "adapter_options": {MODEL: {"base_url": fake.base_url + "/v1", "timeout": 5.0}},
        **extra})


def play(tmp_path, monkeypatch, replies):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    with FakeProvider() as fake:
        for n, calls in enumerate(replies):
            fake.reply(chat_body(calls=[(f"call_{n}_{k}", name, args)
                                        for k, (name, args) in enumerate(calls)]))
        report = run_sweep(spec_for(fake), tmp_path)
        bodies = [s.body for s in fake.seen]
    (row,) = report.rows
    assert row.status == "done", row.error
    return row, read_transcript(tmp_path / row.transcript), bodies


@pytest.fixture(scope="module")
def episode(tmp_path_factory):
    monkeypatch = pytest.MonkeyPatch()
    try:
        root = tmp_path_factory.mktemp("tools-run")
        row, transcript, bodies = play(root, monkeypatch, script())
    finally:
        monkeypatch.undo()
    return root, row, transcript, bodies


def test_the_true_program_matches_at_every_step(episode):
    _, row, transcript, _ = episode
    checks = [e for e in transcript.of_type("tool_call") if e.tool == "autumn_check"
              and e.arguments["program"] == true_program()]
    assert len(checks) == reference().index("go-to-test") - 2
    assert all(e.status == "ok" and e.detail["status"] == "matches" for e in checks)
    assert all(e.result.startswith("matches so far") for e in checks)
    # each check compares one frame more than the one before, or a run's start after reset
    counted = [e.detail["checked"] for e in checks]
    assert counted == sorted(counted) and counted[0] == 2
    assert row.score == 1.0   # the tools took no action: the reference's answer still scores


def test_a_wrong_program_gets_its_first_differing_step_and_a_broken_one_the_message(episode):
    _, _, transcript, bodies = episode
    wrong = next(e for e in transcript.of_type("tool_call")
                 if e.arguments.get("program") == WRONG)
    assert wrong.status == "ok" and wrong.detail["status"] == "differs"
    step = wrong.detail["step"]
    assert wrong.result.startswith(f"differs at step {step} (run 0, after `")
    assert "cell(s) differ: (" in wrong.result and "you saw red, the program gives" \
        in wrong.result or "you saw" in wrong.result
    broken = next(e for e in transcript.of_type("tool_call")
                  if e.arguments.get("program") == BROKEN)
    assert broken.status == "error" and broken.detail["status"] == "error"
    assert broken.result.startswith("error: the program does not load:")
    # both results went back to the model as the results of its two calls, in one message
    asked = next(b for b in bodies if any(m.get("content") == broken.result
                                          for m in b["messages"] if m["role"] == "tool"))
    tool_messages = [m for m in asked["messages"] if m["role"] == "tool"][-2:]
    assert [m["content"] for m in tool_messages] == [wrong.result, broken.result]


def test_notes_written_in_the_interaction_phase_are_read_in_the_test(episode):
    _, _, transcript, _ = episode
    calls = transcript.of_type("tool_call")
    assert calls[0].tool == "notes_write" and calls[0].phase == "interaction"
    read = [e for e in calls if e.tool == "notes_read" and e.phase == "mfp"]
    assert len(read) == 1 and read[0].result == NOTES and read[0].status == "ok"


def test_a_call_past_the_per_turn_cap_is_refused_as_an_invalid_action(episode):
    _, _, transcript, bodies = episode
    calls = transcript.of_type("tool_call")
    refused = [e for e in calls if e.status == "refused"]
    assert len(refused) == 1 and "cap of 2 tool calls between two actions" in refused[0].result
    turn = [e for e in calls if e.step == refused[0].step and e.phase == "interaction"]
    assert [e.status for e in turn][-3:] == ["ok", "ok", "refused"]
    invalid = [a for a in transcript.of_type("action") if not a.valid]
    assert len(invalid) == 1 and invalid[0].phase == "interaction"
    # the model is told: the refused call's result, in the next request, is the refusal
    refused_id = f"call_{refused[0].call_index}_2"
    answers = [m for b in bodies for m in b["messages"]
               if m["role"] == "tool" and m["tool_call_id"] == refused_id]
    assert answers and answers[0]["content"] == f"invalid action: {refused[0].result}"
    # no tool call advanced the world: the actions are the reference's, plus the refusal
    actions = [a.action for a in transcript.of_type("action") if a.valid]
    assert actions == list(reference())


def test_each_tool_call_follows_the_model_call_that_made_it(episode):
    _, _, transcript, bodies = episode
    model_calls = {c.index: c for c in transcript.of_type("model_call")}
    for event in transcript.of_type("tool_call"):
        names = [c["name"] for c in model_calls[event.call_index].response["tool_calls"]]
        assert event.tool in names
    assert len(model_calls) == len(bodies) == len(script())
    offered = {t["function"]["name"] for t in bodies[0]["tools"]}
    assert {"notes_read", "notes_write", "autumn_check"} <= offered
    assert "python_run" not in offered
    assert "Besides the actions you have helper tools" in bodies[0]["messages"][0]["content"]


def test_replay_reproduces_the_episode_without_running_a_tool(episode, monkeypatch):
    root, row, _, _ = episode

    def never(*args, **kwargs):
        raise AssertionError("a replay ran a tool")

    monkeypatch.setattr("llm_eval.agent_tools.toolbox.check_hypothesis", never)
    monkeypatch.setattr("llm_eval.agent_tools.toolbox.Notes.read", never)
    monkeypatch.setattr("llm_eval.agent_tools.toolbox.Notes.write", never)
    result = replay_transcript(root / row.transcript)
    assert result.status == "reproduced", result.detail
    assert result.score == row.score


def test_replay_names_a_tool_call_that_differs_from_the_recording(episode, tmp_path):
    root, row, _, _ = episode
    path = root / row.transcript
    lines = gzip.decompress(path.read_bytes()).decode().splitlines()
    edited = []
    for line in lines:
        event = json.loads(line)
        if event["type"] == "tool_call" and event["tool"] == "notes_write":
            event["arguments"]["text"] = "something else"
        edited.append(json.dumps(event))
    changed = tmp_path / path.name
    changed.write_bytes(gzip.compress(("\n".join(edited) + "\n").encode()))
    result = replay_transcript(changed)
    assert result.status == "mismatch"
    assert "replay mismatch" in result.detail and "tool call 0 (notes_write" in result.detail


def test_the_settings_name_the_tools(episode):
    _, _, transcript, _ = episode
    settings = transcript.header.settings
    assert settings["agent_tools"] == "notes+autumn"
    assert settings["tool_calls_per_turn"] == 2 and settings["tool_calls_per_episode"] == 40
    assert len(settings["tools_prompt_digest"]) == 16


def test_tool_use_is_counted_and_costed_in_the_behaviour_measures(episode):
    from llm_eval.analysis.behaviour import behaviour_of

    root, row, transcript, _ = episode
    measured = behaviour_of(root / row.transcript)
    calls = transcript.of_type("tool_call")
    checks = [e for e in calls if e.tool == "autumn_check" and e.status != "refused"]
    only_tools = [c for c in transcript.of_type("model_call")
                  if c.action is None and c.invalid_reply is None]
    assert measured.agent_tools == "notes+autumn"
    assert measured.tool_calls == len(calls) and measured.tool_refused == 1
    assert measured.tool_calls_by_tool["autumn_check"] == len(checks)
    assert measured.hypotheses == len(checks)
    assert measured.hypotheses_matched == len(checks) - 2   # the wrong and the broken one
    assert measured.hypothesis_match_rate == (len(checks) - 2) / len(checks)
    assert measured.tool_model_calls == len(only_tools) > 0
    assert measured.tool_cost_usd == pytest.approx(sum(c.cost["usd"] for c in only_tools))


def test_the_report_has_a_tool_use_row_per_arm(episode):
    from llm_eval.analysis.data import load_episodes
    from llm_eval.analysis.stats import by_arm
    from llm_eval.report.page import _tools_section

    root, _, _, _ = episode
    html = str(_tools_section(by_arm(load_episodes([root]))))
    assert '<h2 id="tools">Tool use</h2>' in html and "<th>openai-chat/gpt-4.1-mini</th>" in html
    checked = reference().index("go-to-test")   # the true program's checks, less two, + 2
    assert f'data-measure="hypothesis_match_rate">{(checked - 2) / checked:.3f} (n=1)' in html


def test_the_transcript_viewer_shows_each_tool_result(episode):
    from llm_eval.report.viewer import read_phases
    from llm_eval.transcripts import TranscriptStream

    root, row, transcript, _ = episode
    phases = read_phases(TranscriptStream(root / row.transcript, expand=False))
    shown = [t.result for p in phases for s in p.steps for t in s.tools]
    assert shown == [e.result for e in transcript.of_type("tool_call")]
