"""The world gallery: one browsable page of the bundled worlds and their tasks, for people.

``build_gallery(directory)`` writes ``directory/index.html`` (self-contained: inline CSS,
images as ``data:`` URIs, no script) and, beside it, each world's initial frame
(``<world>.png``) and its planning goal (``<world>-goal.png``, the cells that matter ringed).
Per world: the initial frame (with the seed of its tasks), size, deterministic or stochastic,
the mechanics in a line, the description, the suites its tasks belong to; per task, the
figures of validation (``tasks.validate.validate_task``, every check of docs/spec/worldtest.md 5):

- the witness length: MFP, the recorded trajectory's actions; CD, the witness under which the
  change shows (and the frame where the condition first holds); planning, the witness plan
  (and the horizon);
- the random agent's success rate: MFP, the share of uniform random answers that are right
  (``random_near_chance``); planning, the share of random rollouts that reach the goal
  (``random_below_5pct``); CD, which validation does not measure, the share of random-agent
  episodes that score above 0 (``random_episodes`` of them);
- the oracle's score (``oracle_*``) and whether every check passed (the failed ones named).

``effort`` is validation's (``QUICK`` for fewer rollouts and fuzz runs). Every text reaches
the page escaped (``markup.tag``): world descriptions and CD change texts are the authors'.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..atomic import write_atomic
from .markup import Markup, join, png_uri, tag

__all__ = ["build_gallery", "task_figures", "GALLERY_FILE"]

GALLERY_FILE = "index.html"
TITLE = "llm-eval world gallery"
CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:1200px;padding:0 1em;
color:#222;line-height:1.35}
h1{font-size:1.5em}h2{font-size:1.15em;margin:.2em 0}
section.world{display:flex;gap:1.2em;border-top:1px solid #ccc;padding:1em 0}
section.world figure{margin:0;flex:none;text-align:center;font-size:.8em;color:#555}
img.frame{image-rendering:pixelated;border:1px solid #ccc;width:192px;height:auto}
table{border-collapse:collapse;margin:.5em 0;font-size:.9em}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
th{background:#f3f3f3}.meta{color:#555;font-size:.9em}.bad{color:#a40000}.ok{color:#1a7f37}
"""


def _figure(report, name: str, key: str) -> Any:
    try:
        return report.check(name).figures.get(key)
    except StopIteration:
        return None


def _random_cd_rate(task, episodes: int) -> tuple[int, int]:
    from ..agents import RandomAgent
    from ..worldtest import run_episode

    wins = sum(run_episode(task, RandomAgent(seed=s)).score > 0
               for s in range(1, episodes + 1))
    return wins, episodes


def task_figures(task, effort, random_episodes: int = 20, cache: Path | None = None,
                 refresh: bool = False) -> dict[str, Any]:
    """A task's gallery figures from validation (module docstring); the report is the one kept
    in ``cache`` for the task when there is one (``tasks.report_cache``; ``refresh``: validate
    again), and kept there when it is made."""
    from ..tasks.report_cache import kept_or_validated

    start = time.perf_counter()
    report, reused, not_kept = kept_or_validated(task, effort, cache, refresh=refresh)
    figures: dict[str, Any] = {"task": task.id, "family": task.family,
                               "passed": report.passed, "reused": reused,
                               "not_kept": not_kept,
                               "failed": [c.name for c in report.checks
                                          if not (c.passed or c.skipped)]}
    oracle = {"mfp": "oracle_answers", "cd": "oracle_detects",
              "planning": "oracle_solves"}[task.family]
    figures["oracle"] = _figure(report, oracle, "score")
    if task.family == "mfp":
        figures["witness"] = len(task.public.actions)
        figures["random_rate"] = _figure(report, "random_near_chance", "rate")
        figures["random_of"] = _figure(report, "random_near_chance", "answers")
        figures["detail"] = f"{len(task.public.options)} options, chance 1/6"
    elif task.family == "planning":
        figures["witness"] = _figure(report, "witness_reaches_goal", "witness")
        figures["random_rate"] = _figure(report, "random_below_5pct", "rate")
        figures["random_of"] = _figure(report, "random_below_5pct", "rollouts")
        figures["detail"] = f"horizon {task.public.horizon}"
    else:
        figures["witness"] = _figure(report, "trigger_fires", "witness")
        wins, episodes = _random_cd_rate(task, random_episodes)
        figures["random_rate"] = round(wins / episodes, 4) if episodes else None
        figures["random_of"] = episodes
        at = _figure(report, "condition_at_change", "condition_step")
        figures["detail"] = (f"condition first holds at frame {at}" if at is not None
                             else "condition never holds under the witness")
        figures["change"] = task.hidden.change
    figures["seconds"] = round(time.perf_counter() - start, 1)
    return figures


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _rate(value: Any) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _score(value: Any) -> str:
    return "-" if value is None else f"{value:.3f}"


def _task_table(rows: Sequence[dict[str, Any]]) -> Markup:
    head = tag("tr", *(tag("th", h) for h in (
        "task", "witness length", "random success", "oracle score", "validation", "notes")))
    body = []
    for r in rows:
        verdict = tag("span", "pass", class_="ok") if r["passed"] else \
            tag("span", "FAIL: " + ", ".join(r["failed"]), class_="bad")
        notes = [r.get("detail", "")]
        if r.get("change"):
            notes.append(f"change: {r['change']}")
        body.append(tag("tr",
                        tag("td", r["task"]),
                        tag("td", "-" if r["witness"] is None else r["witness"], class_="num"),
                        tag("td", f"{_rate(r['random_rate'])} of {r['random_of']}",
                            class_="num"),
                        tag("td", _score(r["oracle"]), class_="num"),
                        tag("td", verdict),
                        tag("td", "; ".join(n for n in notes if n)),
                        data_task=r["task"], data_passed=str(r["passed"]).lower()))
    return tag("table", head, *body)


def _suites_of() -> dict[str, list[str]]:
    """Task id -> the shipped suites that list it."""
    from ..suites import load_suite, suite_names

    found: dict[str, list[str]] = {}
    for name in suite_names():
        for entry in load_suite(name).tasks:
            found.setdefault(entry.id, []).append(name)
    return found


def _all_figures(tasks, effort, random_episodes: int, processes: int,
                 progress: Callable[[str], None] | None, cache: Path | None,
                 refresh: bool) -> dict[str, dict[str, Any]]:
    """``task_figures`` of every task by id, computed in ``processes`` worker processes."""
    from functools import partial

    from ..parallel import map_in_order
    from ..tasks.validate import start_rank

    compute = partial(task_figures, effort=effort, random_episodes=random_episodes,
                      cache=cache, refresh=refresh)

    def finished(task, row: dict[str, Any]) -> None:
        if progress is not None:
            progress(f"{'reused the kept report of' if row['reused'] else 'validated'} "
                     f"{task.id}" + (f" (report not kept in {cache}: {row['not_kept']})"
                                     if row["not_kept"] else ""))

    rows = map_in_order(compute, tasks, processes, start_order=start_rank,
                        finished=None if progress is None else finished)
    return {task.id: row for task, row in zip(tasks, rows)}


def build_gallery(directory: str | Path, *, worlds: Sequence[str] | None = None,
                  effort=None, random_episodes: int = 20, processes: int = 1,
                  progress: Callable[[str], None] | None = None,
                  cache: Path | None = None, refresh: bool = False) -> Path:
    """Write the gallery into ``directory`` (module docstring); returns the index's path.
    The tasks are validated in ``processes`` worker processes (the figures do not depend on
    where they are computed, only the seconds shown do), or their reports taken from
    ``cache`` (``tasks.report_cache``: those ``tasks validate`` kept; ``refresh``: validate
    again, keeping the new reports)."""
    from ..render import render_png
    from ..tasks.store import all_tasks
    from ..tasks.validate import FULL
    from ..worlds import default_registry

    effort = FULL if effort is None else effort
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    registry = default_registry()
    names = list(worlds) if worlds else registry.names()
    suites = _suites_of()
    figures_of = _all_figures(all_tasks(names), effort, random_episodes, processes, progress,
                              cache, refresh)
    sections = []
    totals = {"worlds": 0, "tasks": 0, "passed": 0, "stochastic": 0}
    for name in names:
        spec = registry.get(name)
        tasks = all_tasks([name])
        seed = tasks[0].seed if tasks and tasks[0].seed else 1
        frame, _ = spec.make(seed=seed).reset()
        image = render_png(frame, cell_size=16)
        write_atomic(directory / f"{name}.png", image)
        figures = [tag("figure", tag("img", src=png_uri(image), class_="frame",
                                     alt=f"{name}: initial frame, seed {seed}"),
                       tag("figcaption", f"initial frame (seed {seed})"))]
        planning = next((t for t in tasks if t.family == "planning"), None)
        if planning is not None:
            from ..autumn import Frame

            goal = Frame(tuple(tuple(r) for r in planning.public.goal), frame.background)
            cells = [(x, y) for y, row in enumerate(planning.public.mask)
                     for x, m in enumerate(row) if m]
            goal_image = render_png(goal, cell_size=16, goal=cells)
            write_atomic(directory / f"{name}-goal.png", goal_image)
            figures.append(tag("figure", tag("img", src=png_uri(goal_image), class_="frame",
                                             alt=f"{name}: planning goal"),
                               tag("figcaption", "planning goal (cells that matter ringed)")))
        rows = [figures_of[task.id] for task in tasks]
        in_suites = sorted({s for t in tasks for s in suites.get(t.id, [])})
        kind = "stochastic" if spec.stochastic else "deterministic"
        totals["worlds"] += 1
        totals["stochastic"] += spec.stochastic
        totals["tasks"] += len(rows)
        totals["passed"] += sum(r["passed"] for r in rows)
        sections.append(tag(
            "section",
            *figures,
            tag("div",
                tag("h2", name, id=f"world-{name}"),
                tag("p", f"{spec.size}x{spec.size}, {kind}. Mechanics: {spec.mechanics}.",
                    class_="meta"),
                tag("p", spec.description),
                tag("p", f"Suites: {', '.join(in_suites) or 'none'}.", class_="meta"),
                _task_table(rows) if rows else tag("p", "No shipped task.", class_="meta")),
            class_="world", data_world=name, data_size=spec.size,
            data_stochastic=str(spec.stochastic).lower()))
    summary = (f"{_count(totals['worlds'], 'world')} ({totals['stochastic']} stochastic), "
               f"{_count(totals['tasks'], 'task')}, {totals['passed']} passing every "
               f"validation check "
               f"(effort: {effort.rollouts} planning rollouts, {effort.random_answers} random "
               f"MFP answers, {effort.fuzz_runs} CD fuzz runs; {random_episodes} random CD "
               f"episodes).")
    index = tag("nav", join([tag("a", n, href=f"#world-{n}") for n in names], " | "))
    head = tag("head", tag("meta", charset="utf-8"),
               tag("meta", http_equiv="Content-Security-Policy", content=CSP),
               tag("title", TITLE), tag("style", Markup(STYLE)))
    body = tag("body", tag("h1", TITLE), tag("p", summary, class_="summary"), index,
               *sections)
    path = directory / GALLERY_FILE
    write_atomic(path, "<!DOCTYPE html>\n" + tag("html", head, body, lang="en") + "\n")
    return path
