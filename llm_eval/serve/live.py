"""People's episodes while they play: each one an ordinary job of a run directory.

``LiveEpisodes(run_dir)`` holds every episode the server runs. ``open(participant, world,
family)`` makes the job a one-model sweep of ``human/<participant>`` would make (so its
settings, id and task digest are a model's on the same task and seed, and the analysis pairs
them), records it in the run store as its own run (the run id is the hash of its one job id,
as the scheduler names runs; its spec is the sweep, so ``resume`` and ``replay`` rebuild it),
and plays it with ``execute_job`` in a thread of its own, the agent being a ``HumanAgent``
fed by the page. The transcript is the one a model's job writes (header, observations,
actions with their times, score, end) at ``RUN_DIR/transcripts/<job id>.jsonl.gz``; the store
moves the job ``running -> done`` (or ``failed``), or back to ``queued`` when the server
stops while the person is still playing (``interrupted``: never scored). ``on_end(episode)``
hears of every episode that ended otherwise (a study moves its participant on).

A participant who plays the same task again gets the next ``repeat`` (a job id is played once
per directory). Each episode has an unguessable ``token`` (its address) and its own CSRF
token; ``get(token)`` finds it. The tokens are kept in ``RUN_DIR/serve-episodes.json``
(owner only), so after a restart an address still leads to its episode: an unfinished one
is resumed (``resume``: its recorded actions played again, then the person goes on).
``act(token, seq, text)`` checks the action against what the phase accepts now
(``view.check_action``), hands it to the episode and waits until the episode asks for the
next one; an action given again with the same number is answered, not applied
twice. Only this process writes the store: the server holds the run directory's lock
(``runlock``) for its whole life, and the store's writes are serialised by one lock.
"""

from __future__ import annotations

import json
import logging
import secrets
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..agents.human import HumanAgent, HumanInputError
from ..atomic import write_atomic
from ..errors import LlmEvalError
from ..runstore import STORE_FILE, TRANSCRIPTS_DIR, RunStore
from ..sweep.job import JobInterrupted, JobOutcome, play_and_record
from ..sweep.spec import HUMAN_PREFIX, Job, Sweep, job_id
from ..transcripts.io import transcript_name
from .view import ActionRefused, check_action, page_view

__all__ = ["LiveEpisodes", "LiveEpisode", "UnknownEpisode", "OutOfTurn", "SERVER_STOPPED",
           "TURN_WAIT_S"]

_LOG = logging.getLogger(__name__)
EPISODES_FILE = "serve-episodes.json"   # every episode's address, CSRF token and job
SERVER_STOPPED = "the server stopped while the participant was playing"
#: how long a request waits for the episode to ask for the next action (the episode takes
#: milliseconds; this bounds a request, it decides nothing about the episode)
TURN_WAIT_S = 30.0
# unfinished episodes one server keeps open at once, and per participant name: each waits on
# a thread for its person, so an endless series of starts is refused, not served
MAX_OPEN_EPISODES = 1000
MAX_OPEN_PER_PARTICIPANT = 4


def _short(value: object, limit: int = 40) -> str:
    """``value`` as the page is told it, cut to ``limit`` characters (a body may hold a
    number of thousands of digits)."""
    text = repr(value) if not isinstance(value, int) else str(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


class UnknownEpisode(LlmEvalError):
    """No episode has this token."""


class OutOfTurn(LlmEvalError):
    """An action whose sequence number is not the next one (or repeats another action)."""


@dataclass
class LiveEpisode:
    """One person's episode while it runs (module docstring)."""

    token: str
    csrf: str
    participant: str
    job: Job
    run_id: str
    transcript: Path
    agent: HumanAgent
    thread: threading.Thread | None = None
    outcome: JobOutcome | None = None
    extra: dict[str, Any] = field(default_factory=dict)   # what a study keeps about it

    @property
    def done(self) -> bool:
        return self.outcome is not None

    def view(self, seq: int | None = None, wait: float = TURN_WAIT_S) -> dict[str, Any]:
        """The page's view when the episode asks for action ``seq`` (default: the next one
        not yet given), or has ended."""
        seq = self.agent.next_seq if seq is None else seq
        observation, asking = self.agent.wait_turn(seq, wait)
        if not asking and self.thread is not None:   # ended: the store hears of it next
            self.thread.join(min(wait, 5.0))
        body: dict[str, Any] = (page_view(observation) if asking and observation is not None
                                else {"phase": None})
        body["seq"] = seq if asking else self.agent.next_seq
        body["done"] = not asking and self.done
        body["waiting"] = not asking and not self.done   # the episode is still busy
        outcome = self.outcome   # set once, when the episode ends (``done``)
        if body["done"] and outcome is not None:
            body["status"] = outcome.status
        return body


class LiveEpisodes:
    """Every episode of one server, in one run directory (module docstring)."""

    def __init__(self, run_dir: str | Path, *, seed: int = 1, protocol: str = "worldtest",
                 interaction_steps: int | None = None,
                 on_end: Callable[[LiveEpisode], None] | None = None) -> None:
        self.run_dir = Path(run_dir)
        self.on_end = on_end
        self.seed = seed
        self.protocol = protocol
        self.interaction_steps = interaction_steps
        (self.run_dir / TRANSCRIPTS_DIR).mkdir(parents=True, exist_ok=True)
        self.store = RunStore(self.run_dir / STORE_FILE)
        self._store_lock = threading.Lock()
        self._lock = threading.Lock()
        self._resume_lock = threading.Lock()
        self._episodes: dict[str, LiveEpisode] = {}
        self._played: set[str] = set()      # job ids the directory already holds
        self._addresses = self.run_dir / EPISODES_FILE
        self._saved: dict[str, dict[str, Any]] = (
            json.loads(self._addresses.read_text(encoding="utf-8"))
            if self._addresses.is_file() else {})
        self._templates: dict[tuple, tuple[Sweep, dict[str, Any]]] = {}
        for run in self.store.runs():
            self._played.update(row.id for row in self.store.jobs(run["id"]))
        self._closed = False

    # -- episodes ------------------------------------------------------------------------------
    def human_job(self, participant: str, world: str, family: str, *,
                  protocol: str | None = None) -> tuple[Job, Sweep]:
        """The job of ``participant``'s next play of (world, family) and its one-model sweep."""
        protocol = protocol or self.protocol
        model = f"{HUMAN_PREFIX}{participant}"
        with self._lock:
            repeat = 0
            while True:
                sweep, settings = self._template(world, family, protocol, repeat)
                job = Job.of({**settings, "model": model})
                if job.id not in self._played:
                    self._played.add(job.id)
                    return job, sweep.model_copy(update={"name": model, "models": [model]})
                repeat += 1

    def _template(self, world: str, family: str, protocol: str,
                  repeat: int) -> tuple[Sweep, dict[str, Any]]:
        """The sweep of one (placeholder) participant playing the task ``repeat + 1`` times,
        and the settings of its job of ``repeat``: a participant's differ only in the model
        (validating and expanding a sweep reads the task and prompt files, so it is done once
        per task and kept)."""
        key = (world, family, protocol, repeat)
        if key not in self._templates:
            from ..sweep.spec import SpecError

            data: dict[str, Any] = {"name": "human", "models": [f"{HUMAN_PREFIX}participant"],
                                    "worlds": [world], "families": [family],
                                    "seeds": [self.seed], "repeats": repeat + 1,
                                    "protocol": protocol}
            if self.interaction_steps is not None:
                data["budgets"] = {"interaction_steps": [self.interaction_steps]}
            try:
                sweep = Sweep.from_data(data, "the episode asked for")
            except SpecError as exc:
                raise ActionRefused(str(exc)) from None
            job = next(j for j in sweep.expand() if j.settings["repeat"] == repeat)
            self._templates[key] = (sweep, job.settings)
        return self._templates[key]

    def open(self, participant: str, world: str, family: str, *,
             protocol: str | None = None, extra: dict[str, Any] | None = None) -> LiveEpisode:
        """Start ``participant``'s episode of the (world, family) task (module docstring)."""
        if self._closed:
            raise UnknownEpisode("the server is stopping")
        open_now = [e for e in self.episodes() if not e.done]
        if len(open_now) >= MAX_OPEN_EPISODES:
            raise ActionRefused(f"the server has {len(open_now)} episodes under way, its "
                                f"limit; try again when some have ended")
        mine = sum(e.participant == participant for e in open_now)
        if mine >= MAX_OPEN_PER_PARTICIPANT:
            raise ActionRefused(f"{participant} has {mine} unfinished episodes, the limit: "
                                f"finish or give up one of them first")
        job, sweep = self.human_job(participant, world, family, protocol=protocol)
        run_id = job_id({"jobs": [job.id]})
        relative = f"{TRANSCRIPTS_DIR}/{transcript_name(job.id)}"
        with self._store_lock:
            self.store.add_run(run_id, sweep.name, sweep.canonical())
            self.store.add_jobs(run_id, [job])
            self.store.start(run_id, job.id, relative)
        episode = LiveEpisode(token=secrets.token_urlsafe(18), csrf=secrets.token_urlsafe(24),
                              participant=participant, job=job, run_id=run_id,
                              transcript=self.run_dir / relative,
                              agent=HumanAgent(job.model), extra=dict(extra or {}))
        self._launch(episode, sweep)
        return episode

    def _remember(self, episode: LiveEpisode) -> None:
        """Keep the episode's address (module docstring); called with ``_lock`` held."""
        self._saved[episode.token] = {"job": episode.job.id, "participant": episode.participant,
                                      "csrf": episode.csrf, "extra": episode.extra}
        write_atomic(self._addresses, json.dumps(self._saved, indent=0), private=True)

    def resume(self, job: str, participant: str, *, extra: dict[str, Any] | None = None,
               token: str | None = None, csrf: str | None = None) -> LiveEpisode | None:
        """Continue ``participant``'s episode of job ``job`` that an earlier server left
        unfinished (the job is queued after a stop, still running after a kill, or failed
        because ``llm-eval run --resume`` tried to play it without its person): its
        recorded actions are played again first (the episode is deterministic given them, so
        the new transcript repeats the old one), then the person goes on where they were.
        The earlier transcript is kept under ``transcripts/attempts/``. None if the job is
        not this participant's or has nothing to resume. ``token`` and ``csrf``: keep the
        episode's address and CSRF token (a page open before the restart goes on)."""
        if self._closed:
            raise UnknownEpisode("the server is stopping")
        with self._resume_lock:   # two requests at once resume it once
            current = self.by_job(job)
            if current is not None:
                return current
            if token is None:   # its address from before the restart, if it had one
                with self._lock:
                    token, saved = next(((t, v) for t, v in self._saved.items()
                                         if v["job"] == job), (None, None))
                csrf = saved["csrf"] if saved else None
            return self._resume(job, participant, extra, token, csrf)

    def _resume(self, job: str, participant: str, extra: dict[str, Any] | None,
                token: str | None, csrf: str | None) -> LiveEpisode | None:
        from ..replay import recorded_actions

        with self._store_lock:
            rows = [r for run in self.store.runs() for r in self.store.jobs(run["id"])
                    if r.id == job]
            runs = {run["id"]: run for run in self.store.runs()}
        row = rows[-1] if rows else None
        if row is None or row.status == "done" or not row.transcript or \
                row.settings.get("model") != f"{HUMAN_PREFIX}{participant}":
            return None
        path = self.run_dir / row.transcript
        actions = recorded_actions(path) if path.is_file() else ()
        sweep = Sweep.from_data(runs[row.run_id]["spec"], f"run {row.run_id}")
        attempts = path.parent / "attempts"
        with self._store_lock:
            if row.status == "running":   # a killed server left it: back to the queue first
                self.store.stopped(row.run_id, job, "the server ended while it ran")
            if path.exists():
                attempts.mkdir(exist_ok=True)
                path.replace(attempts / f"{job}.{row.executions}{path.name[len(job):]}")
            self.store.start(row.run_id, job, row.transcript)
        episode = LiveEpisode(token=token or secrets.token_urlsafe(18),
                              csrf=csrf or secrets.token_urlsafe(24),
                              participant=participant, job=Job(row.id, row.settings),
                              run_id=row.run_id, transcript=path,
                              agent=HumanAgent(f"{HUMAN_PREFIX}{participant}",
                                               recorded=actions),
                              extra=dict(extra or {}))
        self._launch(episode, sweep)
        return episode

    def _launch(self, episode: LiveEpisode, sweep: Sweep) -> None:
        episode.thread = threading.Thread(target=self._play, args=(episode, sweep),
                                          name=f"human-{episode.job.id}", daemon=True)
        with self._lock:
            self._played.add(episode.job.id)
            self._episodes[episode.token] = episode
            self._remember(episode)
        episode.thread.start()

    def _play(self, episode: LiveEpisode, sweep: Sweep) -> None:
        outcome = play_and_record(episode.job, sweep, episode.transcript,
                                  run_id=episode.run_id, player=episode.agent,
                                  store=self.store, store_lock=self._store_lock)
        episode.outcome = outcome
        try:
            if self.on_end is not None and outcome.status != "interrupted":
                self.on_end(episode)
        except Exception:   # a study that could not save moves on next time; log it
            _LOG.exception("episode %s: its end could not be recorded by the study",
                           episode.job.id)
        finally:
            episode.agent.close()

    def get(self, token: str) -> LiveEpisode:
        """The episode at address ``token``; one an earlier server left unfinished is resumed
        (it may block on reading its transcript: call it from a worker thread)."""
        with self._lock:
            episode = self._episodes.get(token)
            saved = self._saved.get(token) if episode is None else None
        if episode is None and saved is not None:
            episode = self.resume(saved["job"], saved["participant"], extra=saved["extra"],
                                  token=token, csrf=saved["csrf"])
            if episode is None:
                raise UnknownEpisode("this episode is over and recorded")
        if episode is None:
            raise UnknownEpisode("no episode at this address")
        return episode

    def act(self, token: str, seq: int, text: object) -> dict[str, Any]:
        """Apply action ``seq`` of the episode and return the view that follows it (module
        docstring): ``ActionRefused`` for an action the phase does not accept now,
        ``OutOfTurn`` for a number that is not the next one."""
        episode = self.get(token)
        agent = episode.agent
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 0:
            raise OutOfTurn(f"seq must be a number from 0, got {_short(seq)}")
        if seq < agent.next_seq:   # asked again: answered, not applied again
            given = agent.actions[seq]
            if given != text and (not isinstance(text, str) or given != " ".join(text.split())):
                raise OutOfTurn(f"action {seq} was already {given!r}")
            if seq + 1 < agent.next_seq:   # long past: the view as it is now, no waiting
                return episode.view(wait=0.0)
            return episode.view(seq + 1)
        if seq > agent.next_seq:
            raise OutOfTurn(f"action {_short(seq)} is out of turn: the next action is "
                            f"number {agent.next_seq}")
        observation, asking = agent.wait_turn(seq, TURN_WAIT_S)
        if not asking or observation is None:
            raise OutOfTurn("the episode has ended" if episode.done else
                            "the episode is not ready for an action yet; try again")
        canonical = check_action(observation, text)
        try:
            agent.give(seq, canonical)
        except HumanInputError as exc:
            raise OutOfTurn(str(exc)) from None
        return episode.view(seq + 1)

    def read_store(self, read: Callable[[RunStore], Any]) -> Any:
        """``read(store)`` while no episode writes it."""
        with self._store_lock:
            return read(self.store)

    def by_job(self, job: str) -> LiveEpisode | None:
        """The live episode of job ``job`` (the latest, if it was played twice), or None."""
        with self._lock:
            found = [e for e in self._episodes.values() if e.job.id == job]
        return found[-1] if found else None

    def episodes(self) -> list[LiveEpisode]:
        with self._lock:
            return list(self._episodes.values())

    def stop_waiting(self) -> None:
        """Refuse new episodes and stop every one still waiting for its person (their jobs
        go back to the queue, unscored): the server is stopping, and no request may wait on
        a person through it (a request waiting on one is answered at once)."""
        self._closed = True
        for episode in self.episodes():
            episode.agent.abandon(JobInterrupted(SERVER_STOPPED))

    def close(self, wait: float = 10.0) -> None:
        """``stop_waiting``, let the episodes record their end, and close the store."""
        self.stop_waiting()
        for episode in self.episodes():
            if episode.thread is not None:
                episode.thread.join(wait)
        with self._store_lock:
            self.store.close()
