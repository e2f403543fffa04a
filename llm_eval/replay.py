"""Replaying transcripts: re-run a recorded job offline and check it reproduces the recording.

A transcript's header holds the job's settings; ``job_from_transcript(path)`` rebuilds the
job from them and checks its id is the recorded one (so a changed task file, prompt template
or settings version is caught before anything runs). ``TranscriptReplay(path)`` is an adapter
that answers the job's model calls from the transcript's ``model_call`` events, in order: the
n-th request must have the n-th recorded request hash, or the call fails with a
``replay_mismatch`` naming the transcript, the call and its phase and step. Random and oracle
jobs need no adapter: they are deterministic given their seed.

``replay_transcript(path)`` re-runs the job with that adapter into a scratch directory and
compares the new transcript with the recorded one event by event. Ignored are what cannot
repeat: each event's ``time``, a model call's ``latency_s`` and its ``attempts`` (timings,
and the retries of transient failures, which a replay does not re-enact), and the header's
``run_id`` and ``versions`` (the package and Python versions that ran it). Everything else
must be equal: observations, requests (hash and content), responses, usage, cost, actions and
their validity, phase ends, score and end. The result names the first event that differs.

``replay_checks(target)`` lists what ``llm-eval replay`` checks for one path, and
``replay_check(path, row)`` runs one check and never raises for bad input. A run directory (one with
``run.sqlite``) is checked against its run store: every job the store records ``done`` must
have a readable, finished transcript of that job that reproduces, so a ``missing``,
``incomplete`` (torn, or ending other than done) or ``unreadable`` transcript of a done job
fails like a ``mismatch``; a job not done in the store (queued, running, failed, infra_error,
interrupted) is ``skipped``, and a transcript the store does not know is checked on its own.
Transcript files given on their own are judged by their own ``end``: one of a job that did
not finish is ``skipped``, and a file that cannot be read as a transcript (not UTF-8, not
JSON lines, no header) is ``unreadable``: an input error naming the file and line, not a
job, so it is not counted among the jobs checked.

``run_recorded(path, run_dir)`` runs a recorded job as a sweep in ``run_dir`` (run store and
transcript, as ``llm-eval run`` makes) with the replay adapter: the demo replays the shipped
real-model transcripts this way.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adapters.base import Adapter
from adapters.replay import recording_key
from adapters.types import Fatal, Request, Response

from .errors import LlmEvalError
from .runstore import STORE_FILE, JobRow, RunStore
from .sweep.spec import LOCAL_AGENTS, Job, Sweep
from .transcripts import ModelCall, Transcript, TranscriptError, read_transcript

__all__ = ["ReplayError", "TranscriptReplay", "ReplayResult", "job_from_transcript",
           "sweep_for", "replay_transcript", "run_recorded", "transcripts_in",
           "replay_checks", "replay_check"]

IGNORED = {"time"}
IGNORED_BY_TYPE = {"model_call": {"latency_s", "attempts"}, "header": {"run_id", "versions"}}
SKIPPED_BECAUSE = "the job's status is "   # then the end status, or unfinished


class ReplayError(LlmEvalError):
    """A transcript that cannot be replayed (no header, a job id its settings do not give)."""


class TranscriptReplay(Adapter):
    """Answers a job's model calls from its transcript, in recorded order (module docstring)."""

    provider = "replay"

    def __init__(self, path: str | Path, transcript: Transcript | None = None) -> None:
        self.path = Path(path)
        transcript = transcript if transcript is not None else read_transcript(self.path)
        self.calls: list[ModelCall] = transcript.of_type("model_call")
        super().__init__(str(self.path))
        self.used = 0

    async def complete(self, request: Request) -> Response:
        n = self.used
        if n >= len(self.calls):
            raise Fatal(f"replay mismatch: {self.path}: the job asked for model call {n}, but "
                        f"the transcript has only {len(self.calls)}", reason="replay_mismatch",
                        provider=self.provider)
        recorded = self.calls[n]
        # the agent records the hash of the request scrubbed (an answer that echoed a key is
        # replayed [redacted], and so is every later request quoting it); older transcripts
        # hold the plain canonical hash, the same whenever there was nothing to scrub
        digest = recording_key(request)
        if recorded.request_hash not in (digest, request.canonical_hash()):
            raise Fatal(f"replay mismatch: {self.path}: model call {n} (phase "
                        f"{recorded.phase}, step {recorded.step}) sends request "
                        f"{digest[:16]}..., the transcript recorded {recorded.request_hash[:16]}"
                        f"...; the prompt, rendering or history differs",
                        reason="replay_mismatch", provider=self.provider)
        self.used += 1
        return Response.model_validate(recorded.response)


def job_from_transcript(path: str | Path, transcript: Transcript | None = None) -> Job:
    """The job a transcript recorded, rebuilt from its header's settings (``transcript``: the
    file at ``path`` already read)."""
    path = Path(path)
    header = (transcript if transcript is not None else read_transcript(path)).header
    if header is None:
        raise ReplayError(f"{path}: no header event; not a transcript that can be replayed")
    job = Job.of(header.settings)
    if job.id != header.job_id:
        raise ReplayError(f"{path}: its settings give job id {job.id}, the header says "
                          f"{header.job_id}; the transcript was edited or made by an "
                          f"incompatible version")
    return job


def sweep_for(job: Job) -> Sweep:
    """A one-job sweep whose expansion is exactly ``job`` (``ReplayError`` if the job's task
    file or prompt templates changed since it was recorded)."""
    s = job.settings
    data: dict[str, Any] = {"name": f"replay-{job.id}", "models": [s["model"]],
                            "worlds": [s["world"]], "families": [s["family"]],
                            "seeds": [s["seed"]], "repeats": s["repeat"] + 1,
                            "budgets": {"interaction_steps": [s["interaction_steps"]]}}
    for key in ("horizon", "max_consecutive_invalid", "protocol", "ticks_per_action"):
        if key in s:
            data[key] = s[key]
    if "task_file" in s:
        data["tasks"] = [s["task_file"]]
    if s["model"] not in LOCAL_AGENTS:
        data["budgets"] |= {k: [s[k]] for k in ("reasoning_effort", "thinking_budget",
                                                "max_output_tokens", "history")}
        data |= {"prompts": [s["prompt"]], "renderings": [s["rendering"]],
                 "tool_mode": s["tool_mode"], "temperature": s["temperature"]}
        if "model_seed" in s:
            data["model_seed"] = s["model_seed"]
    sweep = Sweep.from_data(data, f"job {job.id}")
    expanded = {j.id: j for j in sweep.expand()}
    if job.id not in expanded:
        mine = next(j for j in expanded.values() if j.settings["repeat"] == s["repeat"])
        changed = sorted(k for k in set(s) | set(mine.settings)
                         if s.get(k) != mine.settings.get(k))
        raise ReplayError(f"job {job.id} cannot be run again as recorded: {', '.join(changed)} "
                          f"differ now (a task file or prompt template changed)")
    return sweep


@dataclass(frozen=True, slots=True)
class ReplayResult:
    """One check: ``status`` is ``reproduced``, ``skipped``, or a failure: ``mismatch``,
    ``missing``, ``incomplete``, ``unreadable`` (module docstring); ``job_id`` is None for a
    file that is not a readable transcript (an input error, not a job)."""

    path: Path
    job_id: str | None
    task: str
    model: str
    status: str
    score: float | None = None
    detail: str = ""

    @property
    def reproduced(self) -> bool:
        return self.status == "reproduced"

    @property
    def checked(self) -> bool:
        """A job that was checked: counted in ``reproduced N/M``."""
        return self.job_id is not None and self.status != "skipped"

    def line(self) -> str:
        """The line ``llm-eval replay`` prints for it."""
        score = f" score {self.score:.3f}" if self.score is not None else ""
        head = (f"{self.path}" if self.job_id is None
                else f"{self.job_id}  {self.model}  {self.task}")
        return f"{head}  {self.status}{score}" + (f": {self.detail}" if self.detail else "")


def _comparable(event) -> dict[str, Any]:
    data = event.model_dump(mode="json")
    for key in IGNORED | IGNORED_BY_TYPE.get(data["type"], set()):
        data.pop(key, None)
    return data


def _first_difference(old: dict, new: dict, prefix: str = "") -> str:
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            return _first_difference(a, b, f"{prefix}{key}.")
        return f"{prefix}{key}: recorded {_short(a)}, replayed {_short(b)}"
    return ""


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True)
    return text if len(text) <= 80 else text[:77] + "..."


def _where(event) -> str:
    parts = [event.type]
    for key in ("phase", "index", "step"):
        value = getattr(event, key, None)
        if value is not None:
            parts.append(f"{key} {value}")
    return ", ".join(parts)


def compare_transcripts(recorded: Path | Transcript, replayed: Path | Transcript) -> str:
    """The first difference between two transcripts, each a path or one already read (module
    docstring), or ``""``."""
    old, new = (t.events if isinstance(t, Transcript) else read_transcript(t).events
                for t in (recorded, replayed))
    for n, (a, b) in enumerate(zip(old, new)):
        da, db = _comparable(a), _comparable(b)
        if da != db:
            return f"event {n} ({_where(a)}): {_first_difference(da, db)}"
    if len(old) != len(new):
        n = min(len(old), len(new))
        longer = old if len(old) > len(new) else new
        which = "recorded" if longer is old else "replayed"
        return (f"event {n} ({_where(longer[n])}): only in the {which} transcript "
                f"({len(old)} events recorded, {len(new)} replayed)")
    return ""


def replay_transcript(path: str | Path, transcript: Transcript | None = None) -> ReplayResult:
    """Re-run the job of the transcript at ``path`` (``transcript``: it, already read) offline
    and compare (module docstring). A transcript of a job that did not finish (``end`` is not
    ``done``) is ``skipped``."""
    from .sweep.job import execute_job

    path = Path(path)
    transcript = transcript if transcript is not None else read_transcript(path)
    header = transcript.header
    job = job_from_transcript(path, transcript)
    s = job.settings
    base = dict(path=path, job_id=job.id, task=s["task"], model=s["model"])
    end = transcript.events[-1] if transcript.events else None
    if end is None or end.type != "end" or end.status != "done":
        status = end.status if end is not None and end.type == "end" else "unfinished"
        return ReplayResult(**base, status="skipped", detail=SKIPPED_BECAUSE + status)
    adapter = None if s["model"] in LOCAL_AGENTS else TranscriptReplay(path, transcript)
    with tempfile.TemporaryDirectory(prefix="llm-eval-replay-") as scratch:
        again = Path(scratch) / path.name
        outcome = execute_job(job, sweep_for(job), again, run_id=header.run_id,
                              adapter=adapter)
        detail = compare_transcripts(transcript, again)
        if outcome.status != "done":
            ended = f"the replayed job ended {outcome.status} ({outcome.error})"
            detail = f"{detail}; {ended}" if detail else ended
    return ReplayResult(**base, status="mismatch" if detail else "reproduced",
                        score=outcome.score, detail=detail)


def transcripts_in(target: str | Path) -> list[Path]:
    """The transcripts a path names: a transcript file, or a run directory's
    ``transcripts/*.jsonl`` (not earlier executions' attempts)."""
    target = Path(target)
    if target.is_file():
        return [target]
    for folder in (target / "transcripts", target):
        if folder.is_dir() and any(folder.glob("*.jsonl")):
            return sorted(folder.glob("*.jsonl"))
    raise ReplayError(f"{target}: neither a transcript nor a run directory with transcripts")


def replay_checks(target: str | Path) -> list[tuple[Path, JobRow | None]]:
    """What ``llm-eval replay`` checks for ``target`` (module docstring): ``(transcript,
    store row)`` pairs in path order, the row None for a transcript judged on its own."""
    target = Path(target)
    if not (target.is_dir() and (target / STORE_FILE).is_file()):
        return [(path, None) for path in transcripts_in(target)]
    rows: dict[str, JobRow] = {}
    with RunStore(target / STORE_FILE, readonly=True) as store:
        for run in store.runs():
            for row in store.jobs(run["id"]):   # a job id is one job however many runs name it
                if row.id not in rows or row.status == "done":
                    rows[row.id] = row
    checks: dict[Path, tuple[Path, JobRow | None]] = {}   # by resolved path
    for row in rows.values():
        path = target / (row.transcript or f"transcripts/{row.id}.jsonl")
        if row.status == "done" or path.is_file():   # a job never started left nothing
            checks[path.resolve()] = (path, row)
    for path in (target / "transcripts").glob("*.jsonl"):
        checks.setdefault(path.resolve(), (path, None))
    if not checks:
        raise ReplayError(f"{target}: a run directory with no transcripts and no done jobs")
    return sorted(checks.values(), key=lambda item: str(item[0]))


def replay_check(path: Path, row: JobRow | None = None) -> ReplayResult:
    """One check of ``replay_checks``: the job of store ``row`` (its transcript at ``path``),
    or the transcript at ``path`` on its own; bad input is a result, never an exception."""
    if row is None:
        return _check_file(path)
    base = dict(path=path, job_id=row.id, task=row.settings.get("task", "?"),
                model=row.settings.get("model", "?"))
    if row.status != "done":
        return ReplayResult(**base, status="skipped", detail=SKIPPED_BECAUSE + _status_of(row))
    done = "the store records the job done, but its transcript "
    if not path.is_file():
        return ReplayResult(**base, status="missing", detail=f"{done}does not exist")
    try:
        transcript = read_transcript(path)
    except (TranscriptError, OSError) as exc:
        return ReplayResult(**base, status="unreadable", detail=f"{done}cannot be read: {exc}")
    header = transcript.header
    if header is None:
        return ReplayResult(**base, status="unreadable", detail=f"{done}has no header")
    if header.job_id != row.id:
        return ReplayResult(**base, status="mismatch",
                            detail=f"{done}is of job {header.job_id}")
    end = transcript.events[-1]
    if end.type != "end" or end.status != "done":
        how = (f"ends {end.status}" if end.type == "end" else
               f"has no end event (line {transcript.torn} is torn)" if transcript.torn
               else "has no end event")
        return ReplayResult(**base, status="incomplete", detail=f"{done}{how}")
    return _replayed(path, transcript)


def _check_file(path: Path) -> ReplayResult:
    """A transcript given on its own: replayed if finished, unreadable if not a transcript."""
    try:
        transcript = read_transcript(path)
    except OSError as exc:
        return ReplayResult(path, None, "?", "?", "unreadable",
                            detail=f"cannot be read: {path}: {exc.strerror or exc}")
    except TranscriptError as exc:
        what = "not a transcript" if exc.line == 1 else "not a valid transcript"
        return ReplayResult(path, None, "?", "?", "unreadable", detail=f"{what}: {exc}")
    if transcript.header is None:
        why = "no events" if not transcript.events else \
            f"the first event is {transcript.events[0].type!r}, not a header"
        return ReplayResult(path, None, "?", "?", "unreadable",
                            detail=f"not a transcript: {path}:1: {why}")
    return _replayed(path, transcript)


def _replayed(path: Path, transcript: Transcript) -> ReplayResult:
    header = transcript.header
    try:
        return replay_transcript(path, transcript)
    except LlmEvalError as exc:   # a job that cannot be rebuilt or run again
        return ReplayResult(path, header.job_id, header.settings.get("task", "?"),
                            header.settings.get("model", "?"), "mismatch", detail=str(exc))


def _status_of(row: JobRow) -> str:
    """A store job's status, naming an execution that was stopped (queued again) interrupted."""
    if row.status == "queued" and (row.error or "").startswith("stopped:"):
        return "interrupted"
    return row.status


def run_recorded(path: str | Path, run_dir: str | Path):
    """Run the job recorded at ``path`` as a one-job sweep in ``run_dir``, its model calls
    answered from the recording; returns the scheduler's ``RunReport``."""
    from .sweep.job import execute_job
    from .sweep.scheduler import run_sweep

    path = Path(path)
    job = job_from_transcript(path)

    def execute(job_, spec, transcript, **kwargs):
        adapter = None if job_.model in LOCAL_AGENTS else TranscriptReplay(path)
        return execute_job(job_, spec, transcript, adapter=adapter, **kwargs)

    return run_sweep(sweep_for(job), run_dir, execute=execute)
