"""The action space of a world: which actions are valid on an N x N grid, and sampling.

``validate`` turns an agent's action (an ``Action`` or its text) into an ``Action`` or raises
``ActionSyntaxError`` with a message meant for the agent: the parse error of
``llm_eval.actions``, or a click off the grid. ``sample`` draws uniformly over the six kinds
(a click lands on a uniform cell), which is the random agent's distribution.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..actions import ACTION_KINDS, Action, parse_action
from ..errors import ActionSyntaxError

__all__ = ["ActionSpace"]


@dataclass(frozen=True, slots=True)
class ActionSpace:
    """``click x y`` with 0 <= x, y < size, the four arrows, and ``noop``."""

    size: int

    def validate(self, action: Action | str) -> Action:
        """The action if it is valid here; raises ActionSyntaxError (an agent mistake)."""
        if isinstance(action, str):
            action = parse_action(action)
        elif not isinstance(action, Action):
            raise ActionSyntaxError(f"an action must be text or an Action, got "
                                    f"{type(action).__name__}", text=repr(action))
        if action.kind == "click":
            last = self.size - 1
            x, y = action.point
            if not (0 <= x <= last and 0 <= y <= last):
                raise ActionSyntaxError(
                    f"{action} is outside the {self.size}x{self.size} grid: x and y must be "
                    f"between 0 and {last}", text=str(action))
        return action

    def contains(self, action: Action | str) -> bool:
        try:
            self.validate(action)
        except ActionSyntaxError:
            return False
        return True

    def sample(self, rng: random.Random) -> Action:
        """One action, uniform over the six kinds; a click lands on a uniform cell."""
        kind = rng.choice(ACTION_KINDS)
        if kind == "click":
            return Action.click(rng.randrange(self.size), rng.randrange(self.size))
        return Action(kind)

    def describe(self) -> str:
        last = self.size - 1
        return f"click X Y (0 <= X, Y <= {last}), left, right, up, down, noop"
