"""Agents: one interface, ``act(observation) -> action`` (``base``), used by every phase.

- ``RandomAgent``: the chance baseline, uniform over the valid action forms;
- ``OracleAgent``: knows the true program; the upper reference and the task checker (its
  planner is ``search.search_plan``).

``make_agent(name, task, seed=...)`` builds one by its name (``random``, ``oracle``).
"""

from .base import Agent
from .oracle import OracleAgent, cd_change_frame, mfp_answer
from .random_agent import RandomAgent
from .search import SearchLimits, SearchResult, goal_distance, search_plan

__all__ = ["Agent", "RandomAgent", "OracleAgent", "AGENT_NAMES", "make_agent",
           "SearchLimits", "SearchResult", "search_plan", "goal_distance", "mfp_answer",
           "cd_change_frame"]

AGENT_NAMES = ("random", "oracle")


def make_agent(name: str, task, *, seed: int = 1, programs_root=None) -> Agent:
    """The agent called ``name`` for ``task`` (``seed`` seeds the random agent)."""
    if name == "random":
        return RandomAgent(seed=seed)
    if name == "oracle":
        return OracleAgent(task, programs_root=programs_root)
    raise ValueError(f"unknown agent {name!r}: expected one of {', '.join(AGENT_NAMES)}")
