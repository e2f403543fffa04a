"""The report's plots as PNG bytes (matplotlib, Agg canvas, no pyplot state).

- ``family_scores_png``: mean score per family (and overall) for each model, 95% CI bars;
- ``scaling_png``: score against realised compute, one panel per world plus the overall
  panel, with the confidence band and the fitted trend's verdict;
- ``behaviour_png``: reset share, LCS ratio, invalid-action rate and rule coverage per model.

Figures are built on a private ``Figure`` with a fixed style, and saved without the
``Software`` tag or any date, so the same data gives the same bytes.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:   # matplotlib is imported only when a figure is drawn
    from matplotlib.typing import RcKeyType

__all__ = ["family_scores_png", "scaling_png", "behaviour_png", "MEASURE_LABELS",
           "BEHAVIOUR_MEASURES", "MANY_ARMS", "model_colours", "is_overall"]

MEASURE_LABELS = {"total_tokens": "tokens per episode (input + output)",
                  "reasoning_tokens": "reasoning tokens per episode",
                  "cost_usd": "cost per episode (USD)"}
BEHAVIOUR_MEASURES = (("reset_share", "reset share of actions"),
                      ("lcs_mean", "LCS ratio around resets"),
                      ("invalid_rate", "invalid-action rate"),
                      ("coverage", "rule coverage"))
_STYLE: dict[RcKeyType, Any] = {
    "font.family": "DejaVu Sans", "font.size": 9, "axes.titlesize": 10, "axes.grid": True,
    "grid.alpha": 0.3, "svg.hashsalt": "llm-eval-report", "path.simplify": False,
    "figure.dpi": 100, "savefig.dpi": 100}
_PALETTE = ("#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3",
            "#8c8c8c", "#ccb974", "#64b5cd")


MANY_ARMS = 8   # beyond this, arms are rows (a forest of intervals), not grouped bars


def _label(text: object, limit: int = 40) -> str:
    """Text for matplotlib as written: a ``$`` would start mathtext (and can fail to parse)."""
    text = str(text)
    if len(text) > limit:   # a long name would squeeze the axes to nothing
        text = text[:limit - 1] + "\u2026"
    return text.replace("$", r"\$")


def _arm_label(text: object) -> str:
    """An arm's full name over as many lines as it needs (``model k=v k=v ...``)."""
    import textwrap

    return "\n".join(_label(line, 200) for line in textwrap.wrap(str(text), 60)) or "-"


def model_colours(models: Sequence[str]) -> dict[str, str]:
    """One fixed colour per model, by its position in ``models``; distinct for up to 60
    (matplotlib's tab20 maps after the report's own ten)."""
    palette = list(_PALETTE)
    if len(models) > len(palette):
        from matplotlib import colormaps
        from matplotlib.colors import to_hex

        palette += [to_hex(colormaps[name](k / 20)) for name in ("tab20", "tab20b", "tab20c")
                    for k in range(20)]
    return {m: palette[i % len(palette)] for i, m in enumerate(models)}


def _figure(width: float, height: float):
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    with matplotlib.rc_context(_STYLE):
        figure = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _png(figure) -> bytes:
    import matplotlib

    out = io.BytesIO()
    with matplotlib.rc_context(_STYLE):
        figure.savefig(out, format="png", metadata={"Software": None})
    return out.getvalue()


def _styled(build):
    """Run ``build`` under the report's style, so fonts and grids do not depend on rcParams."""
    import matplotlib

    def wrapper(*args, **kwargs):
        with matplotlib.rc_context(_STYLE):
            return build(*args, **kwargs)
    wrapper.__doc__ = build.__doc__
    wrapper.__name__ = build.__name__
    return wrapper


@_styled
def family_scores_png(models: Sequence[str], families: Sequence[str],
                      estimates: Mapping[tuple[str, str], tuple[float, float, float]]) -> bytes:
    """Grouped bars: for each family (x), one bar per model at its mean with its 95% CI.

    ``estimates[(model, family)] = (mean, ci_low, ci_high)``; a missing pair draws no bar.
    More than ``MANY_ARMS`` models: one panel per family, one row per model (each full name
    on the left), a dot at the mean and a line for the interval.
    """
    if len(models) > MANY_ARMS:
        return _family_forest(models, families, estimates)
    width = max(6.5, 1.2 + 0.45 * len(families) * max(1, len(models)))
    figure = _figure(min(width, 14.0), 3.6)
    axes = figure.add_subplot()
    colours = model_colours(models)
    bar = 0.8 / max(1, len(models))
    for i, model in enumerate(models):
        xs, means, below, above = [], [], [], []
        for j, family in enumerate(families):
            value = estimates.get((model, family))
            if value is None:
                continue
            mean, low, high = value
            xs.append(j - 0.4 + bar * (i + 0.5))
            means.append(mean)
            below.append(max(0.0, mean - low) if _finite(low) else 0.0)
            above.append(max(0.0, high - mean) if _finite(high) else 0.0)
        axes.bar(xs, means, width=bar * 0.9, color=colours[model], label=_label(model),
                 yerr=[below, above], capsize=3, error_kw={"elinewidth": 1})
    axes.set_xticks(range(len(families)), [_label(f) for f in families])
    axes.set_ylim(0, 1.05)
    axes.set_ylabel("score (mean, 95% CI)")
    axes.set_title("Score per test family")
    if models:
        axes.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _png(figure)


def _rows_figure(models: Sequence[str], panels: int):
    """A figure of ``panels`` side by side sharing one row per model, named on the left (the
    first model on top); its panels and the models' colours."""
    labels = [_arm_label(m) for m in models]
    lines = sum(label.count("\n") + 1 for label in labels)
    figure = _figure(3.0 + 2.2 * panels, 1.2 + 0.16 * lines + 0.1 * len(models))
    grid = figure.subplots(1, panels, squeeze=False, sharey=True)
    first = grid.flat[0]
    first.set_yticks(range(len(models)), labels, fontsize=7)
    first.set_ylim(len(models) - 0.5, -0.5)
    return figure, list(grid.flat), model_colours(models)


def _family_forest(models: Sequence[str], families: Sequence[str],
                   estimates: Mapping[tuple[str, str], tuple[float, float, float]]) -> bytes:
    figure, panels, colours = _rows_figure(models, len(families))
    for axes, family in zip(panels, families):
        for row, model in enumerate(models):
            value = estimates.get((model, family))
            if value is None:
                continue
            mean, low, high = value
            if _finite(low) and _finite(high):
                axes.plot([low, high], [row, row], color=colours[model], linewidth=1.5)
            axes.plot([mean], [row], "o", color=colours[model], markersize=4)
        axes.set_xlim(-0.05, 1.05)
        axes.set_title(_label(family), fontsize=9)
        axes.set_xlabel("score", fontsize=8)
    figure.suptitle("Score per test family (mean, 95% CI)", fontsize=10)
    return _png(figure)


def _finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and math.isfinite(value)


def is_overall(curve) -> bool:
    """Whether ``curve`` is the all-worlds curve (the analysis names it ``all``)."""
    return curve.world in (None, "", "overall", "all", "*")


def _draw_curve(axes, curve, colour: str) -> None:
    points = [(x, y) for x, y in curve.points if _finite(x) and _finite(y)]
    band = sorted((b for b in curve.band if all(_finite(v) for v in b[:4])),
                  key=lambda b: b[0])
    if band:
        xs = [b[0] for b in band]
        axes.fill_between(xs, [b[2] for b in band], [b[3] for b in band], color=colour,
                          alpha=0.2, linewidth=0)
        axes.plot(xs, [b[1] for b in band], color=colour, linewidth=1.5)
    if points:
        axes.scatter([p[0] for p in points], [p[1] for p in points], s=12, color=colour,
                     alpha=0.7, edgecolors="none")
    verdict = getattr(curve, "verdict", None) or ""
    slope = getattr(curve, "slope", None)
    note = verdict + (f" (slope {slope:.3g})" if _finite(slope) else "")
    axes.set_title(_label(f"{curve.world if not is_overall(curve) else 'overall'}: {note}"),
                   fontsize=8)
    axes.set_ylim(-0.05, 1.05)
    xs = [p[0] for p in points] + [b[0] for b in band]
    positive = [x for x in xs if x > 0]
    if positive and len(positive) == len(xs) and max(positive) / min(positive) > 20:
        axes.set_xscale("log")
    else:
        from matplotlib.ticker import MaxNLocator

        axes.xaxis.set_major_locator(MaxNLocator(4))
        axes.ticklabel_format(axis="x", style="sci", scilimits=(-3, 4))


@_styled
def scaling_png(curves: Sequence[Any], measure: str, *, columns: int = 4,
                max_panels: int = 24) -> bytes:
    """Small multiples of score against ``measure``: the overall curve first, then one panel
    per world (at most ``max_panels``). A curve has ``world``, ``points`` [(x, score)],
    ``band`` [(x, mean, low, high)], ``slope`` and ``verdict``."""
    ordered = sorted(curves, key=lambda c: (not is_overall(c), str(c.world)))[:max_panels]
    panels = max(1, len(ordered))
    columns = max(1, min(columns, panels))
    rows = math.ceil(panels / columns)
    figure = _figure(2.6 * columns + 0.6, 2.2 * rows + 0.6)
    grid = figure.subplots(rows, columns, squeeze=False)
    for k, axes in enumerate(grid.flat):
        if k >= len(ordered):
            axes.set_visible(False)
            continue
        _draw_curve(axes, ordered[k], "#333333" if is_overall(ordered[k]) else _PALETTE[0])
        if k % columns == 0:
            axes.set_ylabel("score")
    figure.supxlabel(MEASURE_LABELS.get(measure, measure), fontsize=9)
    return _png(figure)


@_styled
def behaviour_png(models: Sequence[str],
                  values: Mapping[str, Mapping[str, Sequence[float]]]) -> bytes:
    """One panel per behaviour measure: per model, the mean over episodes (bar) and each
    episode (dots). ``values[model][measure]`` lists the episodes' values (None skipped).
    More than ``MANY_ARMS`` models: horizontal bars, one row per model named on the left."""
    if len(models) > MANY_ARMS:
        return _behaviour_rows(models, values)
    figure = _figure(max(6.0, 2.0 * len(BEHAVIOUR_MEASURES) + 0.3 * len(models)), 3.0)
    grid = figure.subplots(1, len(BEHAVIOUR_MEASURES), squeeze=False)
    colours = model_colours(models)
    for axes, (measure, label) in zip(grid.flat, BEHAVIOUR_MEASURES):
        for i, model in enumerate(models):
            data = [v for v in values.get(model, {}).get(measure, ()) if _finite(v)]
            if not data:
                continue
            axes.bar(i, sum(data) / len(data), color=colours[model], width=0.7)
            axes.scatter([i] * len(data), data, s=8, color="black", alpha=0.5,
                         edgecolors="none", zorder=3)
        axes.set_xticks(range(len(models)), [_label(m) for m in models], rotation=30,
                        ha="right", fontsize=7)
        axes.set_ylim(0, 1.05)
        axes.set_title(label, fontsize=9)
    return _png(figure)


def _behaviour_rows(models: Sequence[str],
                    values: Mapping[str, Mapping[str, Sequence[float]]]) -> bytes:
    figure, panels, colours = _rows_figure(models, len(BEHAVIOUR_MEASURES))
    for axes, (measure, label) in zip(panels, BEHAVIOUR_MEASURES):
        for row, model in enumerate(models):
            data = [v for v in values.get(model, {}).get(measure, ()) if _finite(v)]
            if not data:
                continue
            axes.barh(row, sum(data) / len(data), color=colours[model], height=0.7)
            axes.scatter(data, [row] * len(data), s=8, color="black", alpha=0.5,
                         edgecolors="none", zorder=3)
        axes.set_xlim(0, 1.05)
        axes.set_title(label, fontsize=9)
    return _png(figure)
