"""The LLM agent under the autumnbench protocol and the tag action format (issue 16)."""

from __future__ import annotations

import pytest
from test_llm_agent import ScriptedAdapter

from llm_eval.adapters import GenerationConfig
from llm_eval.adapters.tools import read_tag_reply, tagged
from llm_eval.agents.llm import LLMAgent
from llm_eval.tasks.autumnbench_import import import_autumnbench
from llm_eval.tasks.store import load_task, load_tasks
from llm_eval.worldtest import run_episode
from llm_eval.worldtest.commands import world_forms
from llm_eval.worldtest.seeding import seeded

FIXTURE = "tests/fixtures/autumnbench"


def text_reply(text: str):
    return ("text", text)


def test_the_last_action_tag_wins_and_whitespace_is_stripped():
    reply = "<action>left</action> thinking... <action>\n click 1 2 \n</action>"
    assert tagged(reply)["action"] == "click 1 2"
    assert read_tag_reply(reply, world_forms(4)).action == "click 1 2"


def test_tags_with_attributes_or_unclosed_do_not_count():
    assert "action" not in tagged('<action kind="x">left</action> <action>right')


def test_under_worldtest_a_missing_tag_is_an_invalid_action_fed_back():
    task = load_task("warehouse", "planning")
    adapter = ScriptedAdapter([text_reply("no tag here"), text_reply("<action>go-to-test</action>")],
                              fallback=lambda r: text_reply("<action>quit</action>"))
    agent = LLMAgent("scripted/model", adapter=adapter,
                     config=GenerationConfig(tool_mode="tags"))
    result = run_episode(task, agent, interaction_steps=5)
    assert result.interaction.invalid_actions == 1
    second = adapter.requests[1]
    assert not second.tools
    assert "no action: put the action you choose inside <action>" in str(
        second.messages[-1].model_dump())
    assert result.test.counts == (("quit", 1),)


@pytest.fixture(scope="module")
def imported(tmp_path_factory):
    out = tmp_path_factory.mktemp("imported")
    import_autumnbench(FIXTURE, out)
    return {t.family: t for t in load_tasks(out)}


def test_under_autumnbench_the_turn_is_the_harness_text_and_a_missing_tag_is_noop(imported):
    task, _ = seeded(imported["planning"], 1, "autumnbench")
    replies = [text_reply("<action>go-to-test</action>"), text_reply("I am thinking"),
               text_reply("<action>left</action>"), text_reply("<action>left</action>"),
               text_reply("<scratchpad_add>block</scratchpad_add><action>click 4 2</action>")]
    adapter = ScriptedAdapter(replies)
    agent = LLMAgent("scripted/model", adapter=adapter, prompt_variant="autumnbench",
                     config=GenerationConfig(tool_mode="tags"))
    result = run_episode(task, agent, protocol="autumnbench")
    assert result.score == 1.0
    # the reply without a tag was sent to the phase as noop: a valid planning step (one tick)
    assert [r.action for r in result.records] == ["go-to-test", "noop", "left", "left",
                                                  "click 4 2"]
    first_test_turn = adapter.requests[1].messages[-1].model_dump()
    text = str(first_test_turn)
    assert "The initial grid is: " in text and '"highlight_mask"' in text
    assert "left,\\nright,\\nup,\\ndown,\\nclick [0-5] [0-5],\\nnoop,\\nquit,\\nquit" in text
    # no message about the unusable reply reaches the model (A5)
    assert "invalid" not in str(adapter.requests[2].messages[-1].model_dump()).lower()
    assert all(not r.tools for r in adapter.requests)


def test_ticks_per_action_shows_every_intermediate_frame():
    task = load_task("warehouse", "planning")
    adapter = ScriptedAdapter([text_reply("<action>noop</action>"),
                               text_reply("<action>go-to-test</action>")],
                              fallback=lambda r: text_reply("<action>quit</action>"))
    agent = LLMAgent("scripted/model", adapter=adapter,
                     config=GenerationConfig(tool_mode="tags"))
    result = run_episode(task, agent, interaction_steps=5, ticks_per_action=3)
    assert result.interaction.steps == 2
    second = str(adapter.requests[1].messages[-1].model_dump())
    assert "After tick 1 of 3 of your last action" in second
    assert "After tick 2 of 3" in second and "After tick 3 of 3:" in second
