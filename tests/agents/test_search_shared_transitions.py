"""The planner's stages share what each (state, action) pair gives (agents/search.py,
``_Transitions``): the same plans and the same counts as stages that simulate every pair
themselves, with fewer pairs simulated."""

from __future__ import annotations

import pytest

from llm_eval.agents import search
from llm_eval.tasks import all_tasks
from llm_eval.tasks.trajectory import make


def _plan(world_name: str):
    task = next(t for t in all_tasks([world_name]) if t.family == "planning")
    world = make(task.world, task.seed)
    before = world.state_key()
    result = search.search_plan(world, task.public.goal, task.public.mask, task.public.horizon)
    assert world.state_key() == before        # the world is back where it was
    return result


@pytest.fixture
def unshared(monkeypatch):
    """Stages that keep nothing for each other (every pair simulated by every stage)."""
    real = search._Transitions

    monkeypatch.setattr(search, "_Transitions", lambda shared: real(frozenset()))


@pytest.mark.parametrize("world", ["easel", "platformer"])
def test_shared_transitions_give_the_same_search(world, request):
    shared = _plan(world)
    request.getfixturevalue("unshared")
    alone = _plan(world)
    assert shared.found and shared.shared > 0 and alone.shared == 0
    assert (shared.plan, shared.stage, shared.expanded, shared.generated) == \
        (alone.plan, alone.stage, alone.expanded, alone.generated)


def test_a_wrong_shared_transition_changes_the_search(monkeypatch):
    """The stages do take children from the shared table (a poisoned entry is used)."""
    honest = _plan("easel")
    real = search._Transitions

    class Poisoned(real):
        __slots__ = ()

        def __init__(self, shared):
            super().__init__(shared)
            self.known = _Liar()

    class _Liar(dict):
        def __setitem__(self, pair, child):   # every kept child claims to be the goal
            key, h, atoms = child
            super().__setitem__(pair, (key, 0, atoms))

    monkeypatch.setattr(search, "_Transitions", Poisoned)
    poisoned = _plan("easel")
    assert poisoned.plan != honest.plan and len(poisoned.plan) < len(honest.plan)


# -- clicks that no `clicked` query catches (Interpreter.end_click_probe) --------------------
def _limited(world_name: str, expansions: int):
    task = next(t for t in all_tasks([world_name]) if t.family == "planning")
    world = make(task.world, task.seed)
    result = search.search_plan(world, task.public.goal, task.public.mask, task.public.horizon,
                                search.SearchLimits(max_expanded=expansions))
    return result.plan, result.stage, result.expanded, result.generated, result.shared


@pytest.mark.parametrize("world,expansions", [("relay", 400), ("mirrors", 300), ("keys", 300)])
def test_clicks_known_from_the_noop_give_the_same_search(world, expansions, monkeypatch):
    """Children of clicks taken from the noop's probe instead of ticking: the same plan and
    the same counts as a search that ticks every click."""
    from llm_eval.autumn import Interpreter

    probed = _limited(world, expansions)
    calls = []
    real = Interpreter.end_click_probe

    def counted(self):
        calls.append(real(self))
        return None                  # every click ticks

    monkeypatch.setattr(Interpreter, "end_click_probe", counted)
    assert _limited(world, expansions) == probed
    assert any(c is not None for c in calls)      # the probe did know clicks to skip


def test_a_wrong_probe_changes_the_search(monkeypatch):
    """The search does take clicks' children from the probe: one that claims no cell
    catches a click gives another search."""
    from llm_eval.autumn import Interpreter

    honest = _limited("relay", 400)
    monkeypatch.setattr(Interpreter, "end_click_probe", lambda self: frozenset())
    assert _limited("relay", 400) != honest
