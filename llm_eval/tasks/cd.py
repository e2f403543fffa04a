"""Change-detection tasks: the modified program beside the world's (``programs/changes/``),
its trigger, the change in words, and a witness under which the trigger fires and the change
shows; plus the lock-step comparison validation uses.

``compare(task, actions)`` plays the original program (no trigger) and the modified one (with
the trigger) in lock-step and reports the step at which the trigger first held (``T``) and the
first step whose frames differ.
"""

from __future__ import annotations

from dataclasses import dataclass

from .models import CDHidden, CDTask
from .specs import WorldTaskSpec
from .trajectory import CHANGES_DIR, make, make_changed

__all__ = ["build_cd", "compare", "Comparison", "program_path"]


def program_path(world: str) -> str:
    """The modified program of a world, relative to ``llm_eval/worlds/programs/``."""
    return f"{CHANGES_DIR}/{world}.sexp"


@dataclass(frozen=True, slots=True)
class Comparison:
    """``trigger_step``: first step (1-based) before which the trigger held, or None;
    ``first_difference``: first step whose frames differ (0: the initial frames), or None;
    ``steps``: steps played."""

    trigger_step: int | None
    first_difference: int | None
    steps: int

    @property
    def differs_before_trigger(self) -> bool:
        if self.first_difference is None:
            return False
        return self.trigger_step is None or self.first_difference < self.trigger_step


def compare(task: CDTask, actions: list[str], *, seed: int | None = None) -> Comparison:
    """Play ``actions`` on the original and the modified program in lock-step."""
    seed = task.seed if seed is None else seed
    original = make(task.world, seed)
    changed = make_changed(task.world, task.hidden.program, seed, task.hidden.trigger)
    trigger_step = None
    first = 0 if original.frame.grid != changed.frame.grid else None
    for t, action in enumerate(actions, 1):
        a, *_ = original.step(action)
        b, *_ = changed.step(action)
        if trigger_step is None and changed.interpreter.get_trigger_state():
            trigger_step = t
        if first is None and a.grid != b.grid:
            first = t
    return Comparison(trigger_step, first, len(actions))


def build_cd(spec: WorldTaskSpec) -> CDTask:
    """The CD task of a world from its spec (deterministic)."""
    hidden = CDHidden(program=program_path(spec.world), trigger=spec.cd_trigger,
                      change=spec.cd_change, witness=list(spec.cd_witness))
    return CDTask(id=f"{spec.world}-cd", world=spec.world, seed=spec.seed, hidden=hidden)
