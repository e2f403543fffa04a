"""What every WorldTest phase shares: the Gymnasium-style loop, budgets, invalid actions.

A phase is an environment with its own action set::

    observation = phase.reset()
    observation, reward, terminated, truncated, info = phase.step("click 3 4")

Rules common to all phases (subclasses supply the forms and what an action does):

- **Budget.** Every *valid* action uses one unit of the phase's budget (``budget_left`` in the
  observation). When it reaches 0 without the phase ending by itself, the phase is truncated.
- **Invalid actions.** Text that does not parse against the forms valid *now* is an invalid
  action: no tick, no budget used, counted in ``invalid_actions``, and its message is in
  ``info["invalid_action"]`` and in the next observation's ``invalid``. So that an agent that
  only ever answers nonsense cannot loop for ever, ``max_consecutive_invalid`` invalid actions
  in a row (default 20) truncate the phase.
- **End.** ``terminated`` means the phase ended by the agent's choice or success (go-to-test,
  choose, submit, quit, goal reached); ``truncated`` that a budget ran out. Stepping a finished
  phase raises ``PhaseStateError`` (a caller's bug, not the agent's).
- ``info`` always holds ``valid`` (bool), ``action`` (the canonical text of a valid action, or
  the agent's text), ``kind`` (the action's keyword, or None), ``invalid_actions`` and
  ``budget_left``; phases add their own keys.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

from ..actions import Action
from ..errors import ActionSyntaxError
from ..vocabulary import Ended, PhaseName
from .commands import ActionForm, Command, parse_command
from .errors import PhaseStateError
from .observation import Observation

__all__ = ["Phase", "StepResult", "DEFAULT_MAX_CONSECUTIVE_INVALID"]

DEFAULT_MAX_CONSECUTIVE_INVALID = 20

StepResult = tuple[Observation, float, bool, bool, dict[str, Any]]


class Phase(ABC):
    """Base of the four phases; see the module docstring for the shared contract."""

    name: ClassVar[PhaseName]

    def __init__(self, *, family: str | None, budget: int,
                 max_consecutive_invalid: int = DEFAULT_MAX_CONSECUTIVE_INVALID) -> None:
        if budget < 1:
            raise ValueError(f"the {self.name} phase needs a budget of at least 1, got {budget}")
        if max_consecutive_invalid < 1:
            raise ValueError("max_consecutive_invalid must be at least 1, got "
                             f"{max_consecutive_invalid}")
        self.family = family
        self.budget = budget
        self.max_consecutive_invalid = max_consecutive_invalid
        self.steps = 0                  # valid actions in this phase
        self.invalid_actions = 0
        self.counts: dict[str, int] = {}  # valid actions by keyword
        self._consecutive_invalid = 0
        self._started = False
        self._done = False
        self._message: str | None = None
        self.ended: Ended | None = None   # set once the phase is over

    # -- the loop ------------------------------------------------------------------------------
    def reset(self) -> Observation:
        """Start the phase; returns the first observation."""
        if self._started:
            raise PhaseStateError(f"the {self.name} phase was already started; make a new one")
        self._started = True
        self._start()
        return self.observation()

    def step(self, text: object) -> StepResult:
        """Take one agent action (text); see the module docstring."""
        if not self._started:
            raise PhaseStateError(f"the {self.name} phase has not been started: call reset()")
        if self._done:
            raise PhaseStateError(f"the {self.name} phase has ended; no more actions")
        self._message = None
        try:
            parsed = parse_command(text, self.valid_actions, self._unavailable())
        except ActionSyntaxError as exc:
            self.invalid_actions += 1
            self._consecutive_invalid += 1
            truncated = self._consecutive_invalid >= self.max_consecutive_invalid
            if truncated:
                self._done = True
                self.ended = "truncated"
                self._message = (f"the {self.name} phase ended after "
                                 f"{self._consecutive_invalid} invalid actions in a row")
            info = self._info(valid=False, action=text if isinstance(text, str) else repr(text),
                              kind=None)
            info["invalid_action"] = exc.message
            return self.observation(invalid=exc.message), 0.0, False, truncated, info
        self._consecutive_invalid = 0
        self.steps += 1
        self.counts[parsed.kind] = self.counts.get(parsed.kind, 0) + 1
        reward, terminated, extra = self._apply(parsed)
        truncated = not terminated and self.budget_left <= 0
        if terminated or truncated:
            self._done = True
            self.ended = "terminated" if terminated else "truncated"
        if truncated and self._message is None:
            self._message = f"the {self.name} phase's budget of {self.budget} actions is used up"
        info = self._info(valid=True, action=str(parsed), kind=parsed.kind)
        info.update(extra)
        return self.observation(), reward, terminated, truncated, info

    def stop(self, message: str) -> None:
        """End the phase from outside (a total step cap, an agent that stops): truncated."""
        self._done = True
        self.ended = "truncated"
        self._message = message

    # -- state -----------------------------------------------------------------------------------
    @property
    def budget_left(self) -> int:
        return self.budget - self.steps

    @property
    def done(self) -> bool:
        return self._done

    @property
    @abstractmethod
    def valid_actions(self) -> tuple[ActionForm, ...]:
        """The action forms accepted now."""

    def observation(self, invalid: str | None = None) -> Observation:
        """The observation of the current state (``invalid``: the last action's message)."""
        return self._observation(invalid, self._message)

    # -- what subclasses provide -----------------------------------------------------------------
    @abstractmethod
    def _start(self) -> None:
        """Set up the phase (load worlds, record the first frame)."""

    @abstractmethod
    def _apply(self, action: Action | Command) -> tuple[float, bool, dict[str, Any]]:
        """Carry out a valid action; returns (reward, terminated, extra info)."""

    @abstractmethod
    def _observation(self, invalid: str | None, message: str | None) -> Observation:
        """Build the observation of the current state."""

    def _unavailable(self) -> dict[str, str]:
        """Keywords this phase knows but refuses right now, with the reason."""
        return {}

    def _end(self, message: str) -> None:
        """Note why the phase is ending; shown in the final observation."""
        self._message = message

    def _info(self, *, valid: bool, action: str, kind: str | None) -> dict[str, Any]:
        return {"valid": valid, "action": action, "kind": kind,
                "invalid_actions": self.invalid_actions, "budget_left": self.budget_left}
