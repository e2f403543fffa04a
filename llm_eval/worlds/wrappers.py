"""Budgets as wrappers that set ``truncated`` (Gymnasium's ``TimeLimit`` idea).

- ``StepLimit(world, n)``: at most n actions per episode; the count restarts at every reset.
- ``ActionBudget(world, n)``: at most n actions in total, across resets (the interaction
  phase's budget, docs/spec/worldtest.md 1); resets can be made to count too.

Both count invalid actions by default (an agent that only sends bad actions must still run out)
and put ``budget_left`` in ``info``. The step that uses the last action returns
``truncated=True``; stepping an exhausted budget raises ``WorldStateError`` (a caller bug: it
should have stopped at ``truncated``).
"""

from __future__ import annotations

from typing import Any

from ..actions import Action
from ..autumn import Frame
from .errors import WorldStateError
from .world import World

__all__ = ["Wrapper", "StepLimit", "ActionBudget"]


class Wrapper:
    """Forwards everything to the wrapped world; subclasses override what they change."""

    def __init__(self, world: World | Wrapper) -> None:
        self.world = world

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Frame, dict[str, Any]]:
        return self.world.reset(seed=seed, options=options)

    def step(self, action: Action | str) -> tuple[Frame, float, bool, bool, dict[str, Any]]:
        return self.world.step(action)

    def render(self) -> str | bytes | None:
        return self.world.render()

    def close(self) -> None:
        self.world.close()

    @property
    def unwrapped(self) -> World:
        world = self.world
        while isinstance(world, Wrapper):
            world = world.world
        return world

    def __getattr__(self, name: str) -> Any:
        if name == "world":  # not set yet (e.g. during unpickling): avoid endless recursion
            raise AttributeError(name)
        return getattr(self.world, name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.world!r})"


def _check_limit(limit: int, what: str) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"{what} must be a positive integer, got {limit!r}")
    return limit


class StepLimit(Wrapper):
    """At most ``max_steps`` actions per episode (the count restarts at each reset)."""

    def __init__(self, world: World | Wrapper, max_steps: int, *,
                 count_invalid: bool = True) -> None:
        super().__init__(world)
        self.max_steps = _check_limit(max_steps, "max_steps")
        self.count_invalid = count_invalid
        self.used = 0

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Frame, dict[str, Any]]:
        frame, info = self.world.reset(seed=seed, options=options)
        self.used = 0
        info["budget_left"] = self.max_steps
        return frame, info

    def step(self, action: Action | str) -> tuple[Frame, float, bool, bool, dict[str, Any]]:
        if self.used >= self.max_steps:
            raise WorldStateError(f"the episode's {self.max_steps} steps are used up; "
                                  "reset the world")
        frame, reward, terminated, truncated, info = self.world.step(action)
        if self.count_invalid or "invalid_action" not in info:
            self.used += 1
        info["budget_left"] = self.max_steps - self.used
        return frame, reward, terminated, truncated or self.used >= self.max_steps, info


class ActionBudget(Wrapper):
    """At most ``max_actions`` actions in total, across resets; with ``count_resets`` every
    reset after the first also spends one."""

    def __init__(self, world: World | Wrapper, max_actions: int, *,
                 count_invalid: bool = True, count_resets: bool = False) -> None:
        super().__init__(world)
        self.max_actions = _check_limit(max_actions, "max_actions")
        self.count_invalid = count_invalid
        self.count_resets = count_resets
        self.used = 0
        self._reset_once = False

    @property
    def exhausted(self) -> bool:
        return self.used >= self.max_actions

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[Frame, dict[str, Any]]:
        if self._reset_once and self.count_resets:
            if self.exhausted:
                raise WorldStateError(f"the budget of {self.max_actions} actions is used up")
            self.used += 1
        self._reset_once = True
        frame, info = self.world.reset(seed=seed, options=options)
        info["budget_left"] = self.max_actions - self.used
        return frame, info

    def step(self, action: Action | str) -> tuple[Frame, float, bool, bool, dict[str, Any]]:
        if self.exhausted:
            raise WorldStateError(f"the budget of {self.max_actions} actions is used up")
        frame, reward, terminated, truncated, info = self.world.step(action)
        if self.count_invalid or "invalid_action" not in info:
            self.used += 1
        info["budget_left"] = self.max_actions - self.used
        return frame, reward, terminated, truncated or self.exhausted, info
