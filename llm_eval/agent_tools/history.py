"""What the agent has seen of the world by its own actions: the history the ``autumn`` tool
checks a hypothesis against.

The interaction phase is recorded as runs: a run starts with the frame shown when the phase
starts or after a ``reset``, then each valid world action with the frames it produced (one per
tick: several under ``ticks_per_action``). Only the agent's own observations go in, never the
task's hidden half. An action counted valid is one after which the phase's step count rose
(an invalid action does not tick and is not recorded); ``reset`` starts a new run. The test
phases are not recorded: their frames are recordings and runs the agent did not make from the
world's start.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..actions import parse_action
from ..autumn import Frame

__all__ = ["Run", "History"]


@dataclass(slots=True)
class Run:
    """One run: its first frame, then ``(step, action, frames)`` for each valid action
    (``step``: the interaction phase's step count after the action)."""

    start: Frame
    start_step: int
    steps: list[tuple[int, str, tuple[Frame, ...]]] = field(default_factory=list)


class History:
    """Built from the observations an agent gets, in order (module docstring)."""

    def __init__(self, harness_text: bool = False) -> None:
        self.harness_text = harness_text   # the autumnbench protocol: no runs are followed
        self.runs: list[Run] = []
        self._pending: str | None = None   # the action last sent in the interaction phase
        self._step = 0

    def observe(self, obs) -> None:
        """Take the next observation (a worldtest ``Observation``)."""
        if obs.phase != "interaction" or self.harness_text:
            self._pending = None
            return
        if not self.runs:
            self.runs.append(Run(obs.frame, obs.step))
        elif self._pending is not None and obs.step > self._step:
            if self._pending == "reset":
                self.runs.append(Run(obs.frame, obs.step))
            else:
                frames = tuple(obs.frames) if len(obs.frames) > 1 else (obs.frame,)
                self.runs[-1].steps.append((obs.step, self._pending, frames))
        self._step = obs.step
        self._pending = None

    def acted(self, action: str) -> None:
        """The agent sent ``action`` (text) for the last observation."""
        text = action.strip()
        if text == "reset":
            self._pending = "reset"
            return
        try:
            parse_action(text)
        except Exception:   # a phase command (go-to-test) or nonsense: not a world action
            self._pending = None
            return
        self._pending = text

    @property
    def actions(self) -> int:
        return sum(len(r.steps) for r in self.runs)
