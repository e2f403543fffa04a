"""The report page: one self-contained HTML file built from the episodes of some runs.

Sections: the runs and their job counts (with the suite each ran as part of, named with its
digest from the transcript headers); the leaderboard (model x mfp / cd / planning /
overall, mean with its 95% CI and n, infrastructure errors and failures counted apart); the
plots; the per-task table; compute scaling (curves and the helps / flat / hurts count); the
knob checks (a warning for a knob that did not change what the provider did); behaviour
measures; pass@k and pass^k over seeds (``analysis.reliability``); with ``side_by_side``
the tasks where two arms differ most, their episodes next to each other
(``side_by_side.py``); each arm's reproduction card (``card.py``), which its leaderboard row
links to; the transcript viewer. No script, no external URL: CSS inline, images as ``data:``
URIs, the viewer in ``<details>``; a Content-Security-Policy forbids anything else anyway.
Every piece of text reaches the page through ``markup.tag`` (escaped).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, TypeGuard

from ..analysis.stats import arm_key, by_arm
from ..atomic import write_atomic
from ..pricing import UNPRICED
from ..vocabulary import FAMILIES
from . import plots
from .card import card_anchor
from .markup import Markup, join, png_uri, tag
from .viewer import ViewerLimits, has_transcript, render_viewer

__all__ = ["build_report", "render_report", "FAMILIES", "TITLE"]

TITLE = "llm-eval report"
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"

STYLE = """
.sides{display:grid;grid-template-columns:1fr 1fr;gap:1em}.side{min-width:0;overflow-x:auto}
body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:1200px;padding:0 1em;
color:#222;line-height:1.35}
h1{font-size:1.5em}h2{font-size:1.2em;border-bottom:1px solid #ccc;margin-top:2em}
table{border-collapse:collapse;margin:.5em 0;font-size:.9em}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
th{background:#f3f3f3}.ci{color:#666;font-size:.85em}
.note{color:#555;font-size:.9em}.warn{background:#fff3cd;border:1px solid #e0b000;
padding:.5em .75em;margin:.5em 0}
.bad{color:#a40000}.ok{color:#1a7f37}.meta{color:#555;font-size:.85em}
.label{font-weight:600;font-size:.85em;margin-right:.3em}
details{margin:.3em 0}details.episode{border:1px solid #ddd;padding:.3em .6em}
details.phase{margin-left:1em}summary{cursor:pointer}
ul.steps{list-style:none;padding-left:0}
.step{display:flex;gap:.8em;align-items:flex-start;border-top:1px solid #eee;padding:.4em 0}
.stepbody{flex:1;min-width:0}
pre{white-space:pre-wrap;word-break:break-word;background:#f7f7f7;padding:.4em;margin:.2em 0;
font-size:.8em;max-height:24em;overflow:auto}
img.frame{image-rendering:pixelated;border:1px solid #ccc;max-width:200px;height:auto;
flex:none}
img.sent{max-width:320px;border:1px solid #ccc}img.plot{max-width:100%}
.call{border-left:3px solid #c8d6ec;padding-left:.5em;margin:.3em 0}
.gap{color:#666;font-style:italic;padding:.4em 0}
figure.goal{margin:.3em 0}.options figure{display:inline-block;margin:.2em .6em .2em 0;
text-align:center;font-size:.8em}img.option{image-rendering:pixelated;border:1px solid #ccc}
"""


# -- numbers ---------------------------------------------------------------------------------

def _finite(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value)


def _fmt(value: Any, digits: int = 3) -> str:
    return f"{value:.{digits}f}" if _finite(value) else "-"


def _key(row) -> tuple:
    key = row.key
    return tuple(key) if isinstance(key, (tuple, list)) else (key,)


def _estimate_cell(row, **data: Any) -> Markup:
    """A table cell with the mean, its 95% CI and n; the numbers also as data attributes."""
    if row is None:
        return tag("td", "-", class_="num")
    estimate = row.estimate
    counts = []
    if row.n_infra_error:
        counts.append(f"{row.n_infra_error} infra err")
    if row.n_failed:
        counts.append(f"{row.n_failed} failed")
    if row.n_fatal:
        counts.append(f"{row.n_fatal} fatal")
    if row.n_unfinished:
        counts.append(f"{row.n_unfinished} unfinished")
    extra = tag("div", ", ".join(counts), class_="ci bad") if counts else Markup("")
    if estimate is None:
        return tag("td", "no score", extra, class_="num", data_n=0,
                   **{f"data_{k}": v for k, v in data.items()})
    # the interval is a bootstrap one, not always symmetric: shown as is, not as mean +- x
    worlds = getattr(estimate, "n_clusters", None)
    ci = tag("div", f"[{_fmt(estimate.ci_low)}, {_fmt(estimate.ci_high)}] n={estimate.n}"
                    + (f", {worlds} worlds" if worlds and worlds > 1 else ""), class_="ci")
    text = _fmt(estimate.mean)
    return tag("td", text, ci, extra, class_="num", data_mean=f"{estimate.mean:.6f}",
               data_n=estimate.n, **{f"data_{k}": v for k, v in data.items()})


# -- sections --------------------------------------------------------------------------------

def _runs_section(episodes: Sequence[Any], run_dirs: Sequence[Path],
                  duplicates: Sequence[Any] = ()) -> Markup:
    statuses: dict[str, int] = {}
    for episode in episodes:
        statuses[episode.status] = statuses.get(episode.status, 0) + 1
    runs = sorted({(str(e.run_dir), str(e.run_id)) for e in episodes})
    items = [tag("li", tag("code", str(d))) for d in run_dirs]
    counts = ", ".join(f"{n} {s}" for s, n in sorted(statuses.items())) or "no jobs"
    models = sorted({str(e.model) for e in episodes})
    protocols = sorted({str(e.settings.get("protocol", "worldtest")) for e in episodes})
    return join([
        tag("h2", "Runs", id="runs"),
        tag("ul", *items),
        tag("p", f"Protocol: {', '.join(protocols) or 'worldtest'}"
                 + (" (each arm plays one protocol: results of two protocols are never pooled "
                    "in one row)" if len(protocols) > 1 else "") + ".",
            class_="protocol", data_protocols=" ".join(protocols)),
        tag("p", f"{len(episodes)} episodes in {len(runs)} run(s): {counts}. Models: "
                 f"{', '.join(models) or 'none'}."),
        _suite_lines(episodes),
        tag("p", f"{len(duplicates)} job(s) appear in more than one run directory (the same "
                 f"settings, so the same job id) and are counted once: the done copy, else "
                 f"the first directory's.", class_="warn", data_duplicates=len(duplicates))
        if duplicates else Markup(""),
        tag("p", "Scores count only episodes that are done; infrastructure errors (retries "
                 "exhausted), fatal refusals (no credit, a refused key, an unknown model) and "
                 "failures are counted apart and never scored. Each mean comes "
                 "with its 95% interval [low, high]: a two-stage bootstrap clustered by world "
                 "(llm_eval.analysis.stats), so worlds, not seeds, are the units of "
                 "evidence; a single score has no interval (shown as -).", class_="note")])


def _header_suite(transcript: Path | None) -> dict[str, Any] | None:
    """The ``suite`` of a transcript's header (its first line), or None if unreadable."""
    import gzip
    import json

    if transcript is None:
        return None
    try:
        with open(transcript, "rb") as raw:
            gzipped = raw.read(2) == b"\x1f\x8b"
        opener = gzip.open if gzipped else open
        with opener(transcript, "rb") as file:
            header = json.loads(file.readline())
        suite = header.get("suite") if isinstance(header, dict) else None
        return suite if isinstance(suite, dict) else None
    except (OSError, ValueError, EOFError):
        return None


def _suite_lines(episodes: Sequence[Any]) -> Markup:
    """Which suite the episodes ran as part of, with the digests their headers record."""
    named = [e for e in episodes if e.settings.get("suite") is not None]
    if not named:
        return Markup("")
    suites: dict[str, dict[str, Any]] = {}
    for episode in named:
        entry = suites.setdefault(str(episode.settings["suite"]),
                                  {"digests": set(), "tasks": set()})
        entry["tasks"].add(str(episode.task))
        recorded = _header_suite(episode.transcript)
        if recorded and recorded.get("digest"):
            entry["digests"].add(str(recorded["digest"]))
    parts = []
    for name, entry in sorted(suites.items()):
        digests = sorted(entry["digests"])
        shown = ", ".join(d[:12] for d in digests) or "not recorded"
        text = (f"Suite {name} (sha256 {shown}): {len(entry['tasks'])} of its tasks in these "
                f"runs.")
        if len(digests) > 1:
            text += (" Its manifest was re-frozen between runs: the episodes did not all play "
                     "the same version of the suite.")
        parts.append(tag("p", text, class_="suite warn" if len(digests) > 1 else "suite",
                         data_suite=name, data_digests=" ".join(digests)))
    outside = len(episodes) - len(named)
    if outside:
        parts.append(tag("p", f"{outside} episode(s) ran outside any suite.", class_="note"))
    return join(parts)


def _leaderboard(episodes: Sequence[Any]) -> tuple[Markup, Markup]:
    from ..analysis.stats import aggregate

    by_family = {_key(r): r for r in aggregate(episodes, ("model", "family"))}
    overall = {_key(r)[0]: r for r in aggregate(episodes, ("model",))}
    models = sorted(overall, key=arm_key)
    families = [f for f in FAMILIES if any(k[1] == f for k in by_family)] + \
        sorted({k[1] for k in by_family if k[1] not in FAMILIES}, key=str)
    header = tag("tr", tag("th", "model"), *[tag("th", f) for f in families],
                 tag("th", "overall"), tag("th", "done"),
                 tag("th", "ended on context", title="done and scored as they stood: the "
                     "model's context was full"), tag("th", "infra errors"),
                 tag("th", "failed"),
                 tag("th", "fatal", title="refused by the provider for a reason only the user "
                     "can fix (no credit, a refused key, an unknown model): never scored, not "
                     "rerun by --resume without --retry-fatal"),
                 tag("th", "unfinished"))
    rows = []
    for model in models:
        cells = [_estimate_cell(by_family.get((model, f)), model=model, family=f)
                 for f in families]
        total = overall[model]
        rows.append(tag("tr", tag("th", tag("a", model, href=f"#{card_anchor(model)}",
                                            title="how to reproduce this row: its card")),
                        *cells, _estimate_cell(total, model=model, family="overall"),
                        tag("td", total.n_done, class_="num"),
                        tag("td", total.n_context, class_="num"),
                        tag("td", total.n_infra_error, class_="num"
                            + (" bad" if total.n_infra_error else "")),
                        tag("td", total.n_failed, class_="num"),
                        tag("td", total.n_fatal, class_="num"
                            + (" bad" if total.n_fatal else "")),
                        tag("td", total.n_unfinished, class_="num")))
    table = join([tag("h2", "Leaderboard", id="leaderboard"),
                  tag("table", header, *rows, class_="leaderboard")])
    estimates = {}
    for (model, family), row in by_family.items():
        if row.estimate is not None:
            estimates[(model, family)] = (row.estimate.mean, row.estimate.ci_low,
                                          row.estimate.ci_high)
    for model, row in overall.items():
        if row.estimate is not None:
            estimates[(model, "overall")] = (row.estimate.mean, row.estimate.ci_low,
                                             row.estimate.ci_high)
    image = plots.family_scores_png([str(m) for m in models], [*families, "overall"],
                                    {(str(m), f): v for (m, f), v in estimates.items()}) \
        if estimates else None   # no episode scored: an empty chart says nothing
    plot = _figure(image, "Mean score per family and overall, with 95% confidence intervals")
    return table, plot


def _figure(image: bytes | None, caption: str) -> Markup:
    if image is None:
        return tag("p", f"{caption}: nothing to plot.", class_="note")
    return tag("figure", tag("img", src=png_uri(image), alt=caption, class_="plot"),
               tag("figcaption", caption, class_="note"))


MAX_UNSCORED_ROWS = 50


def _store_error(episode: Any) -> str | None:
    """The run store's error for an episode (the analysis's ``Episode`` does not carry it)."""
    error = getattr(episode, "error", None)
    if error is not None:
        return str(error)
    from ..runstore import STORE_FILE, RunStore, RunStoreError

    try:
        with RunStore(Path(episode.run_dir) / STORE_FILE, readonly=True) as store:
            return store.job(episode.run_id, episode.job_id).error
    except (RunStoreError, OSError):
        return None


def _unscored_section(episodes: Sequence[Any], limits: ViewerLimits) -> Markup:
    """Every episode that is not done, with the error the run store kept (capped)."""
    unscored = sorted((e for e in episodes if e.status != "done"),
                      key=lambda e: (str(e.status), str(e.model), str(e.task), str(e.job_id)))
    parts: list[object] = [tag("h2", "Not scored", id="unscored")]
    if not unscored:
        parts.append(tag("p", "Every episode is done.", class_="note"))
        return join(parts)
    rows = []
    for episode in unscored[:MAX_UNSCORED_ROWS]:
        error = _store_error(episode) or ""
        if len(error) > limits.max_text_chars:
            error = error[:limits.max_text_chars] + " ..."
        rows.append(tag("tr", tag("td", tag("code", episode.job_id)), tag("td", episode.model),
                        tag("td", episode.task), tag("td", episode.status, class_="bad"),
                        tag("td", tag("code", error))))
    parts.append(tag("table", tag("tr", tag("th", "job"), tag("th", "model"), tag("th", "task"),
                                  tag("th", "status"), tag("th", "error")), *rows))
    if len(unscored) > MAX_UNSCORED_ROWS:
        parts.append(tag("p", f"{len(unscored) - MAX_UNSCORED_ROWS} more not shown.",
                         class_="note"))
    parts.append(tag("p", "Infrastructure errors and failures are rerun by llm-eval run "
                          "--resume RUN_DIR; queued or running jobs were not finished.",
                     class_="note"))
    return join(parts)


def _task_table(episodes: Sequence[Any]) -> Markup:
    return _arm_table(episodes, "task", tag("h2", "Per task", id="tasks"))


def _world_table(episodes: Sequence[Any]) -> Markup:
    return _arm_table(episodes, "world", tag("h2", "Per world", id="worlds"),
                      tag("p", "All families of a world together; the interval resamples "
                               "its episodes (one world is one cluster).", class_="note"))


def _arm_table(episodes: Sequence[Any], by: str, *heading: Markup) -> Markup:
    """One row per value of the setting ``by``, one column per model (arm)."""
    from ..analysis.stats import aggregate

    cells = {_key(r): r for r in aggregate(episodes, ("model", by))}
    models = sorted({k[0] for k in cells}, key=arm_key)
    values = sorted({k[1] for k in cells}, key=str)
    header = tag("tr", tag("th", by), *[tag("th", m) for m in models])
    rows = [tag("tr", tag("th", value),
                *[_estimate_cell(cells.get((m, value)), model=m, **{by: value})
                  for m in models])
            for value in values]
    return join([*heading, tag("table", header, *rows, class_=f"{by}s")])


def _measure_present(episodes: Iterable[Any], measure: str) -> bool:
    from ..analysis.scaling import compute_of

    return any(_finite(x := compute_of(e, measure)) and x > 0
               for e in episodes if e.status == "done")


def _threshold_text(scaling) -> str:
    """How the analysis tells helps from flat from hurts (its own statement of the rule)."""
    return "How a world's verdict is decided: " + scaling.TREND_RULE


def _why_absent(episodes: Sequence[Any], measure: str) -> str:
    """Why no finished episode has ``measure``: the models it would need, named."""
    called = sorted({str(e.model) for e in episodes
                     if e.status == "done" and (e.tokens("calls") or 0) > 0})
    if not called:
        return "no finished episode made a model call (random or oracle agents only)"
    if measure == "cost_usd":
        return (f"{', '.join(called)} {'is' if len(called) == 1 else 'are'} unpriced (LiteLLM's "
                f"price map has no price for {'it' if len(called) == 1 else 'them'}; a run "
                f"gives one with --prices FILE)")
    if measure == "reasoning_tokens":
        return f"{', '.join(called)} reported no reasoning tokens"
    return f"no finished episode of {', '.join(called)} records it"


def _compute_table(episodes: Sequence[Any]) -> Markup:
    """What each arm consumed: tokens and dollars of its done episodes, and every dollar its
    jobs spent (interrupted, failed and rerun executions included)."""
    def total(values: Iterable[Any], digits: int = 0) -> str:
        present = [v for v in values if v is not None]
        return f"{sum(present):,.{digits}f}" if present else "-"

    by_arm_name: dict[str, list[Any]] = {}
    for e in episodes:
        by_arm_name.setdefault(str(e.model), []).append(e)
    rows = []
    for arm in sorted(by_arm_name, key=arm_key):
        mine = by_arm_name[arm]
        done = [e for e in mine if e.status == "done"]
        calls = sum(e.tokens("calls") or 0 for e in done)
        spent = sum(e.spent_usd for e in mine)
        if not calls and not spent:
            continue   # random and oracle: nothing to count
        priced = spent > 0 or any(e.cost_usd is not None for e in mine)   # else unpriced
        cost = total((e.cost_usd for e in done), 4)
        rows.append(tag("tr", tag("th", arm), tag("td", len(done), class_="num"),
                        tag("td", f"{calls:,}", class_="num"),
                        tag("td", total(e.total_tokens for e in done), class_="num"),
                        tag("td", total(e.reasoning_tokens for e in done), class_="num"),
                        tag("td", _cache_share(done), class_="num", data_arm=arm),
                        tag("td", UNPRICED if cost == "-" and calls else cost, class_="num"),
                        tag("td", _uncached_cost(done), class_="num", data_arm=arm),
                        tag("td", f"{spent:,.4f}" if priced else UNPRICED, class_="num",
                            data_arm=arm)))
    if not rows:
        return Markup("")
    sources = _price_sources(episodes)
    header = tag("tr", *[tag("th", h) for h in (
        "arm", "done", "model calls", "tokens (in + out)", "reasoning tokens",
        "input read from cache", "cost of done episodes ($)", "without cache ($)",
        "spent, every execution ($)")])
    return join([tag("table", header, *rows, class_="compute"),
                 tag("p", "Spent counts every execution of each job, including ones the spend "
                          "cap or Ctrl-C interrupted and failed ones that were rerun; cost "
                          "only the done episodes' own. An unpriced model has no price in "
                          "LiteLLM's map or the run's price file: its calls are not counted "
                          "(not $0). Input read from cache: the share of the done episodes' "
                          "input tokens the provider served from its prompt cache; without "
                          "cache: what the same calls would have cost with every input token "
                          "at the input price (\"-\" for runs recorded before caching was "
                          "counted).", class_="note"),
                 *([tag("p", "Price source: " + "; ".join(
                     f"{source} ({', '.join(arms)})" for source, arms in sources.items()),
                     class_="note prices")] if sources else [])])


def _cache_share(done: Sequence[Any]) -> str:
    """The share of the done episodes' input tokens read from the prompt cache; "-" when none
    of them recorded cache reads (a run from before they were counted) or had no input."""
    counted = [e for e in done if e.usage is not None and "cache_read_tokens" in e.usage]
    read = sum(e.tokens("cache_read_tokens") or 0 for e in counted)
    seen = sum(e.tokens("input_tokens") or 0 for e in counted)
    return f"{read / seen:.0%}" if counted and seen else "-"


def _uncached_cost(done: Sequence[Any]) -> str:
    """What the done episodes would have cost with no prompt cache; "-" unless every priced one
    recorded it."""
    priced = [e for e in done if e.cost_usd is not None]
    values = [(e.usage or {}).get("uncached_usd") for e in priced]
    if not priced or any(v is None for v in values):
        return "-"
    return f"{sum(v for v in values if v is not None):,.4f}"


def _price_sources(episodes: Sequence[Any]) -> dict[str, list[str]]:
    """What priced the calls of each arm's done episodes (from their transcripts)."""
    from ..analysis.behaviour import behaviour_of
    from ..transcripts import TranscriptError

    sources: dict[str, list[str]] = {}
    for e in episodes:
        if e.status != "done" or not (e.tokens("calls") or 0) or not has_transcript(e):
            continue
        try:
            source = behaviour_of(e.transcript).prices
        except (TranscriptError, OSError, UnicodeDecodeError):
            continue
        arms = sources.setdefault(source or "unrecorded", [])
        if str(e.model) not in arms:
            arms.append(str(e.model))
    return sources


def _scaling_section(episodes: Sequence[Any], arms: Sequence[Any]) -> Markup:
    """Compute per arm (``arms``: ``episodes`` by arm), then score against each measure per
    world (curves pool a model's arms: compute varies across them)."""
    from ..analysis import scaling

    parts: list[object] = [tag("h2", "Compute scaling", id="scaling"), _compute_table(arms)]
    drawn = False
    for measure in scaling.MEASURES:
        label = plots.MEASURE_LABELS.get(measure, measure)
        if not _measure_present(episodes, measure):
            parts.append(tag("p", f"Score against {label}: skipped, "
                                  f"{_why_absent(episodes, measure)}.", class_="note"))
            continue
        curves = list(scaling.scaling_curves(episodes, measure))
        if not curves:
            parts.append(tag("p", f"Score against {label}: not enough episodes for a curve.",
                             class_="note"))
            continue
        summary = scaling.trend_summary([c for c in curves if not plots.is_overall(c)])
        counts = ", ".join(f"{k}: {summary.get(k, 0)}" for k in ("helps", "flat", "hurts"))
        if summary.get("unknown"):
            counts += f"; unknown (too few episodes or one compute value): {summary['unknown']}"
        worlds = sum(summary.values())
        parts.append(tag("h3", f"Score against {label}"))
        parts.append(tag("p", f"More compute: {counts} (of {worlds} worlds).",
                         class_="trend", data_measure=measure,
                         data_helps=summary.get("helps", 0), data_flat=summary.get("flat", 0),
                         data_hurts=summary.get("hurts", 0)))
        rows = [tag("tr", tag("td", c.world if not plots.is_overall(c) else "overall"),
                    tag("td", c.verdict), tag("td", _fmt(c.slope, 4), class_="num"),
                    tag("td", f"[{_fmt(getattr(c, 'slope_low', None), 4)}, "
                              f"{_fmt(getattr(c, 'slope_high', None), 4)}]", class_="num"),
                    tag("td", len(c.points), class_="num"),
                    tag("td", getattr(c, "n_excluded", 0), class_="num"))
                for c in sorted(curves, key=lambda c: (not plots.is_overall(c), str(c.world)))]
        parts.append(tag("details", tag("summary", "per-world verdicts"),
                         tag("table", tag("tr", tag("th", "world"), tag("th", "verdict"),
                                          tag("th", "slope per log10 unit"),
                                          tag("th", "95% interval"), tag("th", "episodes"),
                                          tag("th", "without usage")), *rows)))
        parts.append(_figure(plots.scaling_png(curves, measure),
                             f"Score against {label}: each panel one world (overall first), "
                             f"dots are episodes, the band the 95% confidence band"))
        drawn = True
    if drawn:
        parts.append(tag("p", _threshold_text(scaling), class_="note"))
    return join(parts)


def _knob_section(episodes: Sequence[Any]) -> Markup:
    from ..analysis.scaling import knob_checks
    from ..transcripts import TranscriptError

    parts: list[object] = [tag("h2", "Knob checks", id="knobs")]
    try:
        checks = list(knob_checks(episodes))
    except (TranscriptError, OSError, UnicodeDecodeError) as exc:   # the step-budget check
        parts.append(tag("div", f"The knob checks need every transcript, and one could not "
                                f"be read: {exc}", class_="warn"))
        return join(parts)
    if not checks:
        parts.append(tag("p", "No budget knob varies across these runs, so there is nothing "
                              "to check.", class_="note"))
        return join(parts)
    for check in checks:
        if not check.changed:
            model = getattr(check, "model", "")
            parts.append(tag("div", tag("b", "Warning: "),
                             f"the knob {check.knob}{f' of {model}' if model else ''} (values "
                             f"{_values(check.values)}) did not change what the provider did "
                             f"({check.metric}): {check.detail}",
                             class_="warn", data_knob=check.knob))
    rows = [tag("tr", tag("td", getattr(c, "model", "")), tag("td", c.knob),
                tag("td", _values(c.values)), tag("td", c.metric),
                tag("td", tag("span", "changed", class_="ok") if c.changed
                    else tag("span", "NO CHANGE", class_="bad")),
                tag("td", _fmt(getattr(c, "p_value", None), 4), class_="num"),
                tag("td", c.detail)) for c in checks]
    parts.append(tag("table", tag("tr", tag("th", "model"), tag("th", "knob"),
                                  tag("th", "values"), tag("th", "measured"),
                                  tag("th", "verdict"), tag("th", "p"), tag("th", "detail")),
                     *rows))
    return join(parts)


def _values(values: Any) -> str:
    if isinstance(values, (list, tuple, set, frozenset)):
        return ", ".join(str(v) for v in values)
    return str(values)


def _behaviour_section(episodes: Sequence[Any]) -> Markup:
    from ..analysis.behaviour import behaviour_of
    from ..transcripts import TranscriptError

    measures = [m for m, _ in plots.BEHAVIOUR_MEASURES]
    values: dict[str, dict[str, list[float]]] = {}
    resets: dict[str, list[float]] = {}
    counts: dict[str, int] = {}
    by_kind: dict[str, dict[str, int]] = {}
    unreadable: list[str] = []
    for episode in episodes:   # as behaviour_table, one transcript at a time: a bad one is
        if episode.status != "done" or not has_transcript(episode):   # reported, not fatal
            continue
        try:
            behaviour = behaviour_of(episode.transcript)
        except (TranscriptError, OSError, UnicodeDecodeError) as exc:
            unreadable.append(f"{episode.job_id}: {exc}")
            continue
        model = str(episode.model)
        counts[model] = counts.get(model, 0) + 1
        kinds = by_kind.setdefault(model, {})
        for kind, n in behaviour.actions_by_kind.items():
            kinds[kind] = kinds.get(kind, 0) + n
        per = values.setdefault(model, {m: [] for m in measures})
        for m in measures:
            value = getattr(behaviour, m, None)
            if _finite(value):
                per[m].append(float(value))
        if _finite(getattr(behaviour, "resets", None)):
            resets.setdefault(model, []).append(float(behaviour.resets))
    parts: list[object] = [tag("h2", "Behaviour", id="behaviour")]
    if unreadable:
        parts.append(tag("div", f"{len(unreadable)} transcript(s) could not be read and are "
                                f"left out: " + "; ".join(unreadable[:5])
                                + (" ..." if len(unreadable) > 5 else ""), class_="warn"))
    if not values:
        parts.append(tag("p", "No transcript could be measured.", class_="note"))
        return join(parts)
    models = sorted(values, key=arm_key)
    header = tag("tr", tag("th", "model"), tag("th", "episodes"), tag("th", "resets (mean)"),
                 *[tag("th", label) for _, label in plots.BEHAVIOUR_MEASURES])
    rows = []
    for model in models:
        per = values[model]
        cells = [tag("td", _mean_text(per[m]), class_="num") for m in measures]
        rows.append(tag("tr", tag("th", model), tag("td", counts[model], class_="num"),
                        tag("td", _mean_text(resets.get(model, [])), class_="num"), *cells))
    parts.append(tag("table", header, *rows))
    parts.append(tag("p", "Per episode: the share of actions that are resets (published: "
                          "humans 12.5%, models 1.4-7.1%), the longest-common-subsequence "
                          "ratio of the action sequences before and after each reset "
                          "(humans 0.827), the share of actions that were invalid, and the "
                          "share of the program's rules that fired during interaction. "
                          "Means over the episodes where the measure is defined.",
                     class_="note"))
    parts.append(_kinds_table(models, by_kind))
    parts.append(_figure(plots.behaviour_png(models, values),
                         "Behaviour per model: bars are means, dots are episodes"))
    return join(parts)


TOOL_COLUMNS = (("tool_calls", "tool calls"), ("tool_refused", "refused by a cap"),
                ("hypotheses", "hypotheses checked"),
                ("hypothesis_match_rate", "hypotheses that matched"),
                ("tool_model_calls", "model calls for tools"),
                ("tool_cost_usd", "their cost (USD)"))


def _tools_section(episodes: Sequence[Any]) -> Markup | str:
    """Tool use per arm (agent tools, ``analysis.behaviour.TOOL_MEASURES``): means per
    episode; nothing when no episode had tools, so reports of runs without tools are as
    before."""
    from ..analysis.behaviour import behaviour_of
    from ..transcripts import TranscriptError

    if not any(e.settings.get("agent_tools") for e in episodes):
        return ""
    values: dict[str, dict[str, list[float]]] = {}
    for episode in episodes:
        if episode.status != "done" or not has_transcript(episode):
            continue
        try:
            behaviour = behaviour_of(episode.transcript)
        except (TranscriptError, OSError, UnicodeDecodeError):
            continue   # the behaviour section above names it
        per = values.setdefault(str(episode.model), {m: [] for m, _ in TOOL_COLUMNS})
        for m, _ in TOOL_COLUMNS:
            value = getattr(behaviour, m, None)
            if _finite(value):
                per[m].append(float(value))
    header = tag("tr", tag("th", "arm"), *[tag("th", label) for _, label in TOOL_COLUMNS])
    rows = [tag("tr", tag("th", arm), *[tag("td", _mean_text(values[arm][m]), class_="num",
                                            data_measure=m) for m, _ in TOOL_COLUMNS])
            for arm in sorted(values, key=arm_key)]
    return join([tag("h2", "Tool use", id="tools"), tag("table", header, *rows),
                 tag("p", "Per episode, means: the agent-tool calls (notes, autumn, python; "
                          "docs/agent-tools.md), those a cap refused, the Autumn programs "
                          "checked and the share that matched everything seen so far, and "
                          "the model calls whose reply only called tools, with their cost.",
                     class_="note")])


def _kinds_table(models: Sequence[str], by_kind: dict[str, dict[str, int]]) -> Markup:
    """Actions by kind over every episode of each arm: the count and its share of all."""
    from ..analysis.behaviour import KINDS

    kinds = list(KINDS) + sorted({k for per in by_kind.values() for k in per} - set(KINDS))
    header = tag("tr", tag("th", "actions by kind"), *[tag("th", k) for k in kinds],
                 tag("th", "all"))
    rows = []
    for model in models:
        per = by_kind.get(model, {})
        total = sum(per.values())
        cells = [tag("td", f"{per.get(k, 0)} ({per.get(k, 0) / total:.0%})" if total else "0",
                     class_="num", data_model=model, data_kind=k, data_count=per.get(k, 0))
                 for k in kinds]
        rows.append(tag("tr", tag("th", model), *cells, tag("td", total, class_="num")))
    return tag("table", header, *rows, class_="kinds")


def _mean_text(data: Sequence[float]) -> str:
    return f"{sum(data) / len(data):.3f} (n={len(data)})" if data else "-"


def _reliability_section(arms: Sequence[Any]) -> Markup:
    """pass@k and pass^k per arm (and, folded, per task) over seeds (``reliability.py``)."""
    from ..analysis.reliability import SUCCESS_THRESHOLDS, reliability

    groups: dict[str, list] = {}
    for episode in arms:   # already relabelled by arm
        groups.setdefault(episode.model, []).append(episode)
    task_rows, arm_rows = reliability({k: groups[k] for k in sorted(groups, key=arm_key)})

    def cell(value, interval):
        if math.isnan(value):
            return tag("td", "-", class_="num")
        text = f"{value:.3f}" if math.isnan(interval[0]) else \
            f"{value:.3f} [{interval[0]:.2f}, {interval[1]:.2f}]"
        return tag("td", text, class_="num")

    header = tag("tr", *[tag("th", h) for h in ("arm", "k", "tasks", "pass@k", "pass^k",
                                                "tasks with fewer than k episodes")])
    rows = [tag("tr", tag("th", r.arm), tag("td", r.k, class_="num"),
                tag("td", r.tasks, class_="num"), cell(r.pass_at_k, r.pass_at_k_ci),
                cell(r.pass_hat_k, r.pass_hat_k_ci), tag("td", r.skipped, class_="num"),
                data_arm=r.arm, data_k=r.k) for r in arm_rows]
    task_header = tag("tr", *[tag("th", h) for h in ("arm", "world", "family", "k", "n",
                                                     "successes", "pass@k", "pass^k")])
    task_lines = [tag("tr", tag("td", r.arm), tag("td", r.world), tag("td", r.family),
                      tag("td", r.k, class_="num"), tag("td", r.n, class_="num"),
                      tag("td", r.c, class_="num"), cell(r.pass_at_k, r.pass_at_k_ci),
                      cell(r.pass_hat_k, r.pass_hat_k_ci)) for r in task_rows]
    thresholds = ", ".join(f"{f} {t}" for f, t in SUCCESS_THRESHOLDS.items())
    return join([tag("h2", "Reliability over seeds", id="reliability"),
                 tag("p", "pass@k: the chance at least one of k episodes of a task succeeds; "
                     "pass^k: that all k do (unbiased estimators over each task's n done "
                     f"episodes). Success: a score above the family's threshold ({thresholds})."
                     " 95% intervals: per arm clustered by world, per task over its "
                     "episodes."),
                 tag("table", header, *rows, class_="reliability"),
                 tag("details", tag("summary", "per task"),
                     tag("table", task_header, *task_lines, class_="reliability-tasks"))])


def _side_by_side_section(arms: Sequence[Any], chosen: tuple[str, str] | None,
                          limits: ViewerLimits) -> Markup:
    """The two chosen arms' most different tasks, episodes side by side (``side_by_side``)."""
    if chosen is None:
        return Markup("")
    from ..analysis.data import DEFAULT_MATCH, AnalysisError
    from .side_by_side import render_side_by_side

    labels = sorted({e.model for e in arms}, key=arm_key)
    for arm in chosen:
        if arm not in labels:
            raise AnalysisError(f"--side-by-side {arm}: no such arm (arms: "
                                f"{', '.join(labels)})")
    a = [e for e in arms if e.model == chosen[0]]
    b = [e for e in arms if e.model == chosen[1]]
    return render_side_by_side(chosen[0], a, chosen[1], b, DEFAULT_MATCH, limits)


def _cards_section(episodes: Sequence[Any], run_dirs: Sequence[str | Path]) -> Markup:
    """Each arm's reproduction card (``card.py``), the target of its leaderboard row's link."""
    from .card import cards_of, format_card, group_arms

    cards = cards_of(group_arms(list(episodes)), " ".join(str(d) for d in run_dirs),
                     installed=False)
    return join([tag("h2", "Reproduction cards", id="cards"),
                 tag("p", "How to run each arm again (a spec checked against its job ids) "
                     "and where its number comes from: versions, settings, the model "
                     "snapshot its provider reported, prices, dates, counts."),
                 *[tag("details", tag("summary", card["arm"]),
                       tag("pre", format_card(card)), id=card["anchor"], class_="card")
                   for card in cards]])


# -- the page --------------------------------------------------------------------------------

def render_report(episodes: Sequence[Any], run_dirs: Sequence[str | Path], *,
                  limits: ViewerLimits | None = None, duplicates: Sequence[Any] = (),
                  side_by_side: tuple[str, str] | None = None) -> str:
    """The report's HTML text for ``episodes`` (loaded from ``run_dirs``; ``duplicates``: the
    copies of their jobs that were left out)."""
    limits = limits or ViewerLimits()

    arms = by_arm(episodes)
    leaderboard, family_plot = _leaderboard(arms)
    body = [tag("h1", TITLE),
            tag("nav", join([tag("a", name, href=f"#{anchor}") for anchor, name in (
                ("runs", "runs"), ("leaderboard", "leaderboard"),
                ("reliability", "reliability"),
                *((("side-by-side", "side by side"),) if side_by_side else ()),
                ("unscored", "not scored"),
                ("tasks", "per task"), ("worlds", "per world"),
                ("scaling", "compute scaling"), ("knobs", "knob checks"),
                ("behaviour", "behaviour"), ("cards", "reproduction cards"),
                ("viewer", "transcripts"))], " | ")),
            _runs_section(episodes, [Path(d) for d in run_dirs], duplicates),
            leaderboard, family_plot,
            _reliability_section(arms),
            _side_by_side_section(arms, side_by_side, limits),
            _unscored_section(episodes, limits),
            _task_table(arms),
            _world_table(arms),
            _scaling_section(episodes, arms),
            _knob_section(episodes),
            _behaviour_section(arms),
            _tools_section(arms),
            _cards_section(episodes, run_dirs),
            tag("h2", "Transcripts", id="viewer"),
            render_viewer(episodes, limits)]
    head = tag("head", tag("meta", charset="utf-8"),
               tag("meta", http_equiv="Content-Security-Policy", content=CSP),
               tag("meta", name="referrer", content="no-referrer"),
               tag("title", TITLE), tag("style", Markup(STYLE)))
    return "<!DOCTYPE html>\n" + tag("html", head, tag("body", *body), lang="en") + "\n"


def build_report(run_dirs: Sequence[str | Path], output: str | Path, *,
                 limits: ViewerLimits | None = None,
                 side_by_side: tuple[str, str] | None = None) -> Path:
    """Load the episodes of ``run_dirs`` and write the report to ``output``; returns its path."""
    from ..analysis.data import load_episodes

    duplicates: list = []
    episodes = load_episodes([Path(d) for d in run_dirs], duplicates=duplicates)
    text = render_report(episodes, run_dirs, limits=limits, duplicates=duplicates,
                         side_by_side=side_by_side)
    return write_atomic(output, text)
