"""Closed vocabularies written once: the test families, the local agents (their names are
models in a sweep, choices of ``llm-eval episode`` and the agents' own names), the WorldTest
phases and how a phase ended (``worldtest.phase``, ``worldtest.episode``). Light on purpose:
a command's parser and the task models name them without importing the agents or pydantic.
(The protocols' names live with their profiles, ``worldtest.protocols``.)"""

from __future__ import annotations

from typing import Literal

__all__ = ["Family", "FAMILIES", "LocalAgent", "LOCAL_AGENTS", "PhaseName", "Ended"]

Family = Literal["mfp", "cd", "planning"]
FAMILIES: tuple[Family, ...] = ("mfp", "cd", "planning")

LocalAgent = Literal["random", "oracle", "simulator"]
#: the agents that play without a model: the floor, the ceiling and the depth-6 reference
LOCAL_AGENTS: tuple[LocalAgent, ...] = ("random", "oracle", "simulator")

#: the phases of an episode: the interaction, then the test of the task's family
PhaseName = Literal["interaction", "mfp", "cd", "planning"]

#: how a phase ended: "terminated" by the agent's choice or success, "truncated" by a budget,
#: or cut short by the agent: "stopped" (``StopEpisode``) or "context" (its model's context is
#: full, ``ContextExhausted``)
Ended = Literal["terminated", "truncated", "stopped", "context"]
