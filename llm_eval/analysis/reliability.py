"""Reliability over seeds: pass@k and pass^k per task and per arm, with intervals.

A mean over seeds hides reliability: an agent that solves a task in one seed of three is not
one that solves a third of every task. For each task (world and family) of an arm, with ``n``
done episodes (its seeds and repeats) of which ``c`` succeeded:

- pass@k = 1 - C(n-c, k) / C(n, k): the chance that at least one of k episodes drawn without
  replacement from the n succeeds (the unbiased estimator of Chen et al. 2021);
- pass^k = C(c, k) / C(n, k): the chance that all k succeed (every one of k tries works).

Both need ``n >= k``; a task with fewer done episodes is left out of that k and counted
(``skipped``). Success is a score strictly above the family's threshold
(``SUCCESS_THRESHOLDS``): 0.5 for every family, since MFP and planning score 0 or 1 and a
change-detection score above 0.5 is a detection at the change or soon after it (scoring.py),
a late one decays below it. Episodes not done (infrastructure errors, fatal, failed) are
never counted, as elsewhere.

Intervals (95%): per task, a bootstrap of the task's episodes (resampled n of n, the
estimator recomputed); per arm, the mean over tasks with ``stats.estimate`` clustered by
world (the same two-stage bootstrap as every other table). All seeded: the same episodes give
the same figures.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from .data import AnalysisError

__all__ = ["SUCCESS_THRESHOLDS", "DEFAULT_KS", "pass_at_k", "pass_hat_k", "TaskReliability",
           "ArmReliability", "reliability", "succeeded", "format_reliability",
           "reliability_json"]

SUCCESS_THRESHOLDS = {"mfp": 0.5, "cd": 0.5, "planning": 0.5}
DEFAULT_KS = (1, 2, 3)
N_BOOT = 2000


def pass_at_k(n: int, c: int, k: int) -> float:
    """1 - C(n-c, k) / C(n, k) (``ValueError`` unless 0 <= c <= n and 1 <= k <= n)."""
    _check(n, c, k)
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """C(c, k) / C(n, k) (``ValueError`` unless 0 <= c <= n and 1 <= k <= n)."""
    _check(n, c, k)
    return math.comb(c, k) / math.comb(n, k)


def _check(n: int, c: int, k: int) -> None:
    if not (0 <= c <= n and 1 <= k <= n):
        raise ValueError(f"pass@k needs 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")


def succeeded(episode: Any) -> bool:
    """Whether a done episode's score is above its family's threshold (an AnalysisError for
    a family with no stated threshold)."""
    threshold = SUCCESS_THRESHOLDS.get(episode.family)
    if threshold is None:
        raise AnalysisError(f"episode {episode.job_id}: family {episode.family!r} has no "
                            f"success threshold (known: {', '.join(SUCCESS_THRESHOLDS)})")
    return episode.score > threshold


@dataclass(frozen=True)
class TaskReliability:
    arm: str
    world: str
    family: str
    k: int
    n: int
    c: int
    pass_at_k: float
    pass_at_k_ci: tuple[float, float]
    pass_hat_k: float
    pass_hat_k_ci: tuple[float, float]


@dataclass(frozen=True)
class ArmReliability:
    arm: str
    k: int
    tasks: int             # tasks with at least k done episodes
    skipped: int           # tasks with fewer
    pass_at_k: float
    pass_at_k_ci: tuple[float, float]
    pass_hat_k: float
    pass_hat_k_ci: tuple[float, float]


def _task_interval(outcomes: np.ndarray, k: int, estimator, rng) -> tuple[float, float]:
    n = len(outcomes)
    if n < 2:
        return (math.nan, math.nan)
    draws = outcomes[rng.integers(0, n, size=(N_BOOT, n))].sum(axis=1)
    values = [estimator(n, int(c), k) for c in draws]
    low, high = np.percentile(values, [2.5, 97.5])
    return (float(low), float(high))


def reliability(arms: dict[str, Sequence[Any]], ks: Iterable[int] = DEFAULT_KS, *,
                seed: int = 0) -> tuple[list[TaskReliability], list[ArmReliability]]:
    """pass@k and pass^k for every task and arm of ``arms`` (label -> episodes) and each k."""
    from .stats import estimate, natural_key

    ks = sorted(set(ks))
    if not ks or ks[0] < 1:
        raise AnalysisError(f"k must be at least 1, got {', '.join(map(str, ks)) or 'none'}")
    task_rows: list[TaskReliability] = []
    arm_rows: list[ArmReliability] = []
    for arm, episodes in arms.items():
        tasks: dict[tuple[str, str], list[bool]] = defaultdict(list)
        for e in episodes:
            if e.is_done:
                tasks[(e.world, e.family)].append(succeeded(e))
        order = sorted(tasks, key=lambda t: (natural_key(t[0]), t[1]))
        for k in ks:
            rng = np.random.default_rng(seed)
            mine = []
            for world, family in order:
                outcomes = np.asarray(tasks[(world, family)], dtype=int)
                n, c = len(outcomes), int(outcomes.sum())
                if n < k:
                    continue
                row = TaskReliability(
                    arm, world, family, k, n, c,
                    pass_at_k(n, c, k), _task_interval(outcomes, k, pass_at_k, rng),
                    pass_hat_k(n, c, k), _task_interval(outcomes, k, pass_hat_k, rng))
                mine.append(row)
            task_rows += mine
            if not mine:
                arm_rows.append(ArmReliability(arm, k, 0, len(order), math.nan,
                                               (math.nan, math.nan), math.nan,
                                               (math.nan, math.nan)))
                continue
            worlds = [r.world for r in mine]
            at = estimate([r.pass_at_k for r in mine], worlds, seed=seed)
            hat = estimate([r.pass_hat_k for r in mine], worlds, seed=seed)
            arm_rows.append(ArmReliability(arm, k, len(mine), len(order) - len(mine),
                                           at.mean, (at.ci_low, at.ci_high), hat.mean,
                                           (hat.ci_low, hat.ci_high)))
    return task_rows, arm_rows


def _num(value: float) -> float | None:
    return None if math.isnan(value) else round(value, 6)


def reliability_json(task_rows: Sequence[TaskReliability],
                     arm_rows: Sequence[ArmReliability]) -> dict[str, Any]:
    """The figures as JSON-ready data (NaN as null), with the thresholds they used."""
    def clean(row) -> dict[str, Any]:
        data = asdict(row)
        return {key: ([_num(v) for v in value] if isinstance(value, tuple)
                      else _num(value) if isinstance(value, float) else value)
                for key, value in data.items()}
    return {"success_thresholds": dict(SUCCESS_THRESHOLDS),
            "success": "score > threshold of the episode's family",
            "arms": [clean(r) for r in arm_rows], "tasks": [clean(r) for r in task_rows]}


def _cell(value: float, interval: tuple[float, float]) -> str:
    if math.isnan(value):
        return "-"
    if math.isnan(interval[0]):
        return f"{value:.3f}"
    return f"{value:.3f} [{interval[0]:.2f}, {interval[1]:.2f}]"


def format_reliability(arm_rows: Sequence[ArmReliability]) -> str:
    """An aligned table: one line per arm and k."""
    table = [("arm", "k", "tasks", "pass@k [95% CI]", "pass^k [95% CI]", "tasks with n < k")]
    for r in arm_rows:
        table.append((r.arm, str(r.k), str(r.tasks), _cell(r.pass_at_k, r.pass_at_k_ci),
                      _cell(r.pass_hat_k, r.pass_hat_k_ci), str(r.skipped)))
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    lines = ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                       for i, (cell, w) in enumerate(zip(line, widths))).rstrip()
             for line in table]
    thresholds = ", ".join(f"{f} > {t}" for f, t in SUCCESS_THRESHOLDS.items())
    return "\n".join(["reliability over seeds (success: score " + thresholds + "):", *lines])
