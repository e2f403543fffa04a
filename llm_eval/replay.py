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

``run_recorded(path, run_dir)`` runs a recorded job as a sweep in ``run_dir`` (run store and
transcript, as ``llm-eval run`` makes) with the replay adapter: the demo replays the shipped
real-model transcripts this way.
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adapters.base import Adapter
from adapters.types import Fatal, Request, Response

from .errors import LlmEvalError
from .sweep.spec import LOCAL_AGENTS, Job, Sweep
from .transcripts import ModelCall, read_transcript

__all__ = ["ReplayError", "TranscriptReplay", "ReplayResult", "job_from_transcript",
           "sweep_for", "replay_transcript", "run_recorded", "transcripts_in"]

IGNORED = {"time"}
IGNORED_BY_TYPE = {"model_call": {"latency_s", "attempts"}, "header": {"run_id", "versions"}}
SKIPPED_BECAUSE = "the job's status is "   # then the end status, or unfinished


class ReplayError(LlmEvalError):
    """A transcript that cannot be replayed (no header, a job id its settings do not give)."""


class TranscriptReplay(Adapter):
    """Answers a job's model calls from its transcript, in recorded order (module docstring)."""

    provider = "replay"

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.calls: list[ModelCall] = read_transcript(self.path).of_type("model_call")
        super().__init__(str(self.path))
        self.used = 0

    async def complete(self, request: Request) -> Response:
        n = self.used
        if n >= len(self.calls):
            raise Fatal(f"replay mismatch: {self.path}: the job asked for model call {n}, but "
                        f"the transcript has only {len(self.calls)}", reason="replay_mismatch",
                        provider=self.provider)
        recorded = self.calls[n]
        digest = request.canonical_hash()
        if digest != recorded.request_hash:
            raise Fatal(f"replay mismatch: {self.path}: model call {n} (phase "
                        f"{recorded.phase}, step {recorded.step}) sends request "
                        f"{digest[:16]}..., the transcript recorded {recorded.request_hash[:16]}"
                        f"...; the prompt, rendering or history differs",
                        reason="replay_mismatch", provider=self.provider)
        self.used += 1
        return Response.model_validate(recorded.response)


def job_from_transcript(path: str | Path) -> Job:
    """The job a transcript recorded, rebuilt from its header's settings."""
    path = Path(path)
    header = read_transcript(path).header
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
    for key in ("horizon", "max_consecutive_invalid"):
        if key in s:
            data[key] = s[key]
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
    path: Path
    job_id: str
    task: str
    model: str
    status: str              # reproduced, mismatch, skipped
    score: float | None = None
    detail: str = ""

    @property
    def reproduced(self) -> bool:
        return self.status == "reproduced"


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


def compare_transcripts(recorded: Path, replayed: Path) -> str:
    """The first difference between two transcripts (module docstring), or ``""``."""
    old, new = read_transcript(recorded).events, read_transcript(replayed).events
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


def replay_transcript(path: str | Path) -> ReplayResult:
    """Re-run the job of the transcript at ``path`` offline and compare (module docstring).
    A transcript of a job that did not finish (``end`` is not ``done``) is ``skipped``."""
    from .sweep.job import execute_job

    path = Path(path)
    transcript = read_transcript(path)
    header = transcript.header
    job = job_from_transcript(path)
    s = job.settings
    base = dict(path=path, job_id=job.id, task=s["task"], model=s["model"])
    end = transcript.events[-1] if transcript.events else None
    if end is None or end.type != "end" or end.status != "done":
        status = end.status if end is not None and end.type == "end" else "unfinished"
        return ReplayResult(**base, status="skipped", detail=SKIPPED_BECAUSE + status)
    adapter = None if s["model"] in LOCAL_AGENTS else TranscriptReplay(path)
    with tempfile.TemporaryDirectory(prefix="llm-eval-replay-") as scratch:
        again = Path(scratch) / path.name
        outcome = execute_job(job, sweep_for(job), again, run_id=header.run_id,
                              adapter=adapter)
        detail = compare_transcripts(path, again)
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


# -- llm-eval replay ------------------------------------------------------------------------------
def cmd_replay(args) -> int:
    """``llm-eval replay RUN_DIR|TRANSCRIPT...``: one line per transcript, then
    ``reproduced N/M``; exit 0 when at least one job is reproduced and none mismatches, 1 on
    any mismatch, 2 when a path holds no transcript or no transcript could be replayed (every
    job unfinished: a check that verified nothing does not pass)."""
    import sys

    try:
        paths = [p for target in args.targets for p in transcripts_in(target)]
    except ReplayError as exc:
        print(f"llm-eval: error: {exc}", file=sys.stderr)
        return 2
    results = []
    for path in paths:
        try:
            result = replay_transcript(path)
        except (ReplayError, LlmEvalError) as exc:
            result = ReplayResult(path, "?", "?", "?", "mismatch", detail=str(exc))
        results.append(result)
        score = f" score {result.score:.3f}" if result.score is not None else ""
        line = f"{result.job_id}  {result.model}  {result.task}  {result.status}{score}"
        print(line + (f": {result.detail}" if result.detail else ""), flush=True)
    checked = [r for r in results if r.status != "skipped"]
    reproduced = sum(r.reproduced for r in checked)
    skipped = len(results) - len(checked)
    print(f"reproduced {reproduced}/{len(checked)}"
          + (f" ({skipped} unfinished jobs skipped)" if skipped else ""))
    for r in checked:
        if not r.reproduced:
            print(f"mismatch: job {r.job_id} ({r.path}): {r.detail}", file=sys.stderr)
    if not checked:
        print(f"llm-eval: error: nothing could be replayed: {_skipped_summary(results)}",
              file=sys.stderr)
        return 2
    return 0 if reproduced == len(checked) else 1


def _skipped_summary(skipped: list[ReplayResult]) -> str:
    """``"3 transcript(s) skipped: not finished (unfinished 2, interrupted 1)"``."""
    statuses = Counter(r.detail.removeprefix(SKIPPED_BECAUSE) for r in skipped)
    counts = ", ".join(f"{status} {n}" for status, n in statuses.most_common())
    return f"{len(skipped)} transcript(s) skipped: not finished ({counts})"


def add_replay_parser(commands):
    """Add ``replay`` to the ``llm-eval`` subcommands."""
    replay = commands.add_parser(
        "replay", help="re-run recorded jobs offline and check they reproduce their transcripts",
        description="Re-run each finished job of a run directory (or each transcript given) "
                    "with its model calls answered from the transcript, and compare the new "
                    "transcript with the recorded one, ignoring times, latencies and retry "
                    "attempts. Prints one line per job and 'reproduced N/M'; exits 1 naming "
                    "the job, event and step of any mismatch, and 2 when no job could be "
                    "replayed (none finished).")
    replay.add_argument("targets", nargs="+", metavar="RUN_DIR|TRANSCRIPT")
    replay.set_defaults(handler=cmd_replay)
    return replay
