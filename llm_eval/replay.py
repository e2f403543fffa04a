"""Replaying transcripts: re-run a recorded job offline and check it reproduces the recording.

A transcript's header holds the job's settings; ``job_from_transcript(path)`` rebuilds the
job from them and checks its id is the recorded one (so a changed task file, prompt template
or settings version is caught before anything runs). ``TranscriptReplay(path)`` is an adapter
that answers the job's model calls from the transcript's ``model_call`` events, in order,
reading them as they are asked for: the n-th request must have the n-th recorded request
hash, or the call fails with a ``replay_mismatch`` naming the transcript, the call and its
phase and step. A reply the recording stored cut to the cap (``transcripts.cap``) is replayed
cut, and the requests that re-send it then match the recorded requests as stored; the result
is still ``reproduced``, with a note saying so. Random and oracle jobs need no adapter: they
are deterministic given their seed. A person's job (``human/<participant>``) is played again
by a ``HumanAgent`` given the transcript's actions (``recorded_actions``), in order, and so is
an outside agent's that played through ``llm-eval mcp`` (``mcp/<client>``). An agent's tool
calls (``agent_tools``) are answered from the transcript's ``tool_call`` events, each checked
to be the recorded call (``agent_tools.replay.RecordedTools``): no tool runs again.

``replay_transcript(path)`` re-runs the job with that adapter into a scratch directory and
compares the new transcript with the recorded one event by event. Ignored are what cannot
repeat: each event's ``time``, a model call's ``latency_s`` and its ``attempts`` (timings,
and the retries of transient failures, which a replay does not re-enact), and the header's
``run_id``, ``versions`` (the package and Python versions that ran it) and ``cache`` (how the
provider was asked to cache prompts: a replay calls no provider), each event's
``schema_version`` and a model call's ``truncated`` list (the cut strings it lists are
compared themselves). Everything else must be equal: observations, requests (hash and
content), responses, usage, cost, actions and their validity, phase ends, score and end. The
result names the first event that differs.
Both transcripts are read as streams, model calls compared as stored and, where the stored
forms differ (a schema-1 recording stored every request whole), whole.

``replay_checks(target)`` lists what ``llm-eval replay`` checks for one path, and
``replay_check(path, row)`` runs one check and never raises for bad input. A run directory (one with
``run.sqlite``) is checked against its run store: every job the store records ``done`` must
have a readable, finished transcript of that job that reproduces, so a ``missing``,
``incomplete`` (torn, or ending other than done) or ``unreadable`` transcript of a done job
fails like a ``mismatch``; a job not done in the store (queued, running, failed, infra_error,
fatal, interrupted) is ``skipped``, and a transcript the store does not know is checked on its own.
Transcript files given on their own are judged by their own ``end``: one of a job that did
not finish is ``skipped``, and a file that cannot be read as a transcript (not UTF-8, not
JSON lines, no header) is ``unreadable``: an input error naming the file and line, not a
job, so it is not counted among the jobs checked.

A job is priced as its run priced it: the header's ``versions["prices"]`` records the price
its model was charged (name, source and rates: ``PriceBook.describe(model)``), and the replay
charges that (``PinnedPrices``), whatever LiteLLM's map or the price file says now. A header
from before that names only its price file: the file is read again if it is still there with
the recorded sha256, else the check fails saying so. ``prices`` (``llm-eval replay --prices
FILE``) prices the replay with that file instead; a file with the recorded sha256 is the run's
own, however it was moved (its costs name the recorded file, as the run's did).

``run_recorded(path, run_dir)`` runs a recorded job as a sweep in ``run_dir`` (run store and
transcript, as ``llm-eval run`` makes) with the replay adapter: the demo replays the shipped
real-model transcripts this way.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llm_eval.adapters.base import Adapter
from llm_eval.adapters.replay import recording_key
from llm_eval.adapters.types import Fatal, ImagePart, Request, Response

from .calls import CONTEXT_OVERFLOW
from .errors import LlmEvalError
from .runstore import STORE_FILE, TRANSCRIPTS_DIR, JobRow, RunStore
from .sweep.spec import Job, Sweep, plays_from_outside, plays_without_model
from .transcripts import (
    CallExpander,
    Transcript,
    TranscriptError,
    TranscriptStream,
    transcript_files,
    transcript_name,
)
from .transcripts.cap import holds_capped

__all__ = ["ReplayError", "TranscriptReplay", "ReplayResult", "Outline", "outline",
           "job_from_transcript", "sweep_for", "replay_transcript", "compare_transcripts",
           "run_recorded", "transcripts_in", "replay_checks", "replay_check",
           "recorded_actions", "replay_prices"]

IGNORED = {"time", "schema_version"}
IGNORED_BY_TYPE = {"model_call": {"latency_s", "attempts", "truncated"},
                   # the same request refused at the same point; the provider's words differ
                   "context_exhausted": {"attempts", "message", "provider"},
                   # how long a tool took: a replay runs none (agent_tools.replay)
                   "tool_call": {"seconds"},
                   # how the provider cached the prompts: a replay calls no provider
                   "header": {"run_id", "versions", "cache"}}
SKIPPED_BECAUSE = "the job's status is "   # then the end status, or unfinished


class ReplayError(LlmEvalError):
    """A transcript that cannot be replayed (no header, a job id its settings do not give)."""


def stored_hash(request: dict[str, Any]) -> str:
    """The canonical hash of a request as JSON (``Request.canonical_hash`` of the data)."""
    text = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _as_stored(request: Request) -> dict[str, Any]:
    """A request as a transcript stores it: images as ``<image sha256=...>``."""
    sent = request.canonical()
    for message in sent["messages"]:
        for part in message["parts"]:
            if part.get("type") == "image":
                part["data"] = f"<image sha256={ImagePart.model_validate(part).sha256()}>"
    return sent


class TranscriptReplay(Adapter):
    """Answers a job's model calls from its transcript, in recorded order (module docstring).

    The transcript is read as the calls come (one recorded call at a time). A recorded call
    whose stored request lost text (a reply cut to the cap, ``transcripts.cap``, that later
    requests re-send) cannot give the hash the replayed request has: such a request matches
    when it equals the recorded request as stored, and is counted in ``from_stored``; replies
    the recording holds cut are counted in ``cut_replies`` (the replay answers with the cut
    text)."""

    provider = "replay"

    def __init__(self, path: str | Path, transcript: Transcript | None = None) -> None:
        self.path = Path(path)
        events = transcript.events if transcript is not None else TranscriptStream(self.path)
        self._calls = (e for e in events if e.type in ("model_call", "context_exhausted"))
        super().__init__(str(self.path))
        self.used = 0
        self.from_stored = 0
        self.cut_replies = 0

    async def complete(self, request: Request) -> Response:
        n = self.used
        recorded = next(self._calls, None)
        if recorded is None:
            raise Fatal(f"replay mismatch: {self.path}: the job asked for model call {n}, but "
                        f"the transcript has only {n}", reason="replay_mismatch",
                        provider=self.provider)
        # the agent records the hash of the request scrubbed (an answer that echoed a key is
        # replayed [redacted], and so is every later request quoting it); older transcripts
        # hold the plain canonical hash, the same whenever there was nothing to scrub
        digest = recording_key(request)
        if recorded.type == "context_exhausted":   # refused for its length: refuse it again
            if recorded.request_hash != digest:
                raise Fatal(f"replay mismatch: {self.path}: model call {n} (phase "
                            f"{recorded.phase}, step {recorded.step}) sends request "
                            f"{digest[:16]}..., the transcript recorded the refusal of "
                            f"{recorded.request_hash[:16]}...", reason="replay_mismatch",
                            provider=self.provider)
            self.used += 1
            raise Fatal(f"{CONTEXT_OVERFLOW}: {recorded.message}", reason=CONTEXT_OVERFLOW,
                        provider=self.provider)
        if recorded.request_hash not in (digest, request.canonical_hash()):
            if not holds_capped(recorded.request) or \
                    stored_hash(_as_stored(request)) != stored_hash(recorded.request):
                raise Fatal(f"replay mismatch: {self.path}: model call {n} (phase "
                            f"{recorded.phase}, step {recorded.step}) sends request "
                            f"{digest[:16]}..., the transcript recorded "
                            f"{recorded.request_hash[:16]}...; the prompt, rendering or "
                            f"history differs", reason="replay_mismatch",
                            provider=self.provider)
            self.from_stored += 1
        if any(cut["path"].startswith("response.") and
               not cut["path"].startswith("response.raw_request") for cut in recorded.truncated):
            self.cut_replies += 1
        self.used += 1
        return Response.model_validate(recorded.response)

    def note(self) -> str:
        """What the replay could only approximate, or ``""``."""
        notes = []
        if self.cut_replies:
            notes.append(f"{self.cut_replies} model repl{'y' if self.cut_replies == 1 else 'ies'}"
                         f" stored cut to the cap, replayed cut")
        if self.from_stored:
            notes.append(f"{self.from_stored} request(s) matched on their stored (cut) form")
        return "; ".join(notes)

    async def aclose(self) -> None:
        self._calls.close()


@dataclass(frozen=True, slots=True)
class Outline:
    """What a check needs of a transcript, read in one pass: its header (None if the first
    event is not one), first and last events, and the number of a torn last line."""

    path: Path
    header: Any
    first: Any
    last: Any
    torn: int | None

    @property
    def finished(self) -> bool:
        return self.last is not None and self.last.type == "end" and self.last.status == "done"


def outline(path: str | Path) -> Outline:
    """The ``Outline`` of the transcript at ``path``, streamed (``TranscriptError`` for a bad
    line, ``OSError`` if it cannot be read)."""
    stream = TranscriptStream(path, expand=False)
    first = last = None
    for event in stream:
        if first is None:
            first = event
        last = event
    header = first if first is not None and first.type == "header" else None
    return Outline(Path(path), header, first, last, stream.torn)


def job_from_transcript(path: str | Path, header: Any = None) -> Job:
    """The job a transcript recorded, rebuilt from its header's settings (``header``: the
    transcript's, already read)."""
    path = Path(path)
    header = header if header is not None else TranscriptStream(path).first()
    if header is None or header.type != "header":
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
    for key in ("horizon", "max_consecutive_invalid", "protocol", "ticks_per_action", "suite",
                "stack_frames", "skip_frames"):
        if key in s:
            data[key] = s[key]
    if "harness_texts_dir" in s:
        data["harness_texts"] = s["harness_texts_dir"]
    if "task_file" in s:
        data["tasks"] = [s["task_file"]]
    if not plays_without_model(s["model"]):
        data["budgets"] |= {k: [s[k]] for k in ("reasoning_effort", "thinking_budget",
                                                "max_output_tokens", "history")}
        data |= {"prompts": [s["prompt"]], "renderings": [s["rendering"]],
                 "tool_mode": s["tool_mode"], "temperature": s["temperature"]}
        if "model_seed" in s:
            data["model_seed"] = s["model_seed"]
        if "agent_tools" in s:
            data["agent_tools"] = [s["agent_tools"]]
            data["budgets"] |= {k: [s[k]] for k in ("tool_calls_per_episode",
                                                    "tool_calls_per_turn")}
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


def _whole(expander: CallExpander, event) -> Any:
    """A model call with its request and raw request whole (``expander``: its stream's)."""
    request, response = expander.expand(event.index, event.request, event.request_patch,
                                        event.response, event.raw_request_patch)
    return event.model_copy(update={"request": request, "request_patch": None,
                                    "response": response, "raw_request_patch": None})


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
    """The first difference between two transcripts, each a path (read as a stream) or one
    already read (module docstring), or ``""``. Model calls are compared as stored, and
    whole when the stored forms differ (a schema-1 recording stored every request whole); a
    request hash may differ when the requests as stored are equal (a recorded reply was cut:
    ``TranscriptReplay``)."""
    events = [iter(t.events if isinstance(t, Transcript) else TranscriptStream(t, expand=False))
              for t in (recorded, replayed)]
    expanders = (CallExpander(), CallExpander())
    n = 0
    while True:
        a, b = next(events[0], None), next(events[1], None)
        if a is None and b is None:
            return ""
        if a is None or b is None:   # one ended: count the rest of the other
            more = 1 + sum(1 for _ in events[0 if b is None else 1])
            which = "recorded" if b is None else "replayed"
            old, new = (n + more, n) if b is None else (n, n + more)
            return (f"event {n} ({_where(a or b)}): only in the {which} transcript "
                    f"({old} events recorded, {new} replayed)")
        calls = a.type == "model_call" and b.type == "model_call"
        if calls:   # both chains of requests go on, compared or not
            whole = (_whole(expanders[0], a), _whole(expanders[1], b))
        da, db = _comparable(a), _comparable(b)
        if da != db and calls:
            da, db = (_comparable(w) for w in whole)
            if da["request_hash"] != db["request_hash"] and holds_capped(da["request"]) and \
                    stored_hash(da["request"]) == stored_hash(db["request"]):
                del da["request_hash"], db["request_hash"]
        if da != db:
            return f"event {n} ({_where(a)}): {_first_difference(da, db)}"
        n += 1


def replay_prices(header: Any, prices: str | Path | None = None):
    """The price book a replay of the job of ``header`` charges (module docstring): ``prices``
    (a price file's path) when given, else the header's recorded price, else the recorded
    price file, else LiteLLM's map (None). ``ReplayError`` when the run was priced by a file
    the header does not record and that is gone or changed."""
    from .pricing import PinnedPrices, PriceFileError, load_prices

    model = header.settings.get("model", "?")
    described = (header.versions or {}).get("prices")
    described = described if isinstance(described, dict) else {}
    if prices is not None:
        try:
            book = load_prices(prices)
        except PriceFileError as exc:
            raise ReplayError(f"--prices: {exc}") from None
        if described.get("file") and described.get("file_sha256") == book.file_sha256:
            book.file = described["file"]   # the run's own file, moved: its costs' source
        return book
    if "model" in described:
        try:
            return PinnedPrices(described, model)
        except ValueError as exc:
            raise ReplayError(f"the header's price of {model} cannot be read: {exc}") from None
    recorded = described.get("file")
    if recorded is None:
        return None
    path = Path(recorded)
    if path.is_file():
        book = load_prices(path)
        if book.file_sha256 == described.get("file_sha256"):
            return book
        why = "has changed since (its sha256 differs)"
    else:
        why = ("was inline in the sweep spec" if recorded.startswith("(") else
               "is no longer there")
    raise ReplayError(f"the job was priced by {recorded} (sha256 "
                      f"{str(described.get('file_sha256'))[:12]}...), which its transcript does "
                      f"not hold and which {why}: give the run's prices with --prices FILE")


def replay_transcript(path: str | Path, read: Outline | None = None,
                      prices: str | Path | None = None) -> ReplayResult:
    """Re-run the job of the transcript at ``path`` (``read``: its outline, already read)
    offline and compare (module docstring). A transcript of a job that did not finish
    (``end`` is not ``done``) is ``skipped``. Replies the recording holds cut to the cap are
    replayed cut, and the result says so (``TranscriptReplay``). The job is priced as its
    run priced it, or by the price file ``prices`` (``replay_prices``)."""
    from .sweep.job import execute_job

    path = Path(path)
    read = read if read is not None else outline(path)
    job = job_from_transcript(path, read.header or read.first)
    s = job.settings
    base = dict(path=path, job_id=job.id, task=s["task"], model=s["model"])
    if not read.finished:
        end = read.last
        status = end.status if end is not None and end.type == "end" else "unfinished"
        return ReplayResult(**base, status="skipped", detail=SKIPPED_BECAUSE + status)
    sweep = sweep_for(job)
    if not plays_without_model(s["model"]) and (
            book := replay_prices(read.header, prices)) is not None:
        sweep = sweep.with_prices(book)
    adapter = None if plays_without_model(s["model"]) else TranscriptReplay(path)
    with tempfile.TemporaryDirectory(prefix="llm-eval-replay-") as scratch:
        again = Path(scratch) / path.name
        outcome = execute_job(job, sweep, again, run_id=read.header.run_id,
                              adapter=adapter, player=_recorded_player(job, path),
                              tools=_recorded_tools(job, path))
        detail = compare_transcripts(path, again)
        if outcome.status != "done":
            ended = f"the replayed job ended {outcome.status} ({outcome.error})"
            detail = f"{detail}; {ended}" if detail else ended
    status = "mismatch" if detail else "reproduced"
    if not detail and adapter is not None:
        detail = adapter.note()   # reproduced, and what could only be replayed as stored
    return ReplayResult(**base, status=status, score=outcome.score, detail=detail)


def recorded_actions(path: str | Path) -> tuple[str, ...]:
    """The actions of the transcript at ``path``, in order, as its agent sent them."""
    return tuple(e.action for e in TranscriptStream(path, expand=False) if e.type == "action")


def _recorded_player(job: Job, path: Path):
    """A person's or an MCP client's job is played again from its recorded actions; other
    jobs build their own agent (None)."""
    if not plays_from_outside(job.model):
        return None
    from .agents.human import HumanAgent

    return HumanAgent(job.model, recorded=recorded_actions(path), live=False)


def _recorded_tools(job: Job, path: Path):
    """A job with agent tools gets their results from the recording (nothing is run again:
    ``agent_tools.replay``); other jobs None."""
    if "agent_tools" not in job.settings:
        return None
    from .agent_tools.replay import RecordedTools

    return RecordedTools(path)


def transcripts_in(target: str | Path) -> list[Path]:
    """The transcripts a path names: a transcript file, or a run directory's
    ``transcripts/*.jsonl.gz`` (and ``*.jsonl``: earlier versions wrote them plain; not
    earlier executions' attempts)."""
    target = Path(target)
    if target.is_file():
        return [target]
    for folder in (target / TRANSCRIPTS_DIR, target):
        if found := transcript_files(folder):
            return found
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
        path = target / (row.transcript or f"transcripts/{transcript_name(row.id)}")
        if row.status == "done" or path.is_file():   # a job never started left nothing
            checks[path.resolve()] = (path, row)
    for path in transcript_files(target / TRANSCRIPTS_DIR):
        checks.setdefault(path.resolve(), (path, None))
    if not checks:
        raise ReplayError(f"{target}: a run directory with no transcripts and no done jobs")
    return sorted(checks.values(), key=lambda item: str(item[0]))


def replay_check(path: Path, row: JobRow | None = None,
                 prices: str | Path | None = None) -> ReplayResult:
    """One check of ``replay_checks``: the job of store ``row`` (its transcript at ``path``),
    or the transcript at ``path`` on its own, priced as recorded or by the price file
    ``prices`` (``replay_prices``); bad input is a result, never an exception."""
    if row is None:
        return _check_file(path, prices)
    base = dict(path=path, job_id=row.id, task=row.settings.get("task", "?"),
                model=row.settings.get("model", "?"))
    if row.status != "done":
        return ReplayResult(**base, status="skipped", detail=SKIPPED_BECAUSE + _status_of(row))
    done = "the store records the job done, but its transcript "
    if not path.is_file():
        return ReplayResult(**base, status="missing", detail=f"{done}does not exist")
    try:
        read = outline(path)
    except (TranscriptError, OSError) as exc:
        return ReplayResult(**base, status="unreadable", detail=f"{done}cannot be read: {exc}")
    header = read.header
    if header is None:
        return ReplayResult(**base, status="unreadable", detail=f"{done}has no header")
    if header.job_id != row.id:
        return ReplayResult(**base, status="mismatch",
                            detail=f"{done}is of job {header.job_id}")
    end = read.last
    if not read.finished:
        how = (f"ends {end.status}" if end.type == "end" else
               f"has no end event (line {read.torn} is torn)" if read.torn
               else "has no end event")
        return ReplayResult(**base, status="incomplete", detail=f"{done}{how}")
    return _replayed(path, read, prices)


def _check_file(path: Path, prices: str | Path | None = None) -> ReplayResult:
    """A transcript given on its own: replayed if finished, unreadable if not a transcript."""
    try:
        read = outline(path)
    except OSError as exc:
        return ReplayResult(path, None, "?", "?", "unreadable",
                            detail=f"cannot be read: {path}: {exc.strerror or exc}")
    except TranscriptError as exc:
        what = "not a transcript" if exc.line == 1 else "not a valid transcript"
        return ReplayResult(path, None, "?", "?", "unreadable", detail=f"{what}: {exc}")
    if read.header is None:
        why = "no events" if read.first is None else \
            f"the first event is {read.first.type!r}, not a header"
        return ReplayResult(path, None, "?", "?", "unreadable",
                            detail=f"not a transcript: {path}:1: {why}")
    return _replayed(path, read, prices)


def _replayed(path: Path, read: Outline, prices: str | Path | None = None) -> ReplayResult:
    header = read.header
    try:
        return replay_transcript(path, read, prices)
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
        adapter = None if plays_without_model(job_.model) else TranscriptReplay(path)
        return execute_job(job_, spec, transcript, adapter=adapter,
                           player=_recorded_player(job_, path),
                           tools=_recorded_tools(job_, path), **kwargs)

    return run_sweep(sweep_for(job), run_dir, execute=execute)
