"""Side by side: the tasks where two arms differ most, and both episodes next to each other.

``differing_tasks(a, b, match)`` pairs the done episodes of arm A and arm B on ``match`` (by
default world, family, seed and repeat: one episode of each arm per pair, the same world
played from the same seed) and orders the pairs by how far apart the scores are, largest
first (ties in natural order of the key, so the list is the same every time). Repeats of one
key within an arm are averaged, as ``compare`` does, and the episode shown is the first of
them in store order.

``llm-eval compare A B --tasks [N]`` prints that list (``format_differences``); ``llm-eval
report ... --side-by-side ARM_A ARM_B`` adds a section with the list and, for the first
pairs, the two episodes in two columns, each as the transcript viewer draws it (frames,
actions, the model's words and tool calls; all text escaped by ``markup.tag``).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .markup import Markup, join, tag

__all__ = ["Difference", "differing_tasks", "format_differences", "render_side_by_side",
           "DEFAULT_SHOWN"]

DEFAULT_SHOWN = 5   # pairs whose episodes the report draws side by side


@dataclass(frozen=True)
class Difference:
    key: tuple[str, ...]
    mean_a: float
    mean_b: float
    episode_a: Any
    episode_b: Any

    @property
    def diff(self) -> float:
        return self.mean_b - self.mean_a


def differing_tasks(a: Sequence[Any], b: Sequence[Any],
                    match: Sequence[str]) -> list[Difference]:
    """Every pair of A and B on ``match``, largest score difference first (module
    docstring)."""
    from ..analysis.stats import natural_key, task_key

    def cells(arm):
        found: dict[tuple, list] = defaultdict(list)
        for episode in arm:
            if episode.is_done:
                found[task_key(episode, match)].append(episode)
        return found

    cells_a, cells_b = cells(a), cells(b)
    pairs = []
    for key in cells_a.keys() & cells_b.keys():
        ea, eb = cells_a[key], cells_b[key]
        pairs.append(Difference(key, sum(e.score for e in ea) / len(ea),
                                sum(e.score for e in eb) / len(eb), ea[0], eb[0]))
    pairs.sort(key=lambda d: (-abs(d.diff), tuple(natural_key(k) for k in d.key)))
    return pairs


def format_differences(pairs: Sequence[Difference], match: Sequence[str], *,
                       limit: int | None = None) -> str:
    """An aligned table of the pairs (the first ``limit``), with both job ids."""
    shown = list(pairs if limit is None else pairs[:limit])
    table = [(*match, "A", "B", "B - A", "job A", "job B")]
    for d in shown:
        table.append((*d.key, f"{d.mean_a:.3f}", f"{d.mean_b:.3f}", f"{d.diff:+.3f}",
                      d.episode_a.job_id, d.episode_b.job_id))
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip()
             for line in table]
    rest = len(pairs) - len(shown)
    head = f"tasks where the arms differ most ({len(pairs)} pair(s)"
    head += f", {rest} more not shown):" if rest else "):"
    return "\n".join([head, *lines])


def render_side_by_side(a_label: str, a: Sequence[Any], b_label: str, b: Sequence[Any],
                        match: Sequence[str], limits, *, shown: int = DEFAULT_SHOWN) -> Markup:
    """The report's side-by-side section (module docstring)."""
    from .viewer import render_episode

    pairs = differing_tasks(a, b, match)
    header = tag("tr", *[tag("th", k) for k in match], tag("th", f"A: {a_label}"),
                 tag("th", f"B: {b_label}"), tag("th", "B - A"))
    rows = [tag("tr", *[tag("td", k) for k in d.key], tag("td", f"{d.mean_a:.3f}", class_="num"),
                tag("td", f"{d.mean_b:.3f}", class_="num"),
                tag("td", f"{d.diff:+.3f}", class_="num")) for d in pairs]
    views = []
    for d in pairs[:shown]:
        title = " ".join(f"{k}={v}" for k, v in zip(match, d.key))
        views.append(tag("details", tag("summary", f"{title}: A {d.mean_a:.3f}, B "
                                        f"{d.mean_b:.3f}"),
                         tag("div", tag("div", tag("h3", f"A: {a_label}"),
                                        render_episode(d.episode_a, limits), class_="side"),
                             tag("div", tag("h3", f"B: {b_label}"),
                                 render_episode(d.episode_b, limits), class_="side"),
                             class_="sides"), class_="pair"))
    note = (f"{len(pairs)} pair(s) matched on {', '.join(match)}, largest difference first; "
            f"the first {min(shown, len(pairs))} drawn side by side.")
    return join([tag("h2", "Side by side", id="side-by-side"), tag("p", note),
                 tag("table", header, *rows, class_="side-by-side"), *views])
