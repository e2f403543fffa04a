"""The agent_tools setting: parsed strictly, canonical, in a job's settings and id only when
set (earlier ids stay), swept from a spec or the command line, refused with the bad value
named; the caps are budgets."""

from __future__ import annotations

import pytest

from llm_eval.agent_tools import AgentToolsError, ToolCaps, parse_agent_tools, tools_text
from llm_eval.cli import build_parser
from llm_eval.cli.run import _spec_from_flags
from llm_eval.replay import sweep_for
from llm_eval.sweep.spec import SpecError, Sweep

MODEL = "openai/gpt-5"
BASE = {"models": [MODEL], "worlds": ["hunters"], "families": ["mfp"]}


def test_names_are_parsed_into_one_canonical_order():
    assert parse_agent_tools("python+notes") == ("notes", "python")
    assert parse_agent_tools(["autumn", "notes", "notes"]) == ("notes", "autumn")
    assert parse_agent_tools("none") == () == parse_agent_tools(None) == parse_agent_tools(())
    assert tools_text(parse_agent_tools("autumn+notes")) == "notes+autumn"
    assert tools_text(()) == "none"


@pytest.mark.parametrize("value, words", [
    ("nots", "unknown tool 'nots'; did you mean 'notes'?"),
    ("notes+shell", "unknown tool 'shell'"),
    ("+", "empty"),
    (3, "got int 3"),
])
def test_a_bad_setting_names_the_bad_value(value, words):
    with pytest.raises(AgentToolsError, match="agent_tools: ") as caught:
        parse_agent_tools(value)
    assert words in str(caught.value)


def test_caps_must_be_positive_whole_numbers():
    assert ToolCaps(per_episode=3, per_turn=1).per_turn == 1
    for bad in (0, -1, True, 2.5):
        with pytest.raises(AgentToolsError, match="tool_calls_per_turn"):
            ToolCaps(per_turn=bad)


def test_jobs_without_tools_keep_their_ids():
    plain = {j.id for j in Sweep.from_data(BASE).expand()}
    swept = Sweep.from_data({**BASE, "agent_tools": ["none", "notes", ["autumn", "notes"]]})
    jobs = swept.expand()
    assert len(jobs) == 3
    assert plain < {j.id for j in jobs}
    tooled = {j.settings.get("agent_tools") for j in jobs} - {None}
    assert tooled == {"notes", "notes+autumn"}


def test_tools_and_caps_are_in_the_settings_and_round_trip_into_the_id():
    sweep = Sweep.from_data({**BASE, "agent_tools": "autumn+notes",
                             "budgets": {"tool_calls_per_episode": [5, 9],
                                         "tool_calls_per_turn": 2}})
    jobs = sweep.expand()
    assert len(jobs) == 2
    for job in jobs:
        s = job.settings
        assert s["agent_tools"] == "notes+autumn" and s["tool_calls_per_turn"] == 2
        assert s["tools_prompt_digest"] and s["tool_calls_per_episode"] in (5, 9)
        # a replay rebuilds the same job from its settings
        assert [j.id for j in sweep_for(job).expand()] == [job.id]
    # defaults are written in full, so a later change of a default changes the id
    (job,) = Sweep.from_data({**BASE, "agent_tools": "notes"}).expand()
    assert (job.settings["tool_calls_per_episode"], job.settings["tool_calls_per_turn"]) \
        == (40, 4)


def test_the_tools_prompt_is_in_the_id():
    (default,) = Sweep.from_data({**BASE, "agent_tools": "notes"}).expand()
    (reflective,) = Sweep.from_data({**BASE, "agent_tools": "notes",
                                     "prompts": "reflective"}).expand()
    assert default.settings["tools_prompt_digest"] != reflective.settings["tools_prompt_digest"]


@pytest.mark.parametrize("data, words", [
    ({"agent_tools": ["notes", "pyhton"]}, "agent_tools.1: unknown tool 'pyhton'; did you mean "
                                           "'python'?"),
    ({"budgets": {"tool_calls_per_turn": 0}}, "budgets.tool_calls_per_turn: must be at least 1"),
    ({"agent_tools": "autumn", "protocol": "autumnbench"}, "under protocol autumnbench use "
                                                           "notes or python"),
])
def test_a_bad_spec_is_refused_naming_the_field(data, words):
    with pytest.raises(SpecError) as caught:
        Sweep.from_data({**BASE, **data}, "spec.yaml")
    assert str(caught.value).startswith("spec.yaml") and words in str(caught.value)


def test_a_spec_file_names_the_line_of_a_bad_tool(tmp_path):
    path = tmp_path / "spec.yaml"
    path.write_text("models: [openai/gpt-5]\nworlds: [hunters]\nfamilies: [mfp]\n"
                    "agent_tools:\n  - notes\n  - shell\n")
    with pytest.raises(SpecError, match=r"spec.yaml:6: agent_tools.1: unknown tool 'shell'"):
        Sweep.from_yaml(path)


def test_run_flags_sweep_the_tools_and_caps():
    args = build_parser().parse_args(
        ["run", "--model", MODEL, "--worlds", "hunters", "--families", "mfp", "--agent-tools",
         "none", "notes+python", "--tool-calls-per-turn", "1", "3", "-o", "out"])
    jobs = _spec_from_flags(args).expand()
    settings = sorted((j.settings.get("agent_tools", "none"),
                       j.settings.get("tool_calls_per_turn")) for j in jobs)
    assert settings == [("none", None), ("notes+python", 1), ("notes+python", 3)]


def test_episode_flags_refuse_an_unknown_tool(capsys):
    with pytest.raises(SystemExit) as caught:
        build_parser().parse_args(["episode", "hunters", "--family", "mfp", "--agent", MODEL,
                                   "--agent-tools", "notes+bash"])
    assert caught.value.code == 2
    assert "--agent-tools: unknown tool 'bash'" in capsys.readouterr().err
