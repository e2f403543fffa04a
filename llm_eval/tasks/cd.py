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

from ..autumn.interpreter import STDLIB
from ..autumn.latch import LatchProof, prove_latched
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
    return LockStep(task, seed=seed, lazy=False).play(actions)


class LockStep:
    """The original and the modified program of a CD task, loaded on the first ``play`` and
    reset for each later one (a reset with the same seed restores the loaded state instead of
    loading again), for the many runs of validation. The original stops at the first frame
    that differs (nothing after it is compared): in the CD validation of beehive, garden,
    hunters, sandbox and elevator, 47% of the steps come after it.

    When the modified program is proven to run as the original until its trigger holds
    (``autumn.latch.prove_latched``, and the two loaded programs' hash-table orders agree),
    a settled run does not play the original before the trigger: its frames there are the
    modified program's. It is played (from the start, every frame compared) only when a run
    needs it: the condition holds, the modified program fails, or the globals table changes
    in a way not checked at load. In suite v1's CD validation the original plays 135,398
    steps instead of 317,950 (``lazy``: whether it is left out; 36 of the 43 tasks)."""

    def __init__(self, task: CDTask, *, seed: int | None = None, lazy: bool = True) -> None:
        self.task = task
        self.seed = task.fixed_seed if seed is None else seed
        self._worlds: tuple[World, World] | None = None
        self._lazy_allowed = lazy
        self.lazy = False
        self.proof: LatchProof | None = None
        self._orders: tuple[list[str], ...] = ()   # the modified program's checked orders

    def _load(self) -> tuple[World, World]:
        task = self.task
        original = make(task.world, self.seed)
        changed = make_changed(task.world, task.hidden.program, self.seed, task.hidden.trigger)
        self._worlds = (original, changed)
        if self._lazy_allowed:
            self.proof = prove_latched(original.program, changed.program, task.hidden.trigger,
                                       stdlib=STDLIB)
            latch = self.proof.latch
            if self.proof.proven and latch and original.frame.grid == changed.frame.grid:
                self._orders = _agreeing_orders(original, changed, latch)
            self.lazy = bool(self._orders)
        return original, changed

    def play(self, actions: list[str], *, settle: bool = False) -> Comparison:
        """``compare``: one lock-step run of ``actions`` from the initial state.

        ``settle``: at the step the trigger first fires, when no frame has differed and the
        condition has not held, the original waits (what a run reports no longer depends on
        where the first difference comes, unless the condition comes to hold after it); if
        the condition then holds, the original catches up on the frames the modified
        program showed meanwhile, and plays on in lock-step when none differed.
        ``first_difference`` is then None for a run where no frame differed before the
        trigger and the condition never held (and crashes of the original while it waits
        go unseen)."""
        fresh = self._worlds is None
        if self._worlds is None:      # (not ``fresh``: the type checker narrows this one)
            original, changed = self._load()
        else:
            original, changed = self._worlds
            changed.reset()
        lazy = settle and self.lazy
        if not lazy and not fresh:
            original.reset()
        probe = _ConditionProbe(self.task.hidden.condition)
        trigger_step = None
        # lazy: the initial frames were compared at load; the original lags (see _replay)
        first = 0 if not lazy and original.frame.grid != changed.frame.grid else None
        probe.check(changed, 0)
        waiting: list | None = None   # the modified program's grids since the original waits
        lagging = lazy
        grids = [changed.frame.grid]   # the modified program's, kept while the original lags
        interpreter = changed.interpreter
        orders = interpreter.hash_orders
        globals_order = orders()[1].order if lazy else None
        for t, action in enumerate(actions, 1):
            in_step = first is None and waiting is None   # the original plays this step
            try:
                b, *_ = changed.step(action)
            except Exception:
                if in_step:   # the original steps too: its own error is the one reported
                    if not lagging or _replay(original, actions[:t - 1], grids) is None:
                        original.step(action)
                raise
            if lagging:
                grids.append(b.grid)
            if trigger_step is None and interpreter.get_trigger_state():
                trigger_step = t
                if settle and in_step and probe.step is None:
                    waiting, in_step = [], False
            if in_step and not lagging:
                if original.step(action)[0].grid != b.grid:
                    first = t
            elif waiting is not None:
                waiting.append(b.grid)
            probe.check(changed, t)
            if lagging and in_step:
                order = orders()[1].order
                if probe.step is not None or (order is not globals_order
                                              and order not in self._orders):
                    first, lagging = _replay(original, actions[:t], grids), False
                globals_order = order
            if waiting is not None and probe.step is not None:
                if lagging:
                    first, lagging = _replay(original, actions[:t], grids), False
                else:
                    first = _catch_up(original, actions[t - len(waiting):t], waiting, t)
                waiting = None
        return Comparison(trigger_step, first, len(actions), probe.step, probe.error)


def _agreeing_orders(original: World, changed: World, latch: str) -> tuple[list[str], ...]:
    """The modified program's global orders under which it runs as the original (both
    programs' loaded hash orders, and the same after the first click defines ``click``):
    the orders of the state variables equal, and the globals' the same but for the latch.
    Empty when the loaded orders disagree."""
    (o_state, o_globals), (c_state, c_globals) = (original.interpreter.hash_orders(),
                                                  changed.interpreter.hash_orders())
    if o_state.order != c_state.order:
        return ()
    agreeing = []
    for extra in (None, "click"):
        o, c = o_globals.copy(), c_globals.copy()
        if extra is not None:
            o.insert(extra)
            c.insert(extra)
        if [name for name in c.order if name != latch] != o.order:
            break
        agreeing.append(list(c.order))
    return tuple(agreeing)


def _replay(original: World, actions: list[str], grids: list) -> int | None:
    """Reset the lagging original and play ``actions`` on it, comparing each frame with the
    modified program's (``grids[t]`` at step t); the first step that differs (the original
    stops there), or None."""
    original.reset()
    for t, action in enumerate(actions, 1):
        if original.step(action)[0].grid != grids[t]:
            return t
    return None


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
