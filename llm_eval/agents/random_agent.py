"""The random agent: the chance baseline (docs/spec/worldtest.md 6).

At every step it picks one of the action forms valid now, uniformly, then each integer argument
uniformly within its range (so a click lands on a uniform cell, ``choose`` on a uniform option,
``watch``/``submit`` on a uniform frame). Choices made on purpose:

- in the interaction phase ``go-to-test`` is one form among eight, so the agent mostly acts
  (it plays about 7 actions on average before moving on);
- in the planning test it never takes ``quit``: giving up can only lower its score, and the
  chance baseline is uniform play with the world's actions, the same distribution task
  validation uses (``ActionSpace.sample``, docs/spec/worldtest.md 5).

Under the ``autumnbench`` protocol (observations carry ``offered``) it is the published
harness's random agent [A9]: uniform over the offered strings, duplicates counting twice (so
the harness's doubled ``quit`` is twice as likely), the click pattern ``click [0-K] [0-K]``
becoming a click on a uniform cell. In interaction it thus leaves with probability 2/9 a step.

The agent is seeded (``RandomAgent(seed=S)``); the same seed and observations give the same
actions.
"""

from __future__ import annotations

import random

from ..worldtest.observation import EpisodeStart, Observation
from ..worldtest.protocols import protocol as protocol_profile

__all__ = ["RandomAgent"]


class RandomAgent:
    """Uniform over the valid action forms, then uniform over each argument's range."""

    name = "random"

    def __init__(self, seed: int = 1) -> None:
        self.seed = seed
        self._rng = random.Random(seed)
        self._autumnbench = False   # the episode's protocol shows the harness's text (reset)

    def reset(self, start: EpisodeStart) -> None:
        self._rng = random.Random(self.seed)
        self._autumnbench = protocol_profile(start.protocol).shows_harness_text

    def act(self, observation: Observation) -> str:
        if self._autumnbench:          # the autumnbench protocol
            choice = self._rng.choice(observation.offered)
            if choice.startswith("click ["):
                last = observation.frame.size - 1
                return f"click {self._rng.randint(0, last)} {self._rng.randint(0, last)}"
            return choice
        forms = [f for f in observation.actions
                 if not (observation.phase == "planning" and f.kind == "quit")]
        form = self._rng.choice(forms)
        values = [str(self._rng.randint(p.low, p.high)) for p in form.params]
        return " ".join([form.kind, *values])
