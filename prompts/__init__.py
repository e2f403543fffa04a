"""Prompt templates and prompt variants: data shipped with the package, not code."""
