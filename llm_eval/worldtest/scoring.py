"""Scores of the test families (docs/spec/worldtest.md 3), pure functions.

Change detection. Frames of a run are numbered from 0 (the run's initial frame, after its
start or reset); frame k is the frame shown after the run's k-th action. The task's change
condition is observational (docs/spec/worldtest.md 3.2): an expression over the world's state, checked
on the initial state and after every tick (``condition_holds``). **T is the index of the first
frame of the current run whose state satisfies it.** (A hidden start-of-tick trigger may still
drive the modified program; it does not define T.) With ``t`` the frame index the agent
submits, the raw reward is

- no trigger yet in this run (``T`` is None), or ``t < T - 1``: -1 (a false alarm);
- ``t`` in ``{T - 1, T}``: 1;
- ``t > T``: ``clip(1.377 * f - 1.178, 0, 1)`` with ``f = 1 / (1 - (t/T) * exp(-t/T))``.

An agent that never declares, or declares but never submits, gets raw reward 0 (it raised no
false alarm and found nothing). The aggregate score is ``max(0, raw)`` for every family; for
MFP and planning raw reward and score are the same 0 or 1.
"""

from __future__ import annotations

import math

__all__ = ["cd_raw_reward", "aggregate_score", "condition_holds", "NOT_SUBMITTED"]

#: The raw reward of a change-detection test in which no frame was submitted.
NOT_SUBMITTED = 0.0

_A, _B = 1.377, 1.178


def cd_raw_reward(t: int, T: int | None) -> float:
    """The raw change-detection reward for submitting frame ``t`` when the change began at
    frame ``T`` (None: the trigger has not held in this run). See the module docstring."""
    if isinstance(t, bool) or not isinstance(t, int) or t < 0:
        raise ValueError(f"the submitted frame index must be a non-negative integer, got {t!r}")
    if T is None:
        return -1.0
    if isinstance(T, bool) or not isinstance(T, int) or T < 1:
        raise ValueError(f"T must be a positive integer (a condition that holds on a run's "
                         f"initial frame makes an invalid task), got {T!r}")
    if t < T - 1:
        return -1.0
    if t <= T:
        return 1.0
    ratio = t / T
    f = 1.0 / (1.0 - ratio * math.exp(-ratio))
    return min(1.0, max(0.0, _A * f - _B))


def condition_holds(interpreter, condition: str, *, autumnbench: bool = False) -> bool:
    """Whether the change ``condition`` holds on ``interpreter``'s current state: the value is
    the boolean true (``harness``: its printed form contains ``true``, the published harness's
    test, docs/spec/autumnbench-harness.md X4)."""
    if autumnbench:
        return "true" in interpreter.evaluate_to_string(condition)
    return interpreter.evaluate(condition) is True


def aggregate_score(raw: float) -> float:
    """The score used in aggregates: ``max(0, raw)``."""
    return max(0.0, raw)
