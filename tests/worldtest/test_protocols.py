"""The protocol profiles: each owns its phases, cap, defaults and rules, and no code outside
``worldtest/protocols.py`` decides by comparing protocol names or by sniffing observations."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from llm_eval.agents import make_agent
from llm_eval.sweep import SpecError, Sweep
from llm_eval.tasks import load_task
from llm_eval.worldtest.autumnbench import (
    AutumnBenchCD,
    AutumnBenchInteraction,
    AutumnBenchMFP,
    AutumnBenchPlanning,
)
from llm_eval.worldtest.cd import CDPhase
from llm_eval.worldtest.interaction import InteractionPhase
from llm_eval.worldtest.mfp import MFPPhase
from llm_eval.worldtest.observation import EpisodeStart
from llm_eval.worldtest.planning import PlanningPhase
from llm_eval.worldtest.protocols import (
    AUTUMNBENCH,
    AUTUMNBENCH_STEP_CAP,
    PROTOCOLS,
    WORLDTEST,
    protocol,
)

REPO = Path(__file__).resolve().parents[2]
NAMES = set(PROTOCOLS)


@pytest.mark.parametrize("profile,interaction,tests", [
    (WORLDTEST, InteractionPhase, {"mfp": MFPPhase, "cd": CDPhase, "planning": PlanningPhase}),
    (AUTUMNBENCH, AutumnBenchInteraction,
     {"mfp": AutumnBenchMFP, "cd": AutumnBenchCD, "planning": AutumnBenchPlanning})])
def test_a_profile_builds_its_own_phases(profile, interaction, tests):
    for family, phase in tests.items():
        task = load_task("warehouse", family)
        built = profile.interaction_phase(task, budget=5, max_consecutive_invalid=3,
                                          ticks_per_action=None, autumnbench=None)
        assert type(built) is interaction
        test = profile.test_phase(task, background="black", programs_root=None,
                                  max_consecutive_invalid=3, cap=None, autumnbench=None)
        assert type(test) is phase


def test_the_profiles_say_what_differs():
    assert WORLDTEST.step_cap is None and AUTUMNBENCH.step_cap == AUTUMNBENCH_STEP_CAP == 501
    assert protocol("autumnbench") is AUTUMNBENCH and protocol("worldtest") is WORLDTEST
    with pytest.raises(ValueError, match="unknown protocol 'harness': expected one of "
                                         "worldtest, autumnbench"):
        protocol("harness")
    assert AUTUMNBENCH.refusal_of_tool_mode("tools") and not WORLDTEST.refusal_of_tool_mode(
        "tools")
    assert AUTUMNBENCH.refusal_of_agent_tool("autumn") and not AUTUMNBENCH.refusal_of_agent_tool(
        "notes")


def test_the_sweep_takes_its_defaults_and_rules_from_the_profile():
    spec = Sweep.from_data({"models": ["random"], "worlds": ["warehouse"],
                            "protocol": "autumnbench"})
    assert (spec.tool_mode, spec.prompts) == (AUTUMNBENCH.default_tool_mode,
                                              [AUTUMNBENCH.default_prompt])
    with pytest.raises(SpecError, match="tool_mode tools cannot play the autumnbench"):
        Sweep.from_data({"models": ["random"], "worlds": ["warehouse"],
                         "protocol": "autumnbench", "tool_mode": "tools"})
    with pytest.raises(SpecError, match="ticks_per_action is a worldtest setting"):
        Sweep.from_data({"models": ["random"], "worlds": ["warehouse"],
                         "protocol": "autumnbench", "ticks_per_action": 2})


def test_an_agent_plays_the_protocol_its_episode_start_names():
    """The simulator answers a harness MFP by the harness's action strings when its
    ``EpisodeStart`` says autumnbench, whatever the observation looks like."""
    task = load_task("warehouse", "mfp")
    agent = make_agent("simulator", task)
    agent.reset(EpisodeStart(interaction_steps=5, protocol="autumnbench"))
    assert agent._autumnbench
    agent.reset(EpisodeStart(interaction_steps=5, protocol="worldtest"))
    assert not agent._autumnbench


def decisions_by_name(path: Path) -> list[str]:
    """Comparisons of a value with a protocol's name (``== "autumnbench"``, ``in
    ("worldtest", ...)``) and observation sniffing (``.text is not None``) in one module."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        literals = {s.value for s in sides if isinstance(s, ast.Constant)}
        for side in sides:
            if isinstance(side, ast.Tuple | ast.List | ast.Set):
                literals |= {e.value for e in side.elts if isinstance(e, ast.Constant)}
        if literals & NAMES:
            found.append(f"{path.name}:{node.lineno}: compares with a protocol's name")
        if (isinstance(node.left, ast.Attribute) and node.left.attr == "text"
                and any(isinstance(op, ast.IsNot | ast.Is) for op in node.ops)
                and "agents" in path.parts):
            found.append(f"{path.name}:{node.lineno}: tells the protocol by the observation")
    return found


def test_no_module_decides_by_a_protocols_name():
    """Outside the profiles, the default written into job settings (``!= WORLDTEST.name``)
    goes through the profile too; the agents read ``EpisodeStart.protocol``."""
    modules = [p for top in ("llm_eval", "adapters") for p in sorted((REPO / top).rglob("*.py"))
               if p.name != "protocols.py" and "__pycache__" not in p.parts]
    assert [f for path in modules for f in decisions_by_name(path)] == []


def test_a_decision_by_name_or_by_sniffing_is_found(tmp_path):
    agents = tmp_path / "agents"
    agents.mkdir()
    planted = agents / "planted.py"
    planted.write_text("if protocol == 'autumnbench':\n    pass\n"
                       "if name not in ('worldtest', 'autumnbench'):\n    pass\n"
                       "harness = observation.text is not None\n"
                       "if profile.takes_autumnbench_settings:\n    pass\n")
    assert decisions_by_name(planted) == [
        "planted.py:1: compares with a protocol's name",
        "planted.py:3: compares with a protocol's name",
        "planted.py:5: tells the protocol by the observation"]


# "harness" names the published program's own artefacts (its texts and prompts, its raise
# inside a step, its JPEG pictures); the protocol that reproduces it is "autumnbench"
PROGRAM_ARTEFACT = re.compile(r"^_?(Harness(Texts|TextsError|Raise|PromptSet)|\w*harness_"
                              r"(texts?|prompts|picture|jpeg|rgb|score)\w*)$")


def protocol_called_harness(path: Path) -> list[str]:
    """Identifiers (classes, functions, parameters, names, attributes) that call the
    autumnbench protocol or its parts "harness"."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = []
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            names.append(node.name)
        elif isinstance(node, ast.arg):
            names.append(node.arg)
        elif isinstance(node, ast.Name):
            names.append(node.id)
        elif isinstance(node, ast.Attribute):
            names.append(node.attr)
        elif isinstance(node, ast.keyword) and node.arg:
            names.append(node.arg)
        for name in names:
            if "harness" in name.lower() and not PROGRAM_ARTEFACT.match(name):
                found.add(f"{path.name}:{node.lineno}: {name}")
    return sorted(found)


def test_the_published_protocol_has_one_name():
    modules = [p for top in ("llm_eval", "adapters") for p in sorted((REPO / top).rglob("*.py"))
               if "__pycache__" not in p.parts]
    assert [f for path in modules for f in protocol_called_harness(path)] == []


def test_a_protocol_called_harness_is_found(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text("class HarnessMFP:\n    pass\n"
                       "def play(task, harness=None):\n    return task._harness\n"
                       "texts = load_harness_texts(d)\n")
    assert protocol_called_harness(planted) == [
        "planted.py:1: HarnessMFP", "planted.py:3: harness", "planted.py:4: _harness"]
