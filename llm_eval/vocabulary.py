"""Closed vocabularies written once: the test families, the local agents (their names are
models in a sweep, choices of ``llm-eval episode`` and the agents' own names), the WorldTest
phases and how a phase ended (``worldtest.phase``, ``worldtest.episode``), and the protocols'
names (their profiles are ``worldtest.protocols``). Light on purpose: a command's parser, the
task models and the observations name them without importing the agents, pydantic or the
profiles."""

from __future__ import annotations

from typing import Literal

__all__ = ["Family", "FAMILIES", "LocalAgent", "LOCAL_AGENTS", "PhaseName", "Ended",
           "ProtocolName"]

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

#: the protocols an episode can be played under (``worldtest.protocols``): ours, and the
#: published AutumnBench harness's rules
ProtocolName = Literal["worldtest", "autumnbench"]
