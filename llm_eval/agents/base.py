"""The one agent interface of WorldTest: ``act(observation) -> action text``.

Every phase (interaction, MFP, CD, planning) is driven through the same call; what an agent may
do is in ``observation.actions`` (the forms valid now). An agent may also define
``reset(start: EpisodeStart)``, called once before the interaction phase. Whatever ``act``
returns is handed to the phase as is: text that is not a valid action (or anything that is not
text) is an invalid action, reported back in the next observation and counted, never a crash.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from ..worldtest.observation import EpisodeStart, Observation

__all__ = ["Agent", "EpisodeStart", "Observation"]


@runtime_checkable
class Agent(Protocol):
    """Chooses an action for every observation; ``reset(start)`` is an optional hook."""

    def act(self, observation: Observation) -> object:
        """The action text; anything else (not text) is an invalid action (module docstring)."""
        ...
