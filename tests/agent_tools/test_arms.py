"""One leaderboard row per model x tools setting: the tools setting splits arms, a job
without tools reads as ``agent_tools=none``, and only swept caps show in a label."""

from __future__ import annotations

from llm_eval.analysis.stats import arm_labels

M = "openai/gpt-5"
TOOLS = {"agent_tools": "notes+autumn", "tool_calls_per_episode": 40, "tool_calls_per_turn": 4}


def test_tools_settings_of_one_model_are_separate_arms():
    assert arm_labels([{"model": M}, {"model": M, **TOOLS}]) == \
        [f"{M} agent_tools=none", f"{M} agent_tools=notes+autumn"]


def test_one_tools_setting_is_one_arm_and_swept_caps_split_it():
    assert arm_labels([{"model": M, **TOOLS}, {"model": M, **TOOLS}]) == [M, M]
    fewer = {**TOOLS, "tool_calls_per_turn": 1}
    assert arm_labels([{"model": M, **TOOLS}, {"model": M, **fewer}]) == \
        [f"{M} tool_calls_per_turn=4", f"{M} tool_calls_per_turn=1"]


def test_a_card_reruns_exactly_the_jobs_of_one_tools_setting():
    from llm_eval.report.card import _spec_check, arm_spec
    from llm_eval.sweep.spec import Sweep

    sweep = Sweep.from_data({"models": [M], "worlds": ["hunters"], "families": ["mfp"],
                             "agent_tools": ["none", "notes", "notes+autumn"]})
    jobs = sweep.expand()
    for tools in ("none", "notes", "notes+autumn"):
        mine = [j for j in jobs if j.settings.get("agent_tools", "none") == tools]
        spec = arm_spec(sweep.canonical(), [j.settings for j in mine], "card")
        assert spec["agent_tools"] == [tools]
        assert _spec_check(spec, {j.id for j in mine})["exact"]
