"""``llm-eval mcp``: any outside agent plays WorldTest tasks through the Model Context Protocol.

An MCP client (Claude Code, Codex, an Agents SDK program, any client of the official SDK)
gets the tools ``observe``, ``act``, ``reset``, ``go_to_test`` and ``valid_actions`` over
stdio or streamable HTTP on a loopback address; each episode it plays is an ordinary job of
agent ``mcp/<client name>`` in a run directory, played by ``execute_job`` with the same
phases, budgets and scoring as every agent, so ``report``, ``compare``, the behaviour measures
and ``replay`` treat it like any other. The client's own model calls are not seen.

Modules (the subcommand is ``llm_eval.cli.mcp``, importing nothing heavy): ``server`` (the MCP server, its
tools and sessions; imports the SDK), ``episodes`` (the jobs, their threads and the run
store), ``text`` (observations as text). See docs/mcp.md.
"""
