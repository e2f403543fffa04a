"""Fabricated inputs for the analysis tests: episodes built in memory, run stores written row
by row with LLM-like usage, and transcripts written event by event."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from llm_eval.analysis import Episode
from llm_eval.runstore import RunStore
from llm_eval.sweep import Job
from llm_eval.transcripts import (
    ActionEvent,
    End,
    Header,
    PhaseEnd,
    PhaseStart,
    Score,
    TranscriptWriter,
)


def episode(score: float | None = 1.0, *, status: str = "done", usage: dict | None = None,
            cost: float | None = None, transcript: Path | None = None, job: str = "",
            **settings: Any) -> Episode:
    """An episode in memory; settings default to model m, world w, family mfp, seed 1."""
    full = {"model": "m", "world": "w", "family": "mfp", "seed": 1, "repeat": 0} | settings
    full.setdefault("task", f"{full['world']}-{full['family']}")
    return Episode(run_dir=Path("."), run_id="r", job_id=job or Job.of(full).id,
                   settings=full, status=status, score=score if status == "done" else None,
                   usage=usage, cost_usd=cost, transcript=transcript)


def usage(input_tokens: int = 1000, output_tokens: int = 100, reasoning_tokens: int = 0,
          calls: int = 10) -> dict:
    return {"calls": calls, "retries": 0, "input_tokens": input_tokens,
            "output_tokens": output_tokens, "reasoning_tokens": reasoning_tokens}


def write_store(run_dir: Path, rows: list[dict], run_id: str = "r1") -> Path:
    """A run store with one job per row: ``settings``, ``status`` (done, failed,
    infra_error, queued, running) and, when done, ``score``, ``usage``, ``cost``."""
    run_dir.mkdir(parents=True, exist_ok=True)
    with RunStore(run_dir / "run.sqlite") as store:
        store.add_run(run_id, "fabricated", {"models": ["m"]})
        jobs = [Job.of(row["settings"]) for row in rows]
        store.add_jobs(run_id, jobs)
        for job, row in zip(jobs, rows):
            status = row.get("status", "done")
            if status == "queued":
                continue
            store.start(run_id, job.id, f"transcripts/{job.id}.jsonl")
            if status == "done":
                store.finish(run_id, job.id, score=row["score"], raw_reward=row["score"],
                             usage=row.get("usage"), cost_usd=row.get("cost"))
            elif status in ("failed", "infra_error"):
                store.fail(run_id, job.id, status, "simulated", usage=row.get("usage"))
    return run_dir


def write_transcript(path: Path, actions: list[tuple[str, str, bool]], *,
                     settings: dict | None = None, coverage: tuple[int, int] | None = (3, 4),
                     job_id: str = "job1") -> Path:
    """A transcript with these ``(phase, action, valid)`` action events, and a score event
    carrying ``coverage`` (none when None)."""
    settings = settings or {"model": "m", "world": "w", "family": "mfp", "task": "w-mfp",
                            "seed": 1, "repeat": 0}
    with TranscriptWriter(path) as writer:
        writer.write(Header(job_id=job_id, run_id="r1", settings=settings, task_id="w-mfp",
                            world="w", family="mfp", seed=1))
        phase = None
        for index, (name, action, valid) in enumerate(actions):
            if name != phase:
                if phase is not None:
                    writer.write(PhaseEnd(phase=phase, steps=0, invalid_actions=0,
                                          ended="terminated"))
                writer.write(PhaseStart(phase=name))
                phase = name
            writer.write(ActionEvent(index=index, phase=name, action=action, valid=valid))
        if phase is not None:
            writer.write(PhaseEnd(phase=phase, steps=0, invalid_actions=0, ended="terminated"))
        if coverage is not None:
            writer.write(Score(score=1.0, raw_reward=1.0, family="mfp",
                               result={"coverage": {"covered": coverage[0],
                                                    "total": coverage[1]}}))
        writer.write(End(status="done"))
    return path
