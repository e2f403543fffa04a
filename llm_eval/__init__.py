"""llm_eval: evaluate LLM agents under the WorldTest protocol on Autumn grid worlds.

The package is layered in one direction (see docs/architecture.md): the Autumn interpreter
(``llm_eval.autumn``) at the bottom, the agent-facing actions (``llm_eval.actions``) and the
``llm-eval`` command (``llm_eval.cli``) above it. Importing the package imports nothing else.
"""

__all__ = ["__version__"]

__version__ = "0.1.0"
