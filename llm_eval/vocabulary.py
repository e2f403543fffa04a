"""Closed vocabularies written once: the test families and the local agents (their names are
models in a sweep, choices of ``llm-eval episode`` and the agents' own names). Light on purpose:
a command's parser and the task models name them without importing the agents or pydantic.
(The protocols' names live with their profiles, ``worldtest.protocols``.)"""

from __future__ import annotations

from typing import Literal

__all__ = ["Family", "FAMILIES", "LocalAgent", "LOCAL_AGENTS"]

Family = Literal["mfp", "cd", "planning"]
FAMILIES: tuple[Family, ...] = ("mfp", "cd", "planning")

LocalAgent = Literal["random", "oracle", "simulator"]
#: the agents that play without a model: the floor, the ceiling and the depth-6 reference
LOCAL_AGENTS: tuple[LocalAgent, ...] = ("random", "oracle", "simulator")
