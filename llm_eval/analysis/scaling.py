"""Compute scaling (docs/spec/worldtest.md 8): does more realised compute buy a better score, and did
each compute knob change what the provider did?

Curves. ``scaling_curves(episodes, measure)`` places every done episode whose realised
compute is recorded and positive (``compute_of``: ``total_tokens`` = input + output tokens,
``reasoning_tokens``, or ``cost_usd``; random and oracle record none) at ``(x, score)``, and
builds one ``Curve`` per world plus the overall one (``world == "all"``, first):

- ``slope``: the least-squares slope of score on ``log10(x)`` (compute spans orders of
  magnitude between models and budgets, so a tenfold increase is one unit), with a 95%
  bootstrap interval (``slope_low``, ``slope_high``) resampling worlds for the overall curve
  and episodes within a world (seeded, so deterministic);
- ``effect``: the score change the slope predicts over the observed range,
  ``slope * (log10 max x - log10 min x)``;
- ``verdict``: ``helps`` when the slope's interval lies above 0 and ``effect >=
  MIN_EFFECT``; ``hurts`` when it lies below 0 and ``effect <= -MIN_EFFECT``; ``flat``
  otherwise; ``unknown`` with fewer than ``MIN_POINTS`` points or a single compute value;
- ``band``: the points sorted by x and cut into ``min(BAND_BINS, n // MIN_PER_BIN)`` (at
  least one) bins of near-equal count, equal x values kept in one bin; per bin ``(median x,
  mean score, 95% low, 95% high)`` from ``stats.estimate`` (clustered by world overall).

``trend_summary(curves)`` counts the per-world verdicts (the published study: more compute
helped in 25 of 43 worlds).

Knobs. ``knob_checks(episodes)`` asks, for every model and every compute knob of
``KNOB_METRICS`` with at least two values among its done episodes, whether the metric the
knob should move differs between the knob's values: the token metrics per model call (from
the usage the store recorded), ``actions`` as the interaction actions of the transcript, and
for the history window the input tokens at the same call (the last one every episode of the
stratum made; from the transcripts), since a window only shows once the history is longer. The
test is a permutation test of the Kruskal-Wallis statistic on ranks (``N_PERM`` seeded label
shuffles, ``p = (1 + hits) / (1 + N_PERM)``); ``changed`` when ``p < ALPHA``. The other
settings are held fixed: labels are shuffled only among episodes that share every other knob,
the task (world and family), the prompt and the rendering (``STRATA``), and ranks are taken
within those strata, so a second knob varied in the same sweep cannot pass for an effect of
the first, and a large grid's long prompts do not drown a small one's difference. Identical
values everywhere cannot differ (``changed`` False, said so), and too few episodes to reach
``ALPHA`` at all are said so too: such a knob is flagged, not silently trusted.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .data import AnalysisError, Episode
from .stats import estimate, natural_key, setting_label

__all__ = ["MEASURES", "TREND_RULE", "MIN_EFFECT", "MIN_POINTS", "BAND_BINS", "MIN_PER_BIN",
           "OVERALL", "KNOB_METRICS", "ALPHA", "N_PERM", "Curve", "compute_of",
           "scaling_curves", "trend_summary", "KnobCheck", "knob_checks"]

MEASURES = ("total_tokens", "reasoning_tokens", "cost_usd")
OVERALL = "all"
MIN_EFFECT = 0.05       # the smallest score change over the observed range that counts
MIN_POINTS = 3
BAND_BINS = 8
MIN_PER_BIN = 5
SLOPE_BOOT = 1000
VERDICTS = ("helps", "flat", "hurts", "unknown")
TREND_RULE = (f"A world's verdict is 'helps' when the 95% bootstrap interval of the slope of "
              f"score on log10(compute) lies above 0 and the predicted score change over the "
              f"observed compute range is at least {MIN_EFFECT}; 'hurts' when the interval "
              f"lies below 0 and the change is at most -{MIN_EFFECT}; 'flat' otherwise; "
              f"'unknown' with fewer than {MIN_POINTS} episodes or a single compute value.")

KNOB_METRICS = {"reasoning_effort": "reasoning_tokens", "thinking_budget": "reasoning_tokens",
                "max_output_tokens": "output_tokens", "history": "input_tokens_at_call",
                "interaction_steps": "actions"}
AT_CALL = "input_tokens_at_call"   # from transcripts: see _at_common_call
ALPHA = 0.05
N_PERM = 5000
STRATA = ("world", "family", "prompt", "rendering", "tool_mode", "temperature")   # + knobs
_EFFORTS = ("minimal", "low", "medium", "high", "xhigh", "max")


def compute_of(episode: Episode, measure: str) -> float | None:
    """The realised compute of ``episode`` by ``measure`` (None when not recorded)."""
    match measure:
        case "total_tokens":
            return episode.total_tokens
        case "reasoning_tokens":
            return episode.reasoning_tokens
        case "cost_usd":
            return episode.cost_usd
    raise AnalysisError(f"unknown compute measure {measure!r}; choose one of "
                        f"{', '.join(MEASURES)}")


@dataclass(frozen=True)
class Curve:
    """Score against one compute measure in one world (or ``all``); module docstring."""

    world: str
    measure: str
    points: list[tuple[float, float]]
    band: list[tuple[float, float, float, float]]
    slope: float
    verdict: str
    slope_low: float = math.nan
    slope_high: float = math.nan
    effect: float = math.nan
    n_excluded: int = 0          # done episodes without a positive compute value


def scaling_curves(episodes: Iterable[Episode], measure: str) -> list[Curve]:
    """The overall curve, then one per world in name order (module docstring)."""
    placed: list[tuple[float, float, str]] = []
    excluded: dict[str, int] = defaultdict(int)
    for episode in episodes:
        if not episode.is_done:
            continue
        x = compute_of(episode, measure)
        if x is None or not x > 0:
            excluded[episode.world] += 1
            continue
        placed.append((float(x), float(episode.done_score), episode.world))
    if not placed:
        return []
    worlds = sorted({w for _, _, w in placed})
    curves = [_curve(OVERALL, measure, placed, sum(excluded.values()))]
    for world in worlds:
        curves.append(_curve(world, measure, [p for p in placed if p[2] == world],
                             excluded[world]))
    return curves


def _curve(world: str, measure: str, placed: list[tuple[float, float, str]],
           n_excluded: int) -> Curve:
    placed = sorted(placed, key=lambda p: (p[0], p[1], p[2]))
    xs = np.array([p[0] for p in placed])
    ys = np.array([p[1] for p in placed])
    clusters = [p[2] for p in placed] if world == OVERALL else None
    points = [(float(x), float(y)) for x, y in zip(xs, ys)]
    band = _band(placed, overall=world == OVERALL)
    if len(placed) < MIN_POINTS or xs.min() == xs.max():
        return Curve(world, measure, points, band, math.nan, "unknown", n_excluded=n_excluded)
    u = np.log10(xs)
    slope = _slope(u, ys)
    low, high = _slope_interval(u, ys, clusters)
    effect = slope * float(u.max() - u.min())
    if low > 0 and effect >= MIN_EFFECT:
        verdict = "helps"
    elif high < 0 and effect <= -MIN_EFFECT:
        verdict = "hurts"
    else:
        verdict = "flat"
    return Curve(world, measure, points, band, slope, verdict, low, high, effect, n_excluded)


def _slope(u: np.ndarray, y: np.ndarray) -> float:
    spread = float(np.sum((u - u.mean()) ** 2))
    return float(np.sum((u - u.mean()) * (y - y.mean())) / spread) if spread > 0 else math.nan


def _slope_interval(u: np.ndarray, y: np.ndarray,
                    clusters: Sequence[str] | None) -> tuple[float, float]:
    """95% bootstrap interval of the slope, resampling clusters (or points) from sufficient
    statistics, so each resample costs one sum."""
    labels = clusters if clusters is not None and len(set(clusters)) >= 2 else range(len(u))
    index = {c: i for i, c in enumerate(sorted(set(labels), key=str))}
    stats = np.zeros((len(index), 5))   # n, sum u, sum y, sum uu, sum uy
    for ui, yi, label in zip(u, y, labels):
        stats[index[label]] += (1.0, ui, yi, ui * ui, ui * yi)
    rng = np.random.default_rng(0)
    draws = rng.integers(0, len(index), size=(SLOPE_BOOT, len(index)))
    n, su, sy, suu, suy = stats[draws].sum(axis=1).T
    spread = suu - su * su / n
    with np.errstate(divide="ignore", invalid="ignore"):
        slopes = np.where(spread > 1e-12, (suy - su * sy / n) / spread, np.nan)
    slopes = slopes[np.isfinite(slopes)]
    if len(slopes) < SLOPE_BOOT // 2:   # mostly degenerate resamples: no interval
        return math.nan, math.nan
    low, high = np.percentile(slopes, [2.5, 97.5])
    return float(low), float(high)


def _band(placed: list[tuple[float, float, str]],
          overall: bool) -> list[tuple[float, float, float, float]]:
    n = len(placed)
    bins = max(1, min(BAND_BINS, n // MIN_PER_BIN))
    band, start = [], 0
    for i in range(1, bins + 1):
        end = round(i * n / bins)
        while 0 < end < n and placed[end][0] == placed[end - 1][0]:
            end += 1          # equal x values stay together
        if end <= start:
            continue
        members = placed[start:end]
        result = estimate([p[1] for p in members],
                          [p[2] for p in members] if overall else None, n_boot=1000)
        band.append((float(np.median([p[0] for p in members])), result.mean, result.ci_low,
                     result.ci_high))
        start = end
    return band


def trend_summary(curves: Iterable[Curve]) -> dict[str, int]:
    """How many worlds (the overall curve left out) each verdict got: ``helps``, ``flat``,
    ``hurts`` and ``unknown``."""
    counts = dict.fromkeys(VERDICTS, 0)
    for curve in curves:
        if curve.world != OVERALL:
            counts[curve.verdict] += 1
    return counts


@dataclass(frozen=True)
class KnobCheck:
    """Whether one model's knob moved its metric (module docstring). ``values`` are the
    knob's settings seen, low to high (None: the provider's default)."""

    knob: str
    values: tuple[Any, ...]
    metric: str
    changed: bool
    detail: str
    model: str = ""
    p_value: float = math.nan


def knob_checks(episodes: Iterable[Episode], *, seed: int = 0) -> list[KnobCheck]:
    """One check per model and compute knob with two or more values (module docstring)."""
    by_model: dict[str, list[Episode]] = defaultdict(list)
    for episode in episodes:
        if episode.is_done:
            by_model[episode.model].append(episode)
    checks = []
    for model in sorted(by_model):
        for knob, metric in KNOB_METRICS.items():
            groups: dict[Any, list[float]] = defaultdict(list)
            strata: dict[Any, list[Any]] = defaultdict(list)
            others = [k for k in KNOB_METRICS if k != knob] + list(STRATA)
            chosen = [e for e in by_model[model] if knob in e.settings]
            keys = [tuple(_hashable(e.knob(k)) for k in others) for e in chosen]
            values = _at_common_call(chosen, keys) if metric == AT_CALL else \
                [_metric(e, metric) for e in chosen]
            for episode, stratum, value in zip(chosen, keys, values):
                if value is not None:
                    level = _hashable(episode.knob(knob))
                    groups[level].append(value)
                    strata[level].append(stratum)
            if len(groups) >= 2:
                checks.append(_check(model, knob, metric, groups, seed, strata))
    return checks


def _hashable(value: Any) -> Any:
    return value if isinstance(value, (str, int, float, type(None))) else str(value)


def _call_inputs(episode: Episode) -> list[int] | None:
    """The input tokens of each model call of ``episode``, in order (None without a readable
    transcript)."""
    from ..transcripts import TranscriptError
    from .behaviour import behaviour_of

    if episode.transcript is None or not episode.transcript.is_file():
        return None
    try:
        return behaviour_of(episode.transcript).call_input_tokens
    except (OSError, TranscriptError):
        return None


def _at_common_call(episodes: Sequence[Episode], strata: Sequence[Any]) -> list[float | None]:
    """Each episode's input tokens at the last call every episode of its stratum made: a
    history window shows at the same step, whatever the episodes' lengths (a mean per call
    would mix early, short prompts of long episodes with late ones of short episodes)."""
    inputs = [_call_inputs(e) for e in episodes]
    common: dict[Any, int] = {}
    for stratum, calls in zip(strata, inputs):
        if calls:
            common[stratum] = min(common.get(stratum, len(calls)), len(calls))
    return [float(calls[common[stratum] - 1]) if calls else None
            for stratum, calls in zip(strata, inputs)]


def _metric(episode: Episode, metric: str) -> float | None:
    if metric == "actions":
        from .behaviour import behaviour_of

        if episode.transcript is None or not episode.transcript.is_file():
            return None
        return float(behaviour_of(episode.transcript).actions)
    calls = episode.tokens("calls")
    value = episode.tokens(metric)
    return value / calls if calls and value is not None else None


def _order(value: Any) -> tuple:
    """Low to high: the default (None) first, then efforts in their order, numbers, words,
    and ``full`` (the whole history) last."""
    if value is None:
        return (0, 0.0, "")
    if value in _EFFORTS:
        return (1, float(_EFFORTS.index(value)), "")
    if value == "full":
        return (4, 0.0, "")
    number = natural_key(setting_label(value))
    return (2, number[1], "") if number[0] == 0 else (3, 0.0, str(value))


def _check(model: str, knob: str, metric: str, groups: dict[Any, list[float]],
           seed: int, strata: dict[Any, list[Any]] | None = None) -> KnobCheck:
    values = tuple(sorted(groups, key=_order))
    medians = ", ".join(f"{_number(float(np.median(groups[v])))} at {setting_label(v)}"
                        for v in values)
    what = f"{model}: " + {"actions": "actions in the interaction phase",
                           AT_CALL: "input tokens at the last call all episodes of a task "
                                    "reached"}.get(metric, f"{metric.replace('_', ' ')} per call")
    sample = [x for v in values for x in groups[v]]
    if len(set(sample)) == 1:
        actor = "agent" if metric == "actions" else "provider"
        return KnobCheck(knob, values, metric, False,
                         f"{what}: median {medians}; identical everywhere, so the setting "
                         f"did not change what the {actor} did", model, 1.0)
    p_value = _permutation_p([groups[v] for v in values], seed,
                             [strata[v] for v in values] if strata else None)
    if p_value < ALPHA:
        verdict = f"the distributions differ (permutation p={p_value:.3g})"
    elif _arrangements([len(groups[v]) for v in values]) < 2 / ALPHA:
        verdict = (f"too few episodes ({len(sample)}) for a test to show a difference "
                   f"(p={p_value:.3g}); not shown to change")
    else:
        verdict = f"no difference shown (permutation p={p_value:.3g})"
    return KnobCheck(knob, values, metric, p_value < ALPHA, f"{what}: median {medians}; "
                     f"{verdict}", model, p_value)


def _number(value: float) -> str:
    return f"{value:.0f}" if abs(value) >= 100 or value == int(value) else f"{value:.3g}"


def _ranks(values: np.ndarray) -> np.ndarray:
    """Ranks from 1, ties sharing their average rank."""
    order = np.argsort(values, kind="stable")
    ranks = np.empty(len(values))
    sorted_values = values[order]
    start = 0
    for end in range(1, len(values) + 1):
        if end == len(values) or sorted_values[end] != sorted_values[start]:
            ranks[order[start:end]] = (start + end + 1) / 2
            start = end
    return ranks


def _permutation_p(samples: list[list[float]], seed: int,
                   strata: list[list[Any]] | None = None) -> float:
    """Permutation p-value of the Kruskal-Wallis statistic: do the samples differ? With
    ``strata`` (a label per value), labels are shuffled only within a stratum."""
    values = np.concatenate([np.asarray(s, dtype=float) for s in samples])
    labels = np.concatenate([np.full(len(s), k) for k, s in enumerate(samples)])
    where = None
    ranks = _ranks(values)
    if strata is not None:
        flat = [label for group in strata for label in group]
        index: dict[Any, list[int]] = defaultdict(list)
        for i, label in enumerate(flat):
            index[label].append(i)
        where = [np.array(ix) for ix in index.values() if len(ix) > 1]
        # ranks within each stratum, scaled to (0, 1): differences between strata (one world's
        # longer prompts) are held fixed by the shuffles and would only add noise
        for ix in map(np.array, index.values()):
            ranks[ix] = _ranks(values[ix]) / (len(ix) + 1)
    sizes = np.array([len(s) for s in samples], dtype=float)

    def statistic(assignments: np.ndarray) -> np.ndarray:
        # sum over groups of (rank sum)^2 / size: Kruskal-Wallis H up to constants
        total = np.zeros(assignments.shape[0])
        for k, size in enumerate(sizes):
            total += ((assignments == k) @ ranks) ** 2 / size
        return total

    observed = statistic(labels[None, :])[0]
    rng = np.random.default_rng(seed)
    hits, left = 0, N_PERM
    while left > 0:   # in chunks, so many episodes do not need a huge matrix
        size = min(left, 1000)
        if where is None:
            shuffled = rng.permuted(np.tile(labels, (size, 1)), axis=1)
        else:
            shuffled = np.tile(labels, (size, 1))
            for ix in where:
                shuffled[:, ix] = rng.permuted(shuffled[:, ix], axis=1)
        hits += int(np.sum(statistic(shuffled) >= observed - 1e-9 * max(1.0, observed)))
        left -= size
    return (1 + hits) / (1 + N_PERM)


def _arrangements(sizes: Sequence[int]) -> int:
    """How many distinct ways the pooled episodes split into groups of these sizes (the
    exact test's smallest p-value is about 2 over this)."""
    count, pooled = 1, 0
    for size in sizes:
        pooled += size
        count *= math.comb(pooled, size)
    return count
