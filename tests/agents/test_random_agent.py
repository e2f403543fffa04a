"""The random agent: uniform over the valid forms, arguments in range, seeded."""

from __future__ import annotations

from collections import Counter

from llm_eval.agents import RandomAgent, make_agent
from llm_eval.autumn import Frame
from llm_eval.worldtest import ActionForm, Observation, Param, parse_command, world_forms
from llm_eval.worldtest.observation import EpisodeStart

FRAME = Frame((("black",) * 7,) * 7, "black")


def observation(phase: str, forms) -> Observation:
    return Observation(phase=phase, family="mfp", step=0, budget_left=10, frame=FRAME,
                       actions=tuple(forms))


def test_actions_are_always_valid_and_uniform_over_forms():
    forms = (*world_forms(7), ActionForm("reset"), ActionForm("go-to-test"))
    obs = observation("interaction", forms)
    agent = RandomAgent(seed=4)
    actions = [agent.act(obs) for _ in range(4000)]
    for text in actions:
        parse_command(text, forms)                  # raises if invalid
    kinds = Counter(a.split()[0] for a in actions)
    assert set(kinds) == {f.kind for f in forms}
    assert all(400 < n < 600 for n in kinds.values())
    cells = Counter(tuple(a.split()[1:]) for a in actions if a.startswith("click"))
    assert len(cells) > 40                          # clicks spread over the 49 cells


def test_arguments_cover_their_range():
    forms = (ActionForm("watch", (Param("T", 0, 3),)), ActionForm("choose", (Param("K", 0, 5),)))
    agent = RandomAgent(seed=1)
    seen = {agent.act(observation("mfp", forms)) for _ in range(500)}
    assert seen == {f"watch {t}" for t in range(4)} | {f"choose {k}" for k in range(6)}


def test_never_quits_a_planning_test():
    forms = (*world_forms(7), ActionForm("quit"))
    agent = RandomAgent(seed=2)
    assert all(agent.act(observation("planning", forms)) != "quit" for _ in range(500))


def test_same_seed_same_actions_and_reset_restarts():
    forms = world_forms(7)
    obs = observation("interaction", forms)
    a, b = RandomAgent(seed=9), RandomAgent(seed=9)
    first = [a.act(obs) for _ in range(30)]
    assert first == [b.act(obs) for _ in range(30)]
    a.reset(EpisodeStart(interaction_steps=30))
    assert [a.act(obs) for _ in range(30)] == first
    assert first != [RandomAgent(seed=10).act(obs) for _ in range(30)]


def test_make_agent_by_name():
    assert isinstance(make_agent("random", None, seed=3), RandomAgent)
    import pytest
    with pytest.raises(ValueError, match="unknown agent 'human'"):
        make_agent("human", None)
