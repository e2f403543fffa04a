"""The human agent: a person's actions, handed to the episode one at a time (docs/spec/worldtest.md 6).

A person does not run inside ``act``: whoever hears them (the browser server, ``llm-eval
serve``) calls ``give(seq, action)`` from another thread, and ``act`` returns it. The episode
runs in its own thread, blocked in ``act`` between actions, so a person's episode is an
ordinary episode (the same runner, phases, transcript and run-store job as a model's).

- ``seq`` numbers the actions from 0: an action is accepted once, in order. Giving action
  ``n`` again with the same text is a repeat (a page that lost the answer and asked again) and
  changes nothing; another text, or a number ahead of the next, is a ``HumanInputError``.
- ``recorded`` actions are played first, without waiting (a replay of a person's transcript,
  or an episode resumed after the server restarted); ``live=False`` ends the episode
  (``StopEpisode``) when they run out instead of waiting for more.
- ``abandon(error)`` makes a waiting ``act`` raise ``error``: ``StopEpisode`` scores the test
  as it stands, an exception the caller knows (the server's ``JobInterrupted``) ends the
  episode unscored, e.g. when the server stops while the person is playing.
- ``close()`` (called by ``execute_job`` when the episode has ended, however it ended): no
  more turns.

``wait_turn(seq, timeout)`` lets the server wait until the episode has taken action ``seq``
and asks for the next one (or has ended). Wall-clock time never decides anything here: the
timeout only bounds how long a request waits, and what the episode does depends on the
actions alone.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from ..errors import LlmEvalError
from ..worldtest.episode import StopEpisode
from ..worldtest.observation import Observation

__all__ = ["HumanAgent", "HumanInputError"]


class HumanInputError(LlmEvalError):
    """An action given out of turn, or differently the second time; names the sequence."""


class HumanAgent:
    """A person's actions, one per ``act`` (module docstring)."""

    def __init__(self, name: str, *, recorded: Sequence[str] = (), live: bool = True) -> None:
        self.name = name
        self.live = live
        self._recorded = tuple(recorded)
        self._actions = list(self._recorded)  # every action given (recorded ones first)
        self._taken = 0                      # how many act() has returned
        self._observation: Observation | None = None
        self._asking = False                 # act() is waiting for action number _taken
        self._closed: BaseException | None = None
        self._ended = False
        self._turn = threading.Condition()

    # -- the episode's side ---------------------------------------------------------------------
    def act(self, observation: Observation) -> str:
        with self._turn:
            self._observation = observation
            self._asking = True
            self._turn.notify_all()
            while self._taken >= len(self._actions):
                if self._closed is not None:
                    self._asking = False
                    raise self._closed
                if not self.live:
                    self._asking = False
                    raise StopEpisode(f"{self.name}: the recording has no action "
                                      f"{self._taken}")
                self._turn.wait()
            action = self._actions[self._taken]
            self._taken += 1
            self._asking = False
            self._turn.notify_all()
            return action

    def close(self) -> None:
        """The episode has ended (scored, stopped or failed): no more turns."""
        with self._turn:
            self._ended = True
            self._asking = False
            self._turn.notify_all()

    # -- the person's side ----------------------------------------------------------------------
    @property
    def next_seq(self) -> int:
        """The number the next new action must carry."""
        with self._turn:
            return len(self._actions)

    @property
    def actions(self) -> tuple[str, ...]:
        with self._turn:
            return tuple(self._actions)

    def give(self, seq: int, action: str) -> bool:
        """Hand over action ``seq``; True if it is new, False for a repeat of the same action
        (``HumanInputError`` otherwise)."""
        with self._turn:
            if self._ended or self._closed is not None:
                raise HumanInputError(f"action {seq}: the episode has ended")
            if seq < len(self._actions):
                if self._actions[seq] != action:
                    raise HumanInputError(f"action {seq} was already {self._actions[seq]!r}, "
                                          f"not {action!r}")
                return False
            if seq != len(self._actions):
                raise HumanInputError(f"action {seq} is out of turn: the next action is "
                                      f"number {len(self._actions)}")
            self._actions.append(action)
            self._turn.notify_all()
            return True

    def wait_turn(self, seq: int, timeout: float) -> tuple[Observation | None, bool]:
        """Wait until the episode asks for action ``seq`` (it has taken every earlier one) or
        has ended; returns the observation it is asking about (None if it never asked) and
        whether it is asking. Returns as things stand after ``timeout`` seconds."""
        with self._turn:
            self._turn.wait_for(lambda: self._ended or self._closed is not None or
                                (self._asking and self._taken == seq), timeout)
            asking = self._asking and self._taken == seq and not self._ended
            return self._observation, asking

    def abandon(self, error: BaseException) -> None:
        """Make a waiting ``act`` raise ``error`` (module docstring)."""
        with self._turn:
            self._closed = error
            self._turn.notify_all()
