"""Agents: one interface, ``act(observation) -> action`` (``base``), used by every phase.

- ``RandomAgent``: the chance baseline, uniform over the valid action forms;
- ``OracleAgent``: knows the true program; the upper reference and the task checker (its
  planner is ``search.search_plan``);
- ``SimulatorAgent`` (``simulator``): knows the true program but looks only 6 actions ahead
  (the published study's simulator agent): a difficulty reference between the two;
- ``LLMAgent`` (``llm``): plays through a model adapter with a prompt variant (``prompts``),
  a rendering and a history window. Imported on first use, so this package imports no
  adapter.

- ``ScriptAgent`` (``script``): plays the action lines of a file, then stops the episode.
- ``HumanAgent`` (``human``): a person's actions, given by the browser server (``llm-eval
  serve``) or, in a replay, by the recording; ``human/<participant>`` is never built here.
  It also plays an outside agent's actions handed over by ``llm-eval mcp`` (``mcp/<client>``,
  never built here either).

``make_agent(name, task, seed=...)`` builds one by its name: ``random``, ``oracle``,
``simulator``, ``script/FILE`` or a model ``provider/model`` (``adapters.registry``), with the LLM agent's
settings as keywords.
"""

import difflib
from typing import Any

from ..errors import LlmEvalError
from ..vocabulary import LOCAL_AGENTS
from .base import Agent
from .oracle import OracleAgent, cd_change_frame, mfp_answer
from .random_agent import RandomAgent
from .search import SearchLimits, SearchResult, goal_distance, search_plan
from .simulator import Lookahead, SimulatorAgent

__all__ = ["Agent", "RandomAgent", "OracleAgent", "SimulatorAgent", "Lookahead", "LLMAgent", "AGENT_NAMES", "make_agent",
           "UnknownAgentError", "SearchLimits", "SearchResult", "search_plan", "goal_distance", "mfp_answer",
           "cd_change_frame"]

AGENT_NAMES = LOCAL_AGENTS


class UnknownAgentError(LlmEvalError, ValueError):
    """An agent name that is neither random, oracle, simulator nor provider/model."""


def make_agent(name: str, task, *, seed: int = 1, programs_root=None, **llm: Any) -> Agent:
    """The agent called ``name`` for ``task``: ``random`` (seeded by ``seed``), ``oracle``,
    ``simulator``, or an ``LLMAgent`` for a model ``provider/model`` (``llm`` holds its settings: rendering,
    prompt_variant, history, config, policy, tool_mode, adapter, adapter_options, prices).

    An unknown name raises ``UnknownAgentError`` (or, for an unknown provider, the registry's
    ``UnknownProviderError``) with a "did you mean"; a missing API key
    raises the adapter's ``Fatal`` naming the variable."""
    if name == "random":
        return RandomAgent(seed=seed)
    if name == "oracle":
        return OracleAgent(task, programs_root=programs_root)
    if name == "simulator":
        return SimulatorAgent(task, programs_root=programs_root)
    if name.startswith("human/"):
        raise UnknownAgentError(f"{name} is a person: people play in the browser (llm-eval "
                                f"serve), and their episodes replay from their transcripts")
    if name.startswith("mcp/"):
        raise UnknownAgentError(f"{name} is an outside agent: it plays through an MCP client "
                                f"(llm-eval mcp), and its episodes replay from their transcripts")
    if name.startswith("script/"):
        from .script import ScriptAgent

        return ScriptAgent(name.removeprefix("script/"))
    if "/" not in name:
        close = difflib.get_close_matches(name, AGENT_NAMES, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise UnknownAgentError(f"unknown agent {name!r}{hint}: expected random, oracle, "
                                f"simulator, script/FILE or a model provider/model such as openai/gpt-5")
    from llm_eval.adapters import parse_model

    parse_model(name)   # the registry's "did you mean" for an unknown provider
    from .llm import LLMAgent

    return LLMAgent(name, **llm)


def __getattr__(name: str):
    if name == "LLMAgent":   # lazy: importing agents must not import the adapters
        from .llm import LLMAgent

        return LLMAgent
    raise AttributeError(name)
