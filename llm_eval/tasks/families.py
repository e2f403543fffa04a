"""The three WorldTest test families, in a module of its own so that a command's parser can
name them without importing the task models (pydantic)."""

from ..vocabulary import FAMILIES

__all__ = ["FAMILIES"]
