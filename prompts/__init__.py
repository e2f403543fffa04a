"""Prompt templates and prompt variants: data shipped with the package, not code.

Installed as ``llm_eval.prompts`` (``pyproject.toml``, ``package-dir``)."""
