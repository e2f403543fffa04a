"""The LLM agent without HTTP: prompt variants and their validation, the request built for each
phase, the history window, and unusable replies turned into counted invalid actions that the
model is told about. A scripted in-process adapter stands in for the provider."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tiers import per_task

from llm_eval.adapters import GenerationConfig, Response, ToolCall
from llm_eval.adapters.base import Adapter
from llm_eval.agents import make_agent
from llm_eval.agents.llm import LLMAgent, parse_rendering
from llm_eval.agents.prompts import (
    PLACEHOLDERS,
    TEMPLATES,
    PromptError,
    load_prompts,
    prompt_variants,
)
from llm_eval.errors import LlmEvalError
from llm_eval.render import RenderError
from llm_eval.tasks.store import all_tasks, load_task
from llm_eval.worldtest import run_episode

PARAMS = {"click": ["x", "y"], "watch": ["t"], "submit": ["t"], "choose": ["k"]}


class ScriptedAdapter(Adapter):
    """Answers from a list of replies: an action text (as a tool call), ``("text", s)``, or
    ``("calls", [(name, args), ...])``; after the script, ``fallback(request)`` answers."""

    provider = "scripted"

    def __init__(self, replies=(), fallback=None) -> None:
        super().__init__("scripted-model")
        self.replies = list(replies)
        self.fallback = fallback
        self.requests = []

    async def complete(self, request):
        self.requests.append(request)
        reply = self.replies.pop(0) if self.replies else self.fallback(request)
        n = len(self.requests)
        if isinstance(reply, str):
            kind, *args = reply.split()
            names = PARAMS.get(kind, [])     # a tool not offered now may still be called
            reply = ("calls", [(kind.replace("-", "_"), dict(zip(names, map(int, args))))])
        if reply[0] == "text":
            return Response(provider=self.provider, model_requested=self.model,
                            model=self.model, text=reply[1], stop_reason="end_turn")
        calls = tuple(ToolCall(id=f"call_{n}_{i}", name=name,
                               arguments=args if isinstance(args, dict) else None,
                               raw_arguments=json.dumps(args) if isinstance(args, dict)
                               else str(args))
                      for i, (name, args) in enumerate(reply[1]))
        return Response(provider=self.provider, model_requested=self.model, model=self.model,
                        tool_calls=calls, stop_reason="tool_call")


def first_tool(request) -> str:
    """A fallback that always takes the first valid action form with its lowest arguments."""
    tool = request.tools[0]
    args = {name: schema.get("minimum", 0)
            for name, schema in tool.parameters["properties"].items()}
    return ("calls", [(tool.name, args)])


def quick_end(request):
    """A fallback that ends a test phase soon: choose, submit, declare or quit when offered,
    else noop."""
    names = [t.name for t in request.tools]
    for name, args in (("choose", {"k": 0}), ("submit", {"t": 0}), ("declare", {}),
                       ("quit", {}), ("go_to_test", {}), ("noop", {})):
        if name in names:
            return ("calls", [(name, args)])
    return first_tool(request)


def agent(replies=(), fallback=first_tool, **options) -> LLMAgent:
    return LLMAgent("scripted/model", adapter=ScriptedAdapter(replies, fallback), **options)


def request_text(request) -> str:
    """A request (or one message) as JSON text, for searching."""
    if hasattr(request, "canonical"):
        return json.dumps(request.canonical())
    return json.dumps(request.model_dump(mode="json"))


# --- prompts ---------------------------------------------------------------------------------

def test_shipped_variants_load_and_differ():
    assert {"default", "reflective"} <= set(prompt_variants())
    default, reflective = load_prompts("default"), load_prompts("reflective")
    assert set(default.texts) == set(TEMPLATES) | {"tools"}   # tools.md: optional
    assert "Hypotheses" in reflective.texts["system"]
    assert "Hypotheses" not in default.texts["system"]
    assert default.digest != reflective.digest


def _variant(tmp_path: Path, **override: str) -> Path:
    root = tmp_path / "prompts"
    (root / "mine").mkdir(parents=True)
    for name in TEMPLATES:
        text = override.get(name, " ".join("{" + p + "}" for p in sorted(PLACEHOLDERS[name])))
        if text is not None:
            (root / "mine" / f"{name}.md").write_text(text)
    return root


def test_a_missing_template_names_the_file(tmp_path):
    root = _variant(tmp_path)
    (root / "mine" / "cd.md").unlink()
    with pytest.raises(PromptError, match=r"mine/cd\.md: missing template"):
        load_prompts("mine", root=root)


def test_an_unknown_placeholder_names_the_file_and_the_known_ones(tmp_path):
    root = _variant(tmp_path, planning="Reach {goal} in {horizon} using {answer}")
    with pytest.raises(PromptError, match=r"mine/planning\.md: unknown placeholder\(s\) "
                                          r"\{answer\}; known in planning\.md: actions"):
        load_prompts("mine", root=root)


@pytest.mark.parametrize("text", ["a { b", "{budget!r}", "{budget:>4}", "{0}", "{}"])
def test_malformed_templates_are_refused(tmp_path, text):
    root = _variant(tmp_path, interaction=text)
    with pytest.raises(PromptError, match=r"mine/interaction\.md"):
        load_prompts("mine", root=root)


def test_an_unknown_variant_gets_a_did_you_mean():
    with pytest.raises(PromptError, match="did you mean 'reflective'"):
        load_prompts("reflectiv")


def test_literal_braces_and_model_text_with_braces_are_safe(tmp_path):
    root = _variant(tmp_path, turn="{{not a field}} {header} {frame}")
    prompts = load_prompts("mine", root=root)
    assert prompts.render("turn", header="{budget}", frame="x") == "{not a field} {budget} x"


def test_renderings_are_checked_by_name():
    assert parse_rendering("compact+png") == ("compact", "png")
    assert parse_rendering("diff,json") == ("diff", "json")
    with pytest.raises(RenderError, match="did you mean 'compact'"):
        parse_rendering("compakt")


# --- the request of each phase -----------------------------------------------------------------

def _episode(world, family, replies, **options):
    task = load_task(world, family)
    a = agent(replies, **options)
    result = run_episode(task, a)
    return a, result


def test_interaction_request_has_the_forms_as_tools_and_never_the_family():
    a, _ = _episode("warehouse", "mfp", ["left", "click 2 3", "go-to-test", "choose 0"])
    first = a.adapter.requests[0]
    names = [t.name for t in first.tools]
    assert names == ["click", "left", "right", "up", "down", "noop", "reset", "go_to_test"]
    assert first.tools[0].parameters["properties"]["x"]["maximum"] == 6
    text = request_text(first)
    assert "Interaction phase" in text and "legend:" in text
    for request in a.adapter.requests[:3]:   # the interaction phase's requests
        lowered = request_text(request).lower()
        for word in ("masked-frame", "mfp", "change detection", "planning", "goal", "option"):
            assert word not in lowered, word
    mfp = request_text(a.adapter.requests[3])
    assert "masked-frame prediction" in mfp and "option 5:" in mfp and "step 0: action" in mfp
    assert [t.name for t in a.adapter.requests[3].tools] == ["watch", "choose"]
    assert "Cells shown as `transparent` are hidden: (3,0)" in mfp     # the final frame's mask
    assert "transparent" in mfp.split("watching frame 30")[1]        # ... and in its rendering


def test_the_prompt_variant_is_what_is_sent():
    a, _ = _episode("warehouse", "planning", ["go-to-test", "quit"], prompt_variant="reflective")
    system = a.adapter.requests[0].messages[0]
    assert system.role == "system" and "Hypotheses:" in system.parts[0].text
    assert "7 x 7" in system.parts[0].text


def test_a_windowed_diff_history_opens_with_a_full_frame():
    a, _ = _episode("warehouse", "planning", ["left", "right", "up", "go-to-test", "quit"],
                    rendering="diff", history=1)
    third = a.adapter.requests[2]
    opening = third.messages[1].parts[0].text
    assert opening.startswith("[1 earlier turns not shown") and "legend:" in opening
    assert "Changes since the last frame" in request_text(third.messages[-1])


def test_cd_and_planning_requests_describe_their_rules():
    a, _ = _episode("warehouse", "cd", ["go-to-test", "down", "right", "right", "declare",
                                        "watch 1", "submit 2"])
    start = request_text(a.adapter.requests[1])
    assert "change detection" in start.lower() and "-1" in start and "submit T" in start
    assert "`declare` is allowed after 3 steps" in start
    assert "declare" in [t.name for t in a.adapter.requests[4].tools]
    assert "Browsing run 1" in request_text(a.adapter.requests[5])

    a, _ = _episode("warehouse", "planning", ["go-to-test", "quit"], rendering="diff+png")
    plan = a.adapter.requests[1]
    text = request_text(plan)
    assert "Test: planning" in text and "cells that matter" in text
    images = [p for m in plan.messages for p in m.parts if p.type == "image"]
    assert len(images) == 2          # the goal with its cells ringed, and the frame


def test_the_first_frame_of_a_phase_is_full_then_diffs():
    a, _ = _episode("warehouse", "planning", ["left", "noop", "go-to-test", "quit"],
                    rendering="diff")
    assert "legend:" in request_text(a.adapter.requests[0])
    last_user = a.adapter.requests[1].messages[-1]
    assert "Changes since the last frame" in json.dumps(last_user.model_dump(mode="json"))


def _hidden_needles(value) -> set[str]:
    """Every distinctive text of a task's hidden half: strings, and action lists joined."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if key != "program":        # a file name, not content
                found |= _hidden_needles(item)
    elif isinstance(value, list):
        if len(value) > 3 and all(isinstance(v, str) for v in value):
            found |= {", ".join(value), " ".join(value)}
        for item in value:
            found |= _hidden_needles(item)
    elif isinstance(value, str) and len(value) >= 8:
        found.add(value)
    return found


@pytest.mark.parametrize("task", per_task(all_tasks()))
def test_no_request_of_any_shipped_task_holds_hidden_text(task):
    """Every request of a whole episode on each shipped task, searched for the hidden half."""
    a = agent(fallback=quick_end, rendering="compact+json")
    script = ["left", "click 1 1", "reset", "go-to-test"]
    a.adapter.replies = list(script)
    run_episode(task, a, interaction_steps=10)
    needles = _hidden_needles(task.hidden.model_dump(mode="json"))
    assert needles, task.id
    for request in a.adapter.requests:
        text = request_text(request)
        for needle in needles:
            assert needle not in text, (task.id, needle[:60])
        if request.metadata["phase"] == "interaction":
            # the episode's cache key is a digest: hex digits may spell "cd" by chance
            meta = dict(request.metadata)
            assert re.fullmatch(r"llm-eval-[0-9a-f]{16}", meta.pop("cache_key"))
            assert task.family not in json.dumps(meta)
            for word in ("masked-frame", "change detection", "Test:"):
                assert word not in text, (task.id, word)


# --- history ---------------------------------------------------------------------------------

def test_a_history_window_keeps_k_turns_with_a_summary_and_the_instructions():
    replies = ["left", "right", "up", "down", "noop", "left", "go-to-test", "quit"]
    a, _ = _episode("warehouse", "planning", replies, history=2)
    requests = a.adapter.requests
    assert [len(r.messages) for r in requests] == [2, 4, 6, 6, 6, 6, 6, 6]
    fifth = requests[4]
    opening = fifth.messages[1].parts[0].text
    assert opening.startswith("[2 earlier turns not shown; your actions in them, oldest "
                              "first: left, right; 0 invalid]")
    assert "# Interaction phase" in opening      # the instructions' turn was dropped
    assert fifth.messages[1].parts[0].type == "text"   # no answer to a call it cannot see
    full, _ = _episode("warehouse", "planning", replies)
    assert [len(r.messages) for r in full.adapter.requests] == [2 + 2 * i for i in range(8)]


def test_history_must_be_full_or_positive():
    for bad in (0, -1, "some", True):
        with pytest.raises(ValueError, match="history"):
            agent(history=bad)


# --- invalid replies -----------------------------------------------------------------------------

@pytest.mark.parametrize("reply, message", [
    (("text", "I think I will move left."), "no action: call exactly one of the tools"),
    (("calls", [("left", {}), ("right", {})]), None),     # two calls: the first is taken
    (("calls", [("click", {"x": 99, "y": 0})]), "click: x=99 is outside 0..6"),
    (("calls", [("click", "{x: 1")]), "the arguments are not a JSON object"),
    (("calls", [("fly", {})]), "unknown tool 'fly'"),
])
def test_unusable_replies_are_counted_and_reported_to_the_model(reply, message):
    a, result = _episode("warehouse", "planning", [reply, "go-to-test", "quit"])
    first = result.records[0]
    if message is None:
        assert first.valid and first.action == "left"
        answers = a.adapter.requests[1].messages[-1].parts
        assert [p.type for p in answers][:2] == ["tool_result", "tool_result"]
        assert answers[1].is_error and "only one action" in answers[1].text
        return
    assert not first.valid and first.action.startswith("<invalid reply: ")
    assert result.interaction.invalid_actions == 1
    assert a.calls[0]["invalid_reply"] and message in a.calls[0]["invalid_reply"]
    told = json.dumps(a.adapter.requests[1].messages[-1].model_dump(mode="json"))
    assert "invalid action: " in told and message in told
    assert "must be text" not in told       # the phase's message about the marker is not shown


def test_text_mode_parses_the_action_line_and_reports_garbage():
    replies = [("text", "hmm\nACTION: left"), ("text", "ACTION: jump"),
               ("text", "ACTION: go-to-test"), ("text", "ACTION: quit")]
    a, result = _episode("warehouse", "planning", replies, tool_mode="text")
    assert [r.action for r in result.records][0] == "left"
    assert not result.records[1].valid
    assert [r.valid for r in result.records] == [True, False, True, True]
    assert all(not r.tools for r in a.adapter.requests)
    told = a.adapter.requests[2].messages[-1].parts[0].text
    assert told.startswith("invalid action: unknown action 'jump'")
    assert "ACTION: <action>" in told


def test_a_tool_not_offered_now_is_an_invalid_action_the_model_is_told_about():
    a, result = _episode("warehouse", "cd", ["go-to-test", "declare", "noop", "down", "right",
                                             "declare", "submit 1"])
    # declare is offered as a tool only once allowed; a model that calls it before is told
    assert [r.valid for r in result.records] == [True, False, True, True, True, True, True]
    told = json.dumps(a.adapter.requests[2].messages[-1].model_dump(mode="json"))
    assert "unknown tool 'declare'" in told and "valid now:" in told
    assert result.test.invalid_actions == 1


def test_infrastructure_and_fatal_errors_propagate():
    from llm_eval.adapters import Transient
    from llm_eval.calls import CallPolicy, InfrastructureError

    def down(request):
        raise Transient("fake outage", provider="scripted")

    a = agent(fallback=down, policy=CallPolicy(max_attempts=2, backoff_initial=0.0,
                                               backoff_max=0.0))
    with pytest.raises(InfrastructureError, match="gave up after 2 attempts"):
        run_episode(load_task("warehouse", "planning"), a)


def test_make_agent_builds_an_llm_agent_and_refuses_unknown_names():
    task = load_task("warehouse", "mfp")
    with pytest.raises(LlmEvalError, match="did you mean 'oracle'"):
        make_agent("orcale", task)
    with pytest.raises(LlmEvalError, match="did you mean 'openai'"):
        make_agent("opnai/gpt-5", task)
    a = make_agent("openai/gpt-5", task, adapter=ScriptedAdapter(["go-to-test", "choose 1"]),
                   rendering="json", config=GenerationConfig(max_output_tokens=64))
    assert isinstance(a, LLMAgent) and a.config.max_output_tokens == 64
    assert run_episode(task, a).test.steps == 1


def test_a_non_editable_build_ships_the_prompt_variants(tmp_path):
    """prompts/ is package data: a build without the source tree still loads every variant."""
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    build = subprocess.run(
        [sys.executable, "-c", "from setuptools import setup; setup()", "-q", "build_py",
         "--build-lib", str(tmp_path / "lib")], cwd=repo, capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    probe = subprocess.run(
        [sys.executable, "-c", "from llm_eval.agents.prompts import prompt_variants, "
         "load_prompts; print(*[load_prompts(v).variant for v in prompt_variants()])"],
        cwd=tmp_path, env={"PYTHONPATH": str(tmp_path / "lib")}, capture_output=True,
        text=True)
    assert probe.returncode == 0, probe.stderr
    assert set(probe.stdout.split()) >= {"default", "reflective"}


def test_a_call_interrupted_by_ctrl_c_is_cancelled_before_the_adapter_closes():
    """Ctrl-C in the middle of a call (the main thread, as ``llm-eval episode``): closing the
    agent cancels the call first, so it cannot complete (and be paid for) on the closing
    client."""
    import asyncio
    import signal

    from llm_eval.adapters.standin import StandInAdapter

    order: list[str] = []

    class Slow(StandInAdapter):
        async def complete(self, request):
            signal.setitimer(signal.ITIMER_REAL, 0.2)   # Ctrl-C while the call waits
            try:
                await asyncio.sleep(30)
            except asyncio.CancelledError:
                order.append("call cancelled")
                raise
            order.append("call finished")
            return await super().complete(request)

        async def aclose(self):
            order.append("adapter closed")

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    agent = LLMAgent("anthropic/claude-sonnet-4-5", adapter=Slow("anthropic/claude-sonnet-4-5"))
    previous = signal.signal(signal.SIGALRM, interrupt)
    try:
        with pytest.raises(KeyboardInterrupt):
            run_episode(load_task("sparks", "planning"), agent, interaction_steps=3)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        agent.close()
    assert order == ["call cancelled", "adapter closed"]
