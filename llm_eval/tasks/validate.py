"""Task validation: every check of docs/spec/worldtest.md section 5, each a named result with pass or
fail and its figures.

- every task: ``seed`` (never 0 mod 2**32; a stochastic world behaves differently under
  another seed).
- planning: ``witness_reaches_goal``, ``goal_differs_from_initial``, ``random_below_5pct``
  (the uniform random agent over seeded rollouts of ``horizon`` steps), ``oracle_solves``.
- MFP: ``trajectory_replays`` (the shown frames are the program's), ``mask_is_dynamic``,
  ``answer_unique``, ``options_distinct``, ``oracle_answers``, ``random_near_chance``.
- CD: ``trigger_fires`` (under the witness, within the interaction budget),
  ``identical_before_trigger`` (witness and fuzz runs), ``change_observable`` (frames differ
  at most ``MAX_CHANGE_DELAY`` steps after the trigger), ``no_crash`` (seeded random action
  sequences, a click on every cell, and fresh runs that start with a click on a cell showing
  something, on both programs), and three on the observational change condition that
  defines the scored T (docs/spec/worldtest.md 3.2): ``condition_false_initially`` (it does not hold on
  the initial state), ``condition_at_change`` (under the witness it first holds at the first
  frame that differs from the original program's in lock-step, at most
  ``MAX_CONDITION_LAG`` frames later, never earlier), ``condition_not_early`` (in the witness,
  every fuzz run and the condition rollouts, seeded random play of the interaction budget,
  half of it after a prefix of the witness, it never holds before the first difference: no
  change claimed before anything changed); ``oracle_detects`` (the oracle scores 1).
- fair under the dice (docs/suite-v2.md; docs/spec/worldtest.md 5), for every task of a stochastic
  world (a deterministic world's passes with ``stochastic: false``): MFP
  ``truth_favoured_by_dice``, CD ``change_beyond_chance`` and ``condition_needs_change``,
  planning ``reachable_without_dice``. Each redraws the program's generator (``dice``) with a
  fixed number of draws seeded from the task's id, and passes on a one-sided bound of the
  frequency, not on the frequency itself.

A check that raises fails with the error's message; the oracle checks are skipped (not
failed) while ``llm_eval.agents`` has no ``OracleAgent``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Any

from ..seeds import is_degenerate_seed
from ..worlds import world_spec
from ..worldtest.scoring import condition_holds
from . import dice
from .cd import Comparison, LockStep, compare
from .models import CDTask, MFPTask, PlanningTask
from .planning import RANDOM_LIMIT, first_success, random_success
from .trajectory import make, make_changed, patch, play, random_actions, reusing_worlds

__all__ = ["Check", "TaskReport", "Effort", "FULL", "QUICK", "validate_task",
           "validate_tasks", "validate_in_processes", "start_rank", "MAX_CHANGE_DELAY",
           "MAX_CONDITION_LAG", "DICE_Z", "MFP_FLOOR", "MFP_MARGIN", "PLAN_FLOOR", "PLAN_Z"]

MAX_CHANGE_DELAY = 10        # steps from the trigger to the first visible difference
MAX_CONDITION_LAG = 0        # frames from the first difference to where the condition holds
_NO_CONDITION = "the task has no change condition (hidden.condition)"
CHANCE_TOLERANCE = 0.05
MAX_FIRST_CLICKS = 48       # fresh runs whose first action clicks a non-background cell
# fair under the dice (docs/suite-v2.md): one-sided Wilson bounds
DICE_Z = 3.09               # MFP: 0.1% one-sided
MFP_FLOOR = 0.25            # the truth in at least a quarter of redrawn futures ...
MFP_MARGIN = 2.0            # ... and at least twice as often as the best distractor
PLAN_FLOOR = 0.8            # the blind planner reaches the goal in at least 80% of redraws
PLAN_Z = 1.645              # planning: 5% one-sided (a few costly redraws)
CHANGE_AFTER = 1            # frames after the first difference checked too


@dataclass(frozen=True, slots=True)
class Effort:
    """How hard validation tries: planning rollouts, MFP random answers, CD fuzz runs, and
    CD condition rollouts (each as long as the interaction budget; every other one starts
    with a prefix of the witness, so that many reach the change); the draws of the checks
    under redrawn dice (MFP futures, CD redraws, planning redraws; 0 planning redraws skips
    that check, which costs minutes a task)."""

    rollouts: int = 200
    random_answers: int = 1200
    fuzz_runs: int = 40
    fuzz_steps: int = 100
    click_sweep: bool = True
    oracle: bool = True
    condition_rollouts: int = 50
    mfp_draws: int = 400
    cd_draws: int = 200
    plan_redraws: int = 12


FULL = Effort()
QUICK = Effort(rollouts=60, random_answers=600, fuzz_runs=6, fuzz_steps=60,
               condition_rollouts=6, cd_draws=60, plan_redraws=0)


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    passed: bool
    figures: dict[str, Any] = field(default_factory=dict)
    detail: str = ""
    skipped: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "passed": self.passed, "skipped": self.skipped,
                "figures": self.figures, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class TaskReport:
    task: str
    world: str
    family: str
    checks: tuple[Check, ...]

    @property
    def passed(self) -> bool:
        return all(c.passed or c.skipped for c in self.checks)

    def check(self, name: str) -> Check:
        return next(c for c in self.checks if c.name == name)

    def to_dict(self) -> dict[str, Any]:
        return {"task": self.task, "world": self.world, "family": self.family,
                "passed": self.passed, "checks": [c.to_dict() for c in self.checks]}


def _run(name: str, fn, *args) -> Check:
    try:
        return fn(*args)
    except Exception as exc:  # a broken task must fail its check, never crash validation
        return Check(name, False, detail=f"{type(exc).__name__}: {exc}")


# -- every task -------------------------------------------------------------------------------
def _task_actions(task) -> list[str]:
    if isinstance(task, MFPTask):
        return list(task.public.actions)
    return list(task.hidden.witness_actions)


def check_seed(task) -> Check:
    if is_degenerate_seed(task.seed):
        return Check("seed", False, {"seed": task.seed}, "seed is 0 mod 2**32")
    if not world_spec(task.world).stochastic:
        return Check("seed", True, {"seed": task.seed, "stochastic": False})
    actions = _task_actions(task) + ["noop"] * 100
    ours = play(make(task.world, task.fixed_seed), actions)
    other = play(make(task.world, task.fixed_seed + 1), actions)
    differs = next((t for t, (a, b) in enumerate(zip(ours, other)) if a != b), None)
    return Check("seed", differs is not None,
                 {"seed": task.seed, "stochastic": True, "other_seed_differs_at": differs},
                 "" if differs is not None else "another seed gives the same frames")


# -- planning ---------------------------------------------------------------------------------
def check_witness_reaches_goal(task: PlanningTask) -> Check:
    p = task.public
    grids = play(make(task.world, task.fixed_seed), task.hidden.witness_actions)
    reached = first_success(grids, p.goal, p.mask)
    ok = reached is not None and p.horizon is not None and reached <= p.horizon
    return Check("witness_reaches_goal", ok,
                 {"witness": len(task.hidden.witness_actions), "reached_at": reached,
                  "horizon": p.horizon},
                 "" if ok else "the witness does not reach the goal within the horizon")


def check_goal_differs(task: PlanningTask) -> Check:
    initial = make(task.world, task.fixed_seed).frame.grid
    cells = [(x, y) for y, row in enumerate(task.public.mask) for x, m in enumerate(row) if m]
    differ = sum(initial[y][x] != task.public.goal[y][x] for x, y in cells)
    return Check("goal_differs_from_initial", differ > 0,
                 {"masked_cells": len(cells), "differing": differ},
                 "" if differ else "the initial frame already matches the goal")


def check_random_planning(task: PlanningTask, effort: Effort) -> Check:
    wins = random_success(task, effort.rollouts)
    rate = wins / effort.rollouts
    return Check("random_below_5pct", rate < RANDOM_LIMIT,
                 {"successes": wins, "rollouts": effort.rollouts, "rate": round(rate, 4),
                  "horizon": task.public.horizon},
                 "" if rate < RANDOM_LIMIT else "random play reaches the goal too often")


# -- MFP --------------------------------------------------------------------------------------
def _true_patch(task: MFPTask):
    grids = play(make(task.world, task.fixed_seed), task.public.actions)
    return grids, patch(grids[-1], task.public.mask)


def check_trajectory(task: MFPTask) -> Check:
    grids, _ = _true_patch(task)
    bad = [t for t, (shown, real) in enumerate(zip(task.public.frames, grids))
           if any(c is not None and c != real[y][x] for y, row in enumerate(shown)
                  for x, c in enumerate(row))]
    return Check("trajectory_replays", not bad, {"frames": len(grids), "mismatched": bad[:5]},
                 "" if not bad else "shown frames differ from the program's frames")


def check_mask_dynamic(task: MFPTask) -> Check:
    grids, truth = _true_patch(task)
    before = patch(grids[task.public.masked_from - 1], task.public.mask)
    distinct = len({str(patch(g, task.public.mask)) for g in grids})
    ok = truth != before and distinct > 1
    return Check("mask_is_dynamic", ok, {"distinct_patches": distinct},
                 "" if ok else "the hidden patch equals the last shown one")


def check_answer_unique(task: MFPTask) -> Check:
    _, truth = _true_patch(task)
    equal = [i for i, o in enumerate(task.public.options) if o == truth]
    ok = equal == [task.hidden.answer]
    return Check("answer_unique", ok, {"answer": task.hidden.answer, "equal_to_truth": equal},
                 "" if ok else "the answer is not the only option equal to the true patch")


def check_options_distinct(task: MFPTask) -> Check:
    opts = [str(o) for o in task.public.options]
    ok = len(set(opts)) == len(opts)
    return Check("options_distinct", ok, {"distinct": len(set(opts)), "options": len(opts)},
                 "" if ok else "two options are the same patch")


def check_random_mfp(task: MFPTask, effort: Effort) -> Check:
    _, truth = _true_patch(task)
    rng = random.Random(4242)
    wins = sum(task.public.options[rng.randrange(6)] == truth
               for _ in range(effort.random_answers))
    rate = wins / effort.random_answers
    ok = abs(rate - 1 / 6) <= CHANCE_TOLERANCE
    return Check("random_near_chance", ok,
                 {"rate": round(rate, 4), "answers": effort.random_answers, "chance": 0.1667},
                 "" if ok else "random answers are not near 1/6")


# -- CD ---------------------------------------------------------------------------------------
def check_trigger(task: CDTask) -> Check:
    c = compare(task, task.hidden.witness_actions)
    budget = task.budgets.interaction_steps
    ok = c.trigger_step is not None and c.trigger_step <= budget \
        and len(task.hidden.witness_actions) <= budget
    return Check("trigger_fires", ok,
                 {"trigger_step": c.trigger_step, "witness": len(task.hidden.witness_actions),
                  "budget": budget},
                 "" if ok else "the trigger does not fire within the budget under the witness")


def _fuzz_sequences(task: CDTask, effort: Effort) -> list[list[str]]:
    size = world_spec(task.world).size
    runs = [random_actions(random.Random(7000 + i), size, effort.fuzz_steps)
            for i in range(effort.fuzz_runs)]
    if effort.click_sweep:
        runs.append([f"click {x} {y}" for y in range(size) for x in range(size)])
        # the published suite had a task that crashed when the first action was a click:
        # start fresh runs with a click on each cell that shows something
        frame = make(task.world, task.fixed_seed).frame
        shown = [(x, y) for y, row in enumerate(frame.grid) for x, c in enumerate(row)
                 if c != frame.background]
        runs += [[f"click {x} {y}", "noop", "noop"] for x, y in shown[:MAX_FIRST_CLICKS]]
    return runs


def _condition_rollouts(task: CDTask, effort: Effort) -> list[list[str]]:
    """Seeded random rollouts of the interaction budget; odd ones start with a prefix of the
    witness (of a random length) and go on at random."""
    size = world_spec(task.world).size
    budget = task.budgets.interaction_steps
    witness = list(task.hidden.witness or ())
    runs = []
    for i in range(effort.condition_rollouts):
        rng = random.Random(8000 + i)
        prefix = witness[:rng.randrange(len(witness) + 1)] if i % 2 else []
        runs.append(prefix + random_actions(rng, size, budget - len(prefix)))
    return runs


def check_before_and_after(task: CDTask, effort: Effort) -> list[Check]:
    crashes: list[str] = []
    condition_errors: list[str] = []

    lockstep = LockStep(task)   # both programs, loaded once and reset for each run

    def play(label: str, actions: list[str], settle: bool = True) -> Comparison | None:
        try:
            c = lockstep.play(actions, settle=settle)   # steps both programs in lock-step
        except Exception as exc:
            crashes.append(f"{label}: {type(exc).__name__}: {exc}")
            return None
        if c.condition_error:
            condition_errors.append(f"{label}: {c.condition_error}")
        return c

    # the witness's first difference is reported (change_observable): it is looked for
    w = play("witness", task.hidden.witness_actions, False) or Comparison(None, None, 0)
    early = [] if not w.differs_before_trigger else ["witness"]
    claimed = [] if not w.condition_before_difference else ["witness"]
    sequences = _fuzz_sequences(task, effort) + _condition_rollouts(task, effort)
    for i, actions in enumerate(sequences):
        c = play(f"run {i}", actions)
        if c is None:
            continue
        if c.differs_before_trigger:
            early.append(f"run {i}")
        if c.condition_before_difference:
            claimed.append(f"run {i} (holds at {c.condition_step}, "
                           f"first difference {c.first_difference})")
    delay = None if w.trigger_step is None or w.first_difference is None \
        else w.first_difference - w.trigger_step
    observable = delay is not None and 0 <= delay <= MAX_CHANGE_DELAY
    runs = len(sequences)
    return [
        Check("identical_before_trigger", not early,
              {"runs": runs + 1, "differ_early": early[:5]},
              "" if not early else "frames differ from the original before the trigger"),
        Check("change_observable", observable,
              {"trigger_step": w.trigger_step, "first_difference": w.first_difference,
               "delay": delay, "max_delay": MAX_CHANGE_DELAY},
              "" if observable else "no visible difference soon after the trigger"),
        Check("no_crash", not crashes,
              {"runs": runs, "steps": sum(len(a) for a in sequences),
               "crashes": len(crashes)}, "; ".join(crashes[:3])),
        *_condition_checks(task, w, runs + 1, claimed, condition_errors),
    ]


def check_condition_initial(task: CDTask) -> Check:
    name = "condition_false_initially"
    if not task.hidden.condition:
        return Check(name, False, detail=_NO_CONDITION)
    world = make_changed(task.world, task.hidden.program, task.fixed_seed, task.hidden.trigger)
    holds = condition_holds(world.interpreter, task.hidden.condition)
    return Check(name, not holds, {"holds_initially": holds},
                 "" if not holds else "the condition holds on the initial state")


def _condition_checks(task: CDTask, w: Comparison, runs: int, claimed: list[str],
                      errors: list[str]) -> list[Check]:
    """``condition_at_change`` and ``condition_not_early`` from the lock-step runs (``w``:
    the witness's). A condition that fails to evaluate fails ``condition_not_early`` (an
    episode would end in that error), and ``condition_at_change`` if it fails on the witness."""
    names = ("condition_at_change", "condition_not_early")
    if not task.hidden.condition:
        return [Check(n, False, detail=_NO_CONDITION) for n in names]
    lag = None if w.condition_step is None or w.first_difference is None \
        else w.condition_step - w.first_difference
    on_time = lag is not None and 0 <= lag <= MAX_CONDITION_LAG and not w.condition_error
    if w.condition_error:
        why = w.condition_error
    elif lag is None:
        why = ("the condition never holds under the witness" if w.condition_step is None
               else "the witness shows no difference from the original program")
    else:
        why = (f"the condition first holds {abs(lag)} frame(s) "
               f"{'before' if lag < 0 else 'after'} the first difference")
    early = "; ".join(errors[:3]) if errors else (
        "the condition holds before any frame differs from the original program's"
        if claimed else "")
    return [
        Check(names[0], on_time,
              {"condition_step": w.condition_step, "first_difference": w.first_difference,
               "lag": lag, "max_lag": MAX_CONDITION_LAG}, "" if on_time else why),
        Check(names[1], not claimed and not errors,
              {"runs": runs, "holds_early": claimed[:5], "errors": len(errors)}, early),
    ]


def check_modified_loads(task: CDTask) -> Check:
    make_changed(task.world, task.hidden.program, task.fixed_seed, task.hidden.trigger)
    return Check("modified_program_loads", True, {"program": task.hidden.program})


# -- fair under the dice (docs/suite-v2.md) ---------------------------------------------------
def _deterministic(name: str, task) -> Check | None:
    if world_spec(task.world).stochastic:
        return None
    return Check(name, True, {"stochastic": False})


def check_mfp_dice(task: MFPTask, effort: Effort) -> Check:
    """From the last shown frame, the masked steps under ``mfp_draws`` redrawn generators: the
    truth is the most frequent option, its lower bound at least ``MFP_FLOOR`` and at least
    ``MFP_MARGIN`` times the best distractor's upper bound."""
    name = "truth_favoured_by_dice"
    if (done := _deterministic(name, task)) is not None:
        return done
    n = effort.mfp_draws
    d = dice.mfp_distribution(task, dice.draw_states(dice.stream_seed(task.id, "mfp"), n),
                              task.hidden.answer)
    low = dice.lower_bound(d.truth, n, DICE_Z)
    high = dice.upper_bound(d.best_distractor, n, DICE_Z)
    favourite = d.most_frequent() == d.answer
    ok = favourite and low >= MFP_FLOOR and low >= MFP_MARGIN * high
    figures = {"draws": n, "truth": round(d.truth / n, 4),
               "best_distractor": round(d.best_distractor / n, 4),
               "no_option": round(d.other / n, 4), "counts": d.counts,
               "truth_lower": round(low, 4), "distractor_upper": round(high, 4)}
    why = ("" if ok else "another option is produced more often" if not favourite else
           f"the truth is not clearly favoured (lower bound {low:.3f}; needs "
           f">= {MFP_FLOOR} and >= {MFP_MARGIN} x {high:.3f})")
    return Check(name, ok, figures, why)


def _witness_frames(task: CDTask, length: int) -> list:
    """The modified program's grids under the witness padded with noops to ``length``."""
    world = make_changed(task.world, task.hidden.program, task.fixed_seed, task.hidden.trigger)
    return play(world, _padded(task, length))


def _padded(task: CDTask, length: int) -> list[str]:
    witness = list(task.hidden.witness_actions)
    return witness + ["noop"] * max(0, length - len(witness))


def check_cd_change_dice(task: CDTask, effort: Effort) -> Check:
    """The frame at the first difference under the witness, and the ``CHANGE_AFTER`` frames
    after it: the original program, from its state before the first difference, under
    ``cd_draws`` redrawn generators, never shows any of them at its index."""
    name = "change_beyond_chance"
    if (done := _deterministic(name, task)) is not None:
        return done
    first = compare(task, task.hidden.witness_actions).first_difference
    if not first:
        return Check(name, False, {"first_difference": first},
                     "the witness shows no difference after the initial frame")
    n = effort.cd_draws
    actions = _padded(task, first + CHANGE_AFTER)
    changed = _witness_frames(task, first + CHANGE_AFTER)
    world = make(task.world, task.fixed_seed)
    for action in actions[:first - 1]:
        world.step(action)
    before = world.snapshot()
    produced = {str(t): 0 for t in range(first, first + CHANGE_AFTER + 1)}
    for state in dice.draw_states(dice.stream_seed(task.id, "cd-change"), n):
        world.restore(before)
        dice.redraw(world, state)
        for t in range(first, first + CHANGE_AFTER + 1):
            frame, *_ = world.step(actions[t - 1])
            produced[str(t)] += frame.to_rows() == changed[t]
    ok = not any(produced.values())
    return Check(name, ok, {"draws": n, "first_difference": first, "produced": produced,
                            "chance_upper": round(dice.upper_bound(0, n, DICE_Z), 4)},
                 "" if ok else "the original program shows a changed frame under other "
                 "draws (the change looks like chance)")


def check_cd_condition_dice(task: CDTask, effort: Effort) -> Check:
    """The condition never holds on the modified program without its trigger (the original
    behaviour, with every name the condition uses) under the witness and ``cd_draws``
    redrawn generators, evaluated on every frame as the CD phase does."""
    name = "condition_needs_change"
    if (done := _deterministic(name, task)) is not None:
        return done
    if not task.hidden.condition:
        return Check(name, False, detail=_NO_CONDITION)
    n = effort.cd_draws
    world = make_changed(task.world, task.hidden.program, task.fixed_seed, "")
    start = world.snapshot()
    actions = _padded(task, len(task.hidden.witness_actions) + MAX_CHANGE_DELAY)
    held = []
    for i, state in enumerate(dice.draw_states(dice.stream_seed(task.id, "cd-condition"), n)):
        world.restore(start)
        dice.redraw(world, state)
        for t, action in enumerate([None, *actions]):
            if action is not None:
                world.step(action)
            if condition_holds(world.interpreter, task.hidden.condition):
                held.append(f"draw {i} at frame {t}")
                break
    ok = not held
    return Check(name, ok, {"draws": n, "frames": len(actions) + 1, "holds": held[:5]},
                 "" if ok else "the condition holds on the original program under other draws")


def check_planning_dice(task: PlanningTask, effort: Effort) -> Check:
    """A planner that knows the program and the state but not the draws to come
    (``dice.blind_plan_succeeds``) reaches the goal within the horizon in ``plan_redraws``
    worlds redrawn after loading; its one-sided lower bound is at least ``PLAN_FLOOR``."""
    name = "reachable_without_dice"
    if (done := _deterministic(name, task)) is not None:
        return done
    n = effort.plan_redraws
    if n == 0:
        return Check(name, False, {"redraws": 0}, "not run at this effort", skipped=True)
    runs = [dice.blind_plan_succeeds(task, s) for s in _plan_states(task, n)]
    return _planning_dice_check(n, runs)


def _plan_states(task: PlanningTask, n: int) -> list[int]:
    """The generator states of ``reachable_without_dice``'s ``n`` redraws."""
    return dice.draw_states(dice.stream_seed(task.id, "planning"), n)


def _planning_dice_check(n: int, runs: list[tuple[bool, int, int]]) -> Check:
    """``reachable_without_dice`` from its ``n`` redraws' ``blind_plan_succeeds``."""
    name = "reachable_without_dice"
    wins = sum(ok for ok, _, _ in runs)
    low = dice.lower_bound(wins, n, PLAN_Z)
    ok = low >= PLAN_FLOOR
    return Check(name, ok, {"redraws": n, "reached": wins, "lower": round(low, 4),
                            "floor": PLAN_FLOOR, "searches": sum(s for _, _, s in runs),
                            "steps": [t for _, t, _ in runs]},
                 "" if ok else "a planner without the dice does not reach the goal in nearly "
                 "every redraw")


# -- oracle -----------------------------------------------------------------------------------
def check_oracle(task) -> Check:
    name = {"mfp": "oracle_answers", "planning": "oracle_solves", "cd": "oracle_detects"}[
        task.family]
    try:
        from ..agents import OracleAgent
        from ..worldtest import run_episode
    except ImportError as exc:
        return Check(name, False, detail=f"oracle agent not available ({exc})", skipped=True)
    result = run_episode(task, OracleAgent(task))
    ok = result.score == 1.0
    return Check(name, ok, {"score": result.score, "raw_reward": result.raw_reward,
                            "test_steps": result.test.steps},
                 "" if ok else "the oracle agent fails the task")


# -- driver -----------------------------------------------------------------------------------
def validate_task(task, effort: Effort = FULL) -> TaskReport:
    """Run every check of the task's family (a world a check made and let go is reset for
    the next one instead of loaded again: ``trajectory.reusing_worlds``)."""
    with reusing_worlds():
        return _validate_task(task, effort)


def _validate_task(task, effort: Effort) -> TaskReport:
    checks = [_run("seed", check_seed, task)]
    if isinstance(task, PlanningTask):
        checks += [_run("witness_reaches_goal", check_witness_reaches_goal, task),
                   _run("goal_differs_from_initial", check_goal_differs, task),
                   _run("random_below_5pct", check_random_planning, task, effort),
                   _run("reachable_without_dice", check_planning_dice, task, effort)]
    elif isinstance(task, MFPTask):
        checks += [_run("trajectory_replays", check_trajectory, task),
                   _run("mask_is_dynamic", check_mask_dynamic, task),
                   _run("answer_unique", check_answer_unique, task),
                   _run("options_distinct", check_options_distinct, task),
                   _run("random_near_chance", check_random_mfp, task, effort),
                   _run("truth_favoured_by_dice", check_mfp_dice, task, effort)]
    elif isinstance(task, CDTask):
        checks += [_run("modified_program_loads", check_modified_loads, task),
                   _run("trigger_fires", check_trigger, task),
                   _run("condition_false_initially", check_condition_initial, task)]
        try:
            checks += check_before_and_after(task, effort)
        except Exception as exc:   # e.g. the modified program cannot be read
            checks.append(Check("no_crash", False, detail=f"{type(exc).__name__}: {exc}"))
        checks += [_run("change_beyond_chance", check_cd_change_dice, task, effort),
                   _run("condition_needs_change", check_cd_condition_dice, task, effort)]
    if effort.oracle:
        checks.append(_run("oracle", check_oracle, task))
    return TaskReport(task.id, task.world, task.family, tuple(checks))


def validate_tasks(tasks, effort: Effort = FULL) -> list[TaskReport]:
    return [validate_task(t, effort) for t in tasks]


def validate_in_processes(tasks, effort: Effort = FULL, processes: int = 1):
    """``validate_task`` of each task, yielded in the order of ``tasks``, computed by
    ``processes`` worker processes (1: here, one after the other). A report depends only on
    its task and ``effort`` (every random choice is seeded), so it is the same wherever it
    is computed. A stochastic planning task's redraws are units of work of their own
    (``_units``). The longest units start first (``start_rank``), so that no core waits on
    one at the end."""
    from functools import partial

    from ..parallel import map_in_order

    tasks = list(tasks)
    if processes <= 1:
        yield from map_in_order(partial(validate_task, effort=effort), tasks, processes)
        return
    units = _units(tasks, effort)
    results = map_in_order(partial(_run_unit, effort=effort), units, processes,
                           start_order=lambda unit: 0 if unit[0] == "redraw"
                           else start_rank(unit[1]))
    yield from _assemble(tasks, effort, results)


_START_RANKS = {"cd": 0, "planning": 1, "mfp": 2}


def start_rank(task) -> int:
    """When a task's validation starts among others spread over processes (lower first): the
    change-detection tasks (193 s of CPU in suite v1, up to 14 s each), then planning (167 s,
    the oracle's search up to 16 s), then the quick MFP tasks (10 s, under a second each),
    which fill the cores' last gaps. In suite v1 (each task's CPU measured, the two cores' schedule worked out),
    the change-detection tasks first and the rest in suite order ended 5 s after the
    ideal (half the CPU), as wildfire-planning (11 s) came last; this order, 0.1 s after."""
    return _START_RANKS[task.family]


# A stochastic planning task's redraws (``reachable_without_dice``, minutes each in the large
# worlds) are work units of their own, spread over the processes like the tasks: one task's
# redraws no longer keep one core busy while the others wait. Each redraw is a pure function
# of the task and its generator state, so the check assembled from them is the one
# ``validate_task`` computes in one process.
def _split(task, effort: Effort) -> bool:
    return isinstance(task, PlanningTask) and effort.plan_redraws > 0 \
        and world_spec(task.world).stochastic


def _units(tasks, effort: Effort) -> list[tuple]:
    """("task", task) for every task, each followed by ("redraw", task, state) for each of
    its redraws when they are split off."""
    units: list[tuple] = []
    for task in tasks:
        units.append(("task", task))
        if _split(task, effort):
            units += [("redraw", task, state)
                      for state in _plan_states(task, effort.plan_redraws)]
    return units


def _run_unit(unit: tuple, effort: Effort):
    """A task's report (without its split-off redraws), or one redraw's result (its
    exception, when it raised, to be reported as ``_run`` does)."""
    if unit[0] == "task":
        task = unit[1]
        if _split(task, effort):
            effort = replace(effort, plan_redraws=0)
        return validate_task(task, effort)
    try:
        return dice.blind_plan_succeeds(unit[1], unit[2])
    except Exception as exc:   # the check fails with the message, as in one process
        return exc


def _assemble(tasks, effort: Effort, results):
    """The reports of ``tasks`` from the results of ``_units``, in order, with each split
    task's ``reachable_without_dice`` computed from its redraws."""
    results = iter(results)
    name = "reachable_without_dice"
    for task in tasks:
        report = next(results)
        if not _split(task, effort):
            yield report
            continue
        runs = [next(results) for _ in range(effort.plan_redraws)]
        error = next((r for r in runs if isinstance(r, Exception)), None)
        check = (Check(name, False, detail=f"{type(error).__name__}: {error}")
                 if error is not None else _planning_dice_check(effort.plan_redraws, runs))
        yield replace(report, checks=tuple(check if c.name == name else c
                                           for c in report.checks))
