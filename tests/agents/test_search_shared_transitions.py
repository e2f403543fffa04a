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
