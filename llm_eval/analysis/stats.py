"""Scores with uncertainty: means, cluster-robust errors, bootstrap intervals, paired tests.

Episodes of one world are not independent draws (a world that is easy for a model is easy on
every seed), so intervals are clustered by world.

- ``estimate(scores, clusters)``: the mean; its standard error (plain ``sd / sqrt(n)``
  without clusters; with G >= 2 clusters the cluster-robust ``sqrt(G / (G - 1) * sum_g
  (sum_{i in g} (x_i - mean))^2) / n``, which equals the plain one when every score is its
  own cluster); and a 95% percentile bootstrap interval from ``n_boot`` resamples drawn with
  ``numpy.random.default_rng(seed)`` (the same input gives the same interval). The
  bootstrap is two-stage: clusters are resampled with replacement, then the scores within
  each drawn cluster. Resampling clusters alone would hide the noise within worlds (two
  worlds with equal means would give an interval of width 0); resampling scores alone would
  hide the differences between worlds. Without clusters, or with a single one (then the
  estimate is about that cluster alone), it is the ordinary bootstrap of the scores.
  Choice: a single score has no spread, so its ``se`` and interval are NaN. Equal scores
  give ``se`` 0 and an interval of width 0. With few clusters the cluster-robust error is
  itself unreliable (worlds with equal means give 0 whatever their spread); the interval is
  then the more cautious guide.
- ``aggregate(episodes, by)``: one ``GroupRow`` per value of the ``by`` settings (e.g.
  ``("model", "family")``): the estimate over the scores of the done episodes, clustered by
  world, and how many episodes were infrastructure errors (excluded from the score, counted),
  failures and unfinished (queued or running). ``by=()`` is one overall row.
- ``paired_comparison(a, b)``: arm A against arm B on the same tasks. Done episodes are
  matched on the ``match`` settings (world, family, seed, repeat); episodes of one arm sharing
  a key are averaged into one value (repeats, when ``repeat`` is not a match key). The
  difference is ``b - a``; its interval is the bootstrap of the mean difference clustered by
  world (when ``world`` is a match key), and its p-value a two-sided sign-flip permutation
  test on the pairs (taken as exchangeable under the null): every sign pattern when there are
  at most ``EXACT_MAX_PAIRS`` pairs, else ``n_perm`` random ones with ``p = (1 + hits) /
  (1 + n_perm)``. Episodes without a counterpart in the other arm are counted as unmatched.
  Only repeats of one arm are averaged: episodes of one arm and one task (equal ``match``
  settings) that differ in the model or an ``ARM_SETTINGS`` value are two arms blurred into
  one, an ``AnalysisError`` naming the setting and its values (``mixed_settings`` finds
  them; add the setting to ``match`` to pair like with like).

Setting values become labels with ``setting_label`` (None is ``"none"``), and labels sort
numerically when they are numbers (``natural_key``).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from .data import AnalysisError, Episode

__all__ = ["Estimate", "estimate", "GroupRow", "aggregate", "Comparison", "paired_comparison",
           "sign_flip_p", "setting_label", "natural_key", "by_arm", "arm_labels", "arm_model",
           "arm_key",
           "ARM_SETTINGS", "task_key", "mixed_settings", "mix_text", "EXACT_MAX_PAIRS",
           "CONFIDENCE"]

CONFIDENCE = 0.95
EXACT_MAX_PAIRS = 16          # 2**16 sign patterns: enumerate them all up to here
UNFINISHED = ("queued", "running")


@dataclass(frozen=True)
class Estimate:
    """A mean with its standard error and 95% bootstrap interval (module docstring)."""

    mean: float
    se: float
    ci_low: float
    ci_high: float
    n: int
    n_clusters: int


def setting_label(value: Any) -> str:
    """The text of a setting's value as groups and selections show it (None is ``none``)."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def natural_key(label: str) -> tuple:
    """Sort key putting numbers in numeric order before words (``"50" < "200" < "full"``)."""
    try:
        number = float(label)
    except (TypeError, ValueError):
        return (1, 0.0, str(label))
    return (0, number, str(label)) if math.isfinite(number) else (1, 0.0, str(label))


# the settings that make two episodes of one model different arms of a sweep (per-episode
# identifiers such as world, family, seed and repeat do not)
ARM_SETTINGS = ("protocol", "prompt", "rendering", "history", "interaction_steps", "horizon",
                "max_consecutive_invalid", "ticks_per_action", "reasoning_effort",
                "thinking_budget", "max_output_tokens", "temperature", "tool_mode",
                "agent_tools", "tool_calls_per_episode", "tool_calls_per_turn")
# settings a job leaves out when they have their default (so older job ids stay); a job
# without agent tools reads as the tools' default caps, so only swept caps split arms
SETTING_DEFAULTS = {"protocol": "worldtest", "ticks_per_action": 1, "agent_tools": "none",
                    "tool_calls_per_episode": 40, "tool_calls_per_turn": 4}


def arm_model(model: Any) -> str:
    """The model part of an arm: ``human`` for every participant (``human/<name>``: people
    are one arm, as in the published comparison), else the model itself."""
    from ..sweep.spec import is_human

    model = str(model or "")
    return "human" if is_human(model) else model


def arm_labels(settings: Sequence[dict[str, Any]]) -> list[str]:
    """Each settings' arm: its model (``arm_model``: every participant is ``human``) plus
    every ``ARM_SETTINGS`` value that varies among the settings of that model
    (``openai/m prompt=reflective history=3``); just the model when nothing varies."""
    seen: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for one in settings:
        for key in ARM_SETTINGS:
            seen[arm_model(one.get("model"))][key].add(
                setting_label(one.get(key, SETTING_DEFAULTS.get(key))))
    labels = []
    for one in settings:
        model = arm_model(one.get("model"))
        varying = [k for k in ARM_SETTINGS if len(seen[model][k]) > 1]
        labels.append(" ".join([model] + [
            f"{k}={setting_label(one.get(k, SETTING_DEFAULTS.get(k)))}" for k in varying]))
    return labels


def arm_key(label: Any) -> tuple:
    """Sort key of an arm label: word by word, numbers in numeric order (``steps=5`` before
    ``steps=20``)."""
    return tuple(natural_key(part) for part in str(label).replace("=", " ").split(" "))


def by_arm(episodes: Iterable[Episode]) -> list[Episode]:
    """``episodes`` with each one's ``model`` setting replaced by its arm (``arm_labels``), so
    tables grouped by model keep the arms of a prompt x budget sweep apart."""
    episodes = list(episodes)
    labels = arm_labels([e.settings for e in episodes])
    return [e if label == e.model else replace(e, settings={**e.settings, "model": label})
            for e, label in zip(episodes, labels)]


def estimate(scores: Sequence[float], clusters: Sequence[str] | None = None, *,
             n_boot: int = 2000, seed: int = 0) -> Estimate:
    """Mean, standard error and 95% interval of ``scores`` (module docstring)."""
    values = np.asarray(scores, dtype=float)
    n = len(values)
    if n == 0:
        raise ValueError("estimate() needs at least one score")
    if clusters is not None and len(clusters) != n:
        raise ValueError(f"{len(clusters)} cluster labels for {n} scores")
    mean = float(values.mean())
    n_clusters = len(set(clusters)) if clusters is not None else n
    if n == 1:
        return Estimate(mean, math.nan, math.nan, math.nan, 1, n_clusters)
    if clusters is None or n_clusters < 2:
        sums, counts = values, np.ones(n)
    else:
        index = {c: i for i, c in enumerate(sorted(set(clusters), key=str))}
        sums, counts = np.zeros(len(index)), np.zeros(len(index))
        for value, cluster in zip(values, clusters):
            sums[index[cluster]] += value
            counts[index[cluster]] += 1
    groups = len(sums)
    residuals = sums - counts * mean
    se = math.sqrt(groups / (groups - 1) * float(np.sum(residuals ** 2))) / n
    rng = np.random.default_rng(seed)
    if clusters is None or groups == n:   # one score per cluster: the ordinary bootstrap
        means = values[rng.integers(0, n, size=(n_boot, n))].mean(axis=1)
    else:
        means = _two_stage_means(values, clusters, rng, n_boot)
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return Estimate(mean, se, float(low), float(high), n, n_clusters)


def _two_stage_means(values: np.ndarray, clusters: Sequence[str],
                     rng: np.random.Generator, n_boot: int) -> np.ndarray:
    """Bootstrap means resampling clusters, then the scores within each cluster drawn.

    A cluster drawn ``m`` times contributes ``m * size`` scores drawn from it with
    replacement; their sum is a multinomial count of each score, so one draw per cluster
    covers every resample at once."""
    members: dict[str, list[float]] = defaultdict(list)
    for value, cluster in zip(values, clusters):
        members[cluster].append(value)
    names = sorted(members, key=str)
    draws = rng.integers(0, len(names), size=(n_boot, len(names)))
    chosen = np.stack([np.sum(draws == i, axis=1) for i in range(len(names))], axis=1)
    totals, sizes = np.zeros(n_boot), np.zeros(n_boot)
    for i, name in enumerate(names):
        scores = np.asarray(members[name])
        picks = chosen[:, i] * len(scores)
        counts = rng.multinomial(picks, np.full(len(scores), 1 / len(scores)))
        totals += counts @ scores
        sizes += picks
    return totals / sizes


@dataclass(frozen=True)
class GroupRow:
    """The scores of one group of episodes; ``estimate`` is None when none is done."""

    key: tuple[str, ...]
    by: tuple[str, ...]
    estimate: Estimate | None
    n_done: int
    n_infra_error: int
    n_failed: int
    n_unfinished: int
    n_context: int = 0   # of the done ones, those cut short by the model's context
    n_fatal: int = 0     # refused by the provider for a reason only the user can fix


def aggregate(episodes: Iterable[Episode], by: tuple[str, ...], *, n_boot: int = 2000,
              seed: int = 0) -> list[GroupRow]:
    """One row per value of the ``by`` settings, sorted by key (module docstring)."""
    by = tuple(by)
    groups: dict[tuple[str, ...], list[Episode]] = defaultdict(list)
    for episode in episodes:
        groups[tuple(setting_label(episode.knob(name)) for name in by)].append(episode)
    rows = []
    for key in sorted(groups, key=lambda k: [natural_key(part) for part in k]):
        members = groups[key]
        done = [e for e in members if e.is_done]
        result = (estimate([e.done_score for e in done], [e.world for e in done], n_boot=n_boot,
                           seed=seed) if done else None)
        rows.append(GroupRow(
            key=key, by=by, estimate=result, n_done=len(done),
            n_infra_error=sum(e.is_infra_error for e in members),
            n_failed=sum(e.status == "failed" for e in members),
            n_unfinished=sum(e.status in UNFINISHED for e in members),
            n_context=sum(e.ended_on_context for e in members),
            n_fatal=sum(e.is_fatal for e in members)))
    return rows


@dataclass(frozen=True)
class Comparison:
    """Arm B against arm A on matched tasks; ``mean_diff`` is ``mean_b - mean_a``.

    ``method`` is ``exact``, ``monte-carlo``, or ``none`` when no pair matched (then the
    means, interval and p-value are NaN)."""

    a_label: str
    b_label: str
    n_pairs: int
    mean_a: float
    mean_b: float
    mean_diff: float
    ci_low: float
    ci_high: float
    p_value: float
    method: str
    unmatched: int


def task_key(episode: Episode, match: Sequence[str]) -> tuple[str, ...]:
    """The labels of ``episode``'s ``match`` settings: episodes with equal keys pair up."""
    return tuple(setting_label(episode.knob(k)) for k in match)


def mixed_settings(episodes: Iterable[Episode],
                   match: Sequence[str]) -> dict[str, list[str]]:
    """The settings that make arms (``model`` and ``ARM_SETTINGS``, less the ``match`` keys)
    taking several values among ``episodes`` of one task, each with the values it takes
    there (natural order); empty when each task is played by one arm, repeats aside."""
    keys = [k for k in ("model", *ARM_SETTINGS) if k not in match]
    per_task: dict[tuple, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    for episode in episodes:
        values = per_task[task_key(episode, match)]
        for key in keys:   # participants are one arm: people, not a model each
            value = episode.knob(key)
            values[key].add(arm_model(value) if key == "model" else setting_label(value))
    mixed: dict[str, set[str]] = defaultdict(set)
    for values in per_task.values():
        for key, seen in values.items():
            if len(seen) > 1:
                mixed[key] |= seen
    return {k: sorted(mixed[k], key=natural_key) for k in keys if k in mixed}


def mix_text(mixed: dict[str, list[str]]) -> str:
    """``model=oracle, model=random and prompt=a, prompt=b`` for ``mixed_settings``."""
    return " and ".join(", ".join(f"{k}={v}" for v in values) for k, values in mixed.items())


def _cells(episodes: Iterable[Episode], match: tuple[str, ...]) -> dict[tuple, list[float]]:
    cells: dict[tuple, list[float]] = defaultdict(list)
    for episode in episodes:
        if episode.is_done:
            cells[task_key(episode, match)].append(episode.done_score)
    return cells


def paired_comparison(a: list[Episode], b: list[Episode], *,
                      match: tuple[str, ...] = ("world", "family", "seed", "repeat"),
                      a_label: str = "A", b_label: str = "B", n_boot: int = 2000,
                      n_perm: int = 10000, seed: int = 0) -> Comparison:
    """Arm ``b`` against arm ``a`` on the tasks both played (module docstring); an
    AnalysisError when an arm holds two arms' episodes of one task."""
    match = tuple(match)
    for label, arm in ((a_label, a), (b_label, b)):
        mixed = mixed_settings(arm, match)
        if mixed:
            raise AnalysisError(f"arm {label} mixes {mix_text(mixed)} on the same tasks "
                                f"({', '.join(match)}); select one, or match on "
                                f"{next(iter(mixed))} too")
    cells_a, cells_b = _cells(a, match), _cells(b, match)
    keys = sorted(cells_a.keys() & cells_b.keys(),
                  key=lambda k: [natural_key(part) for part in k])
    unmatched = (sum(len(v) for k, v in cells_a.items() if k not in cells_b)
                 + sum(len(v) for k, v in cells_b.items() if k not in cells_a))
    if not keys:
        nan = math.nan
        return Comparison(a_label, b_label, 0, nan, nan, nan, nan, nan, nan, "none", unmatched)
    scores_a = np.array([np.mean(cells_a[k]) for k in keys])
    scores_b = np.array([np.mean(cells_b[k]) for k in keys])
    diffs = scores_b - scores_a
    clusters = [k[match.index("world")] for k in keys] if "world" in match else None
    interval = estimate(diffs, clusters, n_boot=n_boot, seed=seed)
    p_value, method = sign_flip_p(diffs, n_perm=n_perm, seed=seed)
    return Comparison(a_label, b_label, len(keys), float(scores_a.mean()),
                      float(scores_b.mean()), interval.mean, interval.ci_low,
                      interval.ci_high, p_value, method, unmatched)


def sign_flip_p(diffs: Sequence[float], *, n_perm: int = 10000,
                seed: int = 0) -> tuple[float, str]:
    """Two-sided sign-flip permutation p-value of ``mean(diffs) == 0`` and the method used.

    The statistic is ``|mean|``; a pattern counts when it is at least the observed one.
    """
    d = np.asarray(diffs, dtype=float)
    n = len(d)
    if n == 0:
        return math.nan, "none"
    observed = abs(d.mean())
    tolerance = 1e-12 * max(1.0, observed)
    if n <= EXACT_MAX_PAIRS:
        patterns = (np.arange(2 ** n)[:, None] >> np.arange(n)) & 1
        stats = np.abs((1 - 2 * patterns) @ d) / n
        return float(np.mean(stats >= observed - tolerance)), "exact"
    rng = np.random.default_rng(seed)
    hits, left = 0, n_perm
    while left > 0:   # in chunks, so a long list of pairs does not need a huge matrix
        size = min(left, 2000)
        signs = rng.choice(np.array([-1.0, 1.0]), size=(size, n))
        hits += int(np.sum(np.abs(signs @ d) / n >= observed - tolerance))
        left -= size
    return (1 + hits) / (1 + n_perm), "monte-carlo"
