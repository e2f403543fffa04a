"""Errors of the WorldTest layer.

What an *agent* gets wrong in a phase (an unknown command, a frame index out of range, a
``declare`` before it is allowed) is never raised: the phase reports it in the next
observation and in ``info["invalid_action"]`` and counts it. The errors here are the caller's
or the shipped data's:

- ``PhaseStateError``: a phase driven out of order (``step`` before ``reset`` or after the
  phase ended);
- ``TaskProgramError``: a task whose modified program cannot be found or read; the message
  names the task id and the path at fault.
"""

from __future__ import annotations

from ..errors import LlmEvalError

__all__ = ["WorldTestError", "PhaseStateError", "TaskProgramError"]


class WorldTestError(LlmEvalError):
    """Base of the WorldTest layer's errors."""


class PhaseStateError(WorldTestError):
    """A phase used out of order: ``step`` before ``reset``, or after it terminated."""


class TaskProgramError(WorldTestError):
    """A task's program file is missing, unreadable or outside the programs directory."""
