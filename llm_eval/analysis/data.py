"""Episodes as the analysis sees them: one job of a run, read from a run directory's store.

``load_episodes(run_dirs)`` opens ``run.sqlite`` in each directory and returns one ``Episode``
per job of every run stored there, in store order. An ``Episode`` keeps the job's settings,
status, score, usage and cost, and the absolute path of its transcript; its properties name
the settings the analysis groups by. Only ``done`` episodes have a score; ``infra_error``
ones (retries exhausted) and ``fatal`` ones (refused by the provider for a reason only the user
can fix, such as no credit) are never scored and are counted apart. A done episode the model's
full context cut short (``ended`` "context") is scored as it stood and counted in every
mean; ``ended_on_context`` lets a table show how many there were.

A directory given twice is read once, and a job that several runs name (the same job id:
the same settings), in one directory or in several, is one episode: the done one if any, else
the first read; ``duplicates``, when given, collects the copies left out, so a report can say
how many there were. A path that is not a run directory (no ``run.sqlite``,
or a file that is not a run store) is an ``AnalysisError`` naming it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import LlmEvalError
from ..runstore import STORE_FILE, RunStore, RunStoreError

# the settings that pair an episode of one arm with one of another (compare, the report)
DEFAULT_MATCH = ("world", "family", "seed", "repeat")

__all__ = ["Episode", "AnalysisError", "load_episodes"]


class AnalysisError(LlmEvalError):
    """Input the analysis cannot use: a path that is not a run directory, a selection that
    matches no episode, an unknown measure. The message names the path or the setting."""


@dataclass(frozen=True)
class Episode:
    """One job of a run: its settings and outcome (``score`` is set only when ``done``)."""

    run_dir: Path
    run_id: str
    job_id: str
    settings: dict[str, Any]
    status: str
    score: float | None
    usage: dict[str, Any] | None
    cost_usd: float | None
    transcript: Path | None
    spent_usd: float = 0.0   # every execution's cost, interrupted and failed ones included
    ended: str | None = None   # a done episode cut short and scored as it stood: "context"...

    def knob(self, name: str) -> Any:
        """The job's setting ``name`` (None when the job has no such setting)."""
        return self.settings.get(name)

    @property
    def model(self) -> str:
        return self.settings.get("model", "")

    @property
    def world(self) -> str:
        return self.settings.get("world", "")

    @property
    def family(self) -> str:
        return self.settings.get("family", "")

    @property
    def task(self) -> str:
        return self.settings.get("task", "")

    @property
    def seed(self) -> int | None:
        return self.settings.get("seed")

    @property
    def repeat(self) -> int | None:
        return self.settings.get("repeat")

    @property
    def is_done(self) -> bool:
        """Finished and scored: the only episodes whose scores are aggregated."""
        return self.status == "done" and self.score is not None

    @property
    def done_score(self) -> float:
        """The score of a done episode (``is_done``); ``ValueError`` for any other."""
        if not self.is_done or self.score is None:
            raise ValueError(f"episode {self.job_id} is not done: it has no score")
        return self.score

    @property
    def ended_on_context(self) -> bool:
        """Done and scored, but ended early because the model's context was full (counted in
        the means like any done episode, and shown apart)."""
        return self.is_done and self.ended == "context"

    @property
    def is_infra_error(self) -> bool:
        return self.status == "infra_error"

    @property
    def is_fatal(self) -> bool:
        """Refused by the provider for a reason only the user can fix (no credit, a refused
        key, an unknown model): never scored, left by ``--resume`` unless asked."""
        return self.status == "fatal"

    def tokens(self, kind: str) -> int | None:
        """``usage[kind]`` (e.g. ``input_tokens``, ``calls``); None without usage."""
        if self.usage is None:
            return None
        value = self.usage.get(kind)
        return int(value) if value is not None else None

    @property
    def total_tokens(self) -> int | None:
        """Input plus output tokens of every model call (None for random and oracle)."""
        if self.usage is None:
            return None
        return (self.tokens("input_tokens") or 0) + (self.tokens("output_tokens") or 0)

    @property
    def reasoning_tokens(self) -> int | None:
        return self.tokens("reasoning_tokens")


def load_episodes(run_dirs: Iterable[str | Path], *,
                  duplicates: list[Episode] | None = None) -> list[Episode]:
    """Every job of every run stored in each of ``run_dirs``, each job id once (module
    docstring); the copies of a job id found in a later directory go to ``duplicates``."""
    chosen: dict[str, Episode] = {}
    seen: set[Path] = set()
    for given in run_dirs:
        run_dir = Path(given).resolve()
        if run_dir in seen:
            continue
        seen.add(run_dir)
        for episode in _read_run_dir(Path(given), run_dir):
            first = chosen.get(episode.job_id)
            if first is None:
                chosen[episode.job_id] = episode
                continue
            if episode.status == "done" and first.status != "done":
                chosen[episode.job_id], episode = episode, first
            if duplicates is not None:
                duplicates.append(episode)
    return list(chosen.values())


def _read_run_dir(given: Path, run_dir: Path) -> list[Episode]:
    store_path = run_dir / STORE_FILE
    if not run_dir.is_dir():
        raise AnalysisError(f"{given}: not a run directory (no such directory)")
    if not store_path.is_file():
        raise AnalysisError(f"{given}: not a run directory (no {STORE_FILE}; make one with "
                            "llm-eval run)")
    try:
        with RunStore(store_path, readonly=True) as store:
            rows = [row for run in store.runs() for row in store.jobs(run["id"])]
    except RunStoreError as exc:
        raise AnalysisError(f"{given}: not a run directory ({exc})") from None
    # a job named by several runs of the directory is one episode: the done row if any
    # (they share one transcript and one result), else the first run's
    chosen: dict[str, Any] = {}
    for row in rows:
        if row.id not in chosen or (row.status == "done" and chosen[row.id].status != "done"):
            chosen[row.id] = row
    rows = list(chosen.values())
    return [Episode(run_dir=run_dir, run_id=row.run_id, job_id=row.id, settings=row.settings,
                    status=row.status, score=row.score, usage=row.usage,
                    cost_usd=row.cost_usd, transcript=_transcript_path(run_dir, row.transcript),
                    spent_usd=row.spent_usd, ended=row.ended)
            for row in rows]


def _transcript_path(run_dir: Path, recorded: str | None) -> Path | None:
    if not recorded:
        return None
    path = Path(recorded)
    return path if path.is_absolute() else run_dir / path
