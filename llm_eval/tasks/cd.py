"""Change-detection tasks: the modified program beside the world's (``programs/changes/``),
its trigger, its observational change condition, the change in words, and a witness under
which the trigger fires and the change shows; plus the lock-step comparison validation uses.

``compare(task, actions)`` plays the original program (no trigger) and the modified one (with
the trigger) in lock-step and reports the step at which the trigger first held, the first
step whose frames differ, and the first frame at which the task's condition holds on the
modified program (the scored ``T``, docs/spec/worldtest.md 3.2).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..worlds import World
from ..worldtest.scoring import condition_holds
from .models import CDHidden, CDTask
from .specs import WorldTaskSpec
from .trajectory import CHANGES_DIR, make, make_changed

__all__ = ["build_cd", "compare", "Comparison", "LockStep", "program_path"]


def program_path(world: str) -> str:
    """The modified program of a world, relative to ``llm_eval/worlds/programs/``."""
    return f"{CHANGES_DIR}/{world}.sexp"


@dataclass(frozen=True, slots=True)
class Comparison:
    """``trigger_step``: first step (1-based) before which the trigger held, or None;
    ``first_difference``: first step whose frames differ (0: the initial frames), or None;
    ``steps``: steps played; ``condition_step``: first frame (0: the initial state) whose
    state satisfies the task's condition, or None (also when the task has none);
    ``condition_error``: why evaluating the condition failed (it is not evaluated again)."""

    trigger_step: int | None
    first_difference: int | None
    steps: int
    condition_step: int | None = None
    condition_error: str | None = None

    @property
    def differs_before_trigger(self) -> bool:
        if self.first_difference is None:
            return False
        return self.trigger_step is None or self.first_difference < self.trigger_step

    @property
    def condition_before_difference(self) -> bool:
        """The condition held at a frame before any frame differed (a change claimed before
        anything changed)."""
        if self.condition_step is None:
            return False
        return self.first_difference is None or self.condition_step < self.first_difference


def compare(task: CDTask, actions: list[str], *, seed: int | None = None) -> Comparison:
    """Play ``actions`` on the original and the modified program in lock-step; the condition
    is evaluated on the modified program's initial state and after every step, as the CD
    phase does (``scoring.condition_holds``), until it first holds."""
    return LockStep(task, seed=seed).play(actions)


class LockStep:
    """The original and the modified program of a CD task, loaded on the first ``play`` and
    reset for each later one (a reset with the same seed restores the loaded state instead of
    loading again), for the many runs of validation. The original stops at the first frame
    that differs (nothing after it is compared): in the CD validation of beehive, garden,
    hunters, sandbox and elevator, 47% of the steps come after it."""

    def __init__(self, task: CDTask, *, seed: int | None = None) -> None:
        self.task = task
        self.seed = task.fixed_seed if seed is None else seed
        self._worlds: tuple[World, World] | None = None

    def play(self, actions: list[str], *, settle: bool = False) -> Comparison:
        """``compare``: one lock-step run of ``actions`` from the initial state.

        ``settle``: once the trigger has fired with no frame differing yet, and the condition
        has not held, the original waits (what a run reports no longer depends on where the
        first difference comes, unless the condition comes to hold before it); if the
        condition then holds, the original catches up on the frames the modified program
        showed meanwhile, and plays on in lock-step when none differed. ``first_difference``
        is then None for a run where no frame differed before the trigger and the condition
        never held (and crashes of the original while it waits go unseen)."""
        task = self.task
        if self._worlds is None:
            self._worlds = (make(task.world, self.seed),
                            make_changed(task.world, task.hidden.program, self.seed,
                                         task.hidden.trigger))
        else:
            for world in self._worlds:
                world.reset()
        original, changed = self._worlds
        probe = _ConditionProbe(task.hidden.condition)
        trigger_step = None
        first = 0 if original.frame.grid != changed.frame.grid else None
        probe.check(changed, 0)
        waiting: list | None = None   # the modified program's grids since the original waits
        for t, action in enumerate(actions, 1):
            # once the frames have differed the original has nothing more to tell: only the
            # modified program plays on (its crashes, the trigger and the condition)
            a = original.step(action)[0] if first is None and waiting is None else None
            b, *_ = changed.step(action)
            if trigger_step is None and changed.interpreter.get_trigger_state():
                trigger_step = t
            if a is not None and a.grid != b.grid:
                first = t
            elif waiting is not None:
                waiting.append(b.grid)
            probe.check(changed, t)
            if waiting is None:
                if settle and first is None and trigger_step is not None and \
                        probe.step is None:
                    waiting = []
            elif probe.step is not None:
                first = _catch_up(original, actions[t - len(waiting):t], waiting, t)
                waiting = None
        return Comparison(trigger_step, first, len(actions), probe.step, probe.error)


def _catch_up(original, actions: list[str], grids: list, t: int) -> int | None:
    """Play ``actions`` (the steps up to ``t``) on the waiting original; the first step whose
    frame differs from the modified program's in ``grids``, or None."""
    start = t - len(actions)
    for i, (action, grid) in enumerate(zip(actions, grids), start + 1):
        if original.step(action)[0].grid != grid:
            return i
    return None


class _ConditionProbe:
    """Evaluates the condition on each frame's state until it first holds or fails."""

    def __init__(self, condition: str | None) -> None:
        self.condition = condition
        self.step: int | None = None
        self.error: str | None = None

    def check(self, world, t: int) -> None:
        if not self.condition or self.step is not None or self.error is not None:
            return
        try:
            if condition_holds(world.interpreter, self.condition):
                self.step = t
        except Exception as exc:   # reported by validation, never a crash of the run
            self.error = f"the condition fails to evaluate at frame {t}: " \
                         f"{type(exc).__name__}: {exc}"


def build_cd(spec: WorldTaskSpec) -> CDTask:
    """The CD task of a world from its spec (deterministic)."""
    hidden = CDHidden(program=program_path(spec.world), trigger=spec.cd_trigger,
                      condition=spec.cd_condition, change=spec.cd_change,
                      witness=list(spec.cd_witness))
    return CDTask(id=f"{spec.world}-cd", world=spec.world, seed=spec.seed, hidden=hidden)
