"""The harness agent's scratchpad under ``--protocol autumnbench`` (rules A4, A6; issue 36)."""

from __future__ import annotations

import autumnbench_fixture as F
import pytest

from llm_eval.adapters import GenerationConfig, Response
from llm_eval.adapters.base import Adapter
from llm_eval.agents.llm import LLMAgent
from llm_eval.replay import replay_transcript
from llm_eval.sweep.job import execute_job
from llm_eval.sweep.spec import Sweep
from llm_eval.tasks.store import load_tasks
from llm_eval.worldtest import run_episode
from llm_eval.worldtest.autumnbench.scratchpad import message_text, update
from llm_eval.worldtest.seeding import seeded

MODEL = "openai-chat/gpt-4.1-mini"
INTRO = message_text("").rstrip("\n")


class Texts(Adapter):
    """A stand-in model answering each request with the next text of a list."""

    provider = "openai-chat"

    def __init__(self, texts) -> None:
        super().__init__("gpt-4.1-mini")
        self.texts = list(texts)
        self.requests = []

    async def complete(self, request):
        self.requests.append(request)
        return Response(provider=self.provider, model_requested=self.model, model=self.model,
                        text=self.texts.pop(0), stop_reason="end_turn")


@pytest.fixture(scope="module")
def task_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("autumnbench-scratchpad")
    F.import_tasks(out)
    return out


@pytest.fixture(scope="module")
def planning(task_dir):
    (task,) = [t for t in load_tasks(task_dir) if t.family == "planning"]
    return seeded(task, 1, "autumnbench")[0]


# -- A6: the tags, as the harness applies them ---------------------------------------------------
def test_an_addition_is_appended_with_no_separator():
    assert update("", "<scratchpad_add>ab</scratchpad_add>") == "ab"
    assert update("ab", "x <scratchpad_add> cd \n</scratchpad_add>") == "abcd"


def test_a_deletion_removes_every_occurrence_after_the_addition():
    assert update("a-b-a-", "<scratchpad_del>a-</scratchpad_del>") == "b-"
    # the reply's addition goes in first, then the deletion removes it too
    assert update("xy", "<scratchpad_del>y</scratchpad_del><scratchpad_add>zy</scratchpad_add>") \
        == "xz"


def test_the_last_tag_counts_empty_ones_do_nothing_nested_ones_are_not_seen():
    assert update("", "<scratchpad_add>a</scratchpad_add><scratchpad_add>b</scratchpad_add>") \
        == "b"
    assert update("keep", "<scratchpad_add> </scratchpad_add><scratchpad_del></scratchpad_del>") \
        == "keep"
    # the harness's tag reading: a tag inside another matched tag is consumed with it
    assert update("", "<think><scratchpad_add>a</scratchpad_add></think>") == ""
    assert update("", '<scratchpad_add x="1">a</scratchpad_add>') == ""


# -- A4: shown only with a cut history, in the harness's place -----------------------------------
REPLIES = ["<scratchpad_add>walls at x=0;</scratchpad_add><action>noop</action>",
           "<scratchpad_add> left moves;</scratchpad_add><action>go-to-test</action>",
           "<scratchpad_del>walls at x=0;</scratchpad_del><action>left</action>",
           "<action>left</action>", "<action>click 4 2</action>"]


def play(planning, history, replies=REPLIES, **options):
    adapter = Texts(replies)
    agent = LLMAgent(MODEL, adapter=adapter, prompt_variant="autumnbench", history=history,
                     config=GenerationConfig(tool_mode="tags"), **options)
    result = run_episode(planning, agent, protocol="autumnbench", interaction_steps=3)
    return result, adapter.requests, agent


def test_with_history_k_the_scratchpad_is_a_user_message_after_the_system_prompt(planning):
    result, requests, _ = play(planning, 2)
    assert result.score == 1.0
    shown = [r.messages[1].parts[0].text for r in requests]
    assert all(r.messages[1].role == "user" for r in requests)
    assert shown == [message_text(s) for s in
                     ["", "walls at x=0;", "walls at x=0;left moves;", "left moves;",
                      "left moves;"]]
    # then the last 2 (user, assistant) pairs and the current turn, with no summary line
    assert [len(r.messages) for r in requests] == [3, 5, 7, 7, 7]
    assert all("earlier turns not shown" not in str(r.model_dump()) for r in requests)
    assert requests[4].messages[2].parts[0].text == requests[2].messages[-1].parts[0].text


def test_at_full_history_it_is_kept_and_never_shown(planning):
    result, requests, agent = play(planning, "full")
    assert result.score == 1.0
    assert [len(r.messages) for r in requests] == [2, 4, 6, 8, 10]
    assert all(INTRO not in str(r.model_dump()) for r in requests)
    assert agent._scratchpad().text == "left moves;"   # kept, as the harness keeps it


def test_at_full_history_the_requests_are_those_sent_before_the_scratchpad(planning,
                                                                          monkeypatch):
    # what an episode sends at the default history does not depend on the scratchpad, so the
    # requests (and the transcripts recorded before it) are unchanged
    _, kept, _ = play(planning, "full")
    monkeypatch.setattr(LLMAgent, "_keep_scratchpad", lambda self, reply, used: None)
    _, without, _ = play(planning, "full")
    assert [r.canonical_hash() for r in kept] == [r.canonical_hash() for r in without]


def test_other_protocols_read_no_scratchpad_tags():
    from llm_eval.tasks.store import load_task

    adapter = Texts(["<scratchpad_add>x</scratchpad_add><action>go-to-test</action>",
                     "<action>quit</action>"])
    agent = LLMAgent(MODEL, adapter=adapter, history=1,
                     config=GenerationConfig(tool_mode="tags"))
    run_episode(load_task("warehouse", "planning"), agent, interaction_steps=3)
    assert agent._scratchpad().text == ""
    assert INTRO not in str(adapter.requests[1].model_dump())


def test_the_notes_tool_and_the_tags_share_one_text(planning):
    replies = ["<notes_write>rule: </notes_write>",   # only a tool call: asked again
               "<scratchpad_add>gravity</scratchpad_add><action>go-to-test</action>",
               "<notes_read/>", "<action>left</action>", "<action>left</action>",
               "<action>click 4 2</action>"]
    result, requests, agent = play(planning, 1, replies, agent_tools="notes")
    assert result.score == 1.0
    assert agent.toolbox.notes.text == "rule: gravity"
    assert requests[2].messages[1].parts[0].text == message_text("rule: gravity")
    assert "Result of notes_read:\\nrule: gravity" in str(requests[3].model_dump())


# -- the transcript: replay reproduces the scratchpad from the recorded replies ----------------
@pytest.mark.parametrize("tools", [[], ["notes"]])
def test_a_scripted_episode_with_tags_replays_exactly(task_dir, tmp_path, tools):
    fields = {"agent_tools": ["notes"]} if tools else {}
    spec = Sweep.from_data({"models": [MODEL], "tasks": [str(task_dir)],
                            "families": ["planning"], "protocol": "autumnbench",
                            "budgets": {"interaction_steps": [3], "history": [1]}} | fields,
                           "test")
    (job,) = spec.expand()
    replies = ["<notes_write>a</notes_write>"] if tools else []
    replies += ["<scratchpad_add>b</scratchpad_add><action>noop</action>",
                "<scratchpad_add>cb</scratchpad_add><action>go-to-test</action>",
                "<scratchpad_del>b</scratchpad_del><action>left</action>",
                "<action>left</action>", "<action>click 4 2</action>"]
    adapter = Texts(replies)
    path = tmp_path / "job.jsonl"
    outcome = execute_job(job, spec, path, adapter=adapter)
    assert outcome.status == "done" and outcome.raw_reward == 1.0, outcome.error
    pad = "a" if tools else ""
    assert adapter.requests[-1].messages[1].parts[0].text == message_text(pad + "c")
    assert replay_transcript(path).status == "reproduced"
