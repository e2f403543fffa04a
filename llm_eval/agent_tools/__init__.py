"""Agent tools: what an LLM agent may use beside the world's actions (issue 32).

- ``settings``: the ``agent_tools`` setting (``notes``, ``autumn``, ``python``, joined by
  ``+``, or ``none``) and the caps on tool calls (``ToolCaps``);
- ``toolbox``: one episode's tools: schemas, the text-mode tags, caps, records;
- ``notes``: the scratchpad; ``autumn_check`` with ``history``: a hypothesis program run on
  the agent's own history; ``python_tool``: the agent's code through the sandbox
  (``sandbox``, docs/sandbox.md);
- ``replay``: results from a transcript, nothing run again.

docs/agent-tools.md describes them. Importing this package imports no SDK.
"""

from .settings import (
    DEFAULT_PER_EPISODE,
    DEFAULT_PER_TURN,
    NO_TOOLS,
    TOOL_NAMES,
    AgentToolsError,
    ToolCaps,
    parse_agent_tools,
    tools_text,
)
from .toolbox import (
    OPERATIONS,
    TOOL_OF,
    AgentToolbox,
    ToolRecord,
    ToolReplayMismatch,
    strip_text_calls,
    text_calls,
)

__all__ = ["TOOL_NAMES", "NO_TOOLS", "DEFAULT_PER_EPISODE", "DEFAULT_PER_TURN",
           "AgentToolsError", "ToolCaps", "parse_agent_tools", "tools_text", "OPERATIONS",
           "TOOL_OF", "AgentToolbox", "ToolRecord", "ToolReplayMismatch", "text_calls",
           "strip_text_calls"]
