"""Outside agents' episodes: each one an ordinary job of a run directory, fed by MCP calls.

``McpEpisodes(run_dir, tasks, ...)`` holds every episode one ``llm-eval mcp`` server plays.
``open(client, world, family)`` makes the job a one-model sweep of ``mcp/<client>`` would make
(the same settings and id as any agent's job on that task and seed, so the analysis pairs
them), records it in the run store as its own run (the run id is the hash of its one job id,
as the scheduler names runs; its spec is that sweep, so ``replay`` rebuilds it), and plays it
with ``sweep.job.execute_job`` in a thread of its own, the agent being a ``HumanAgent``: the
agent whose actions are handed over from another thread, here by the MCP tools. The
transcript is the one every job writes (header, observations, actions with their times,
score, end), at ``RUN_DIR/transcripts/<job id>.jsonl.gz``, and the store moves the job
``running -> done`` (or ``failed``), or back to ``queued`` when the episode is abandoned (the
client ended its session, or the server stopped) before it ended: ``interrupted``, never
scored, as when a sweep is stopped.

The phases, budgets and scoring are the runner's (``worldtest.episode.run_episode``): an
action goes to the phase as the client sent it (cut to ``MAX_ACTION_CHARS``), so an invalid
action is the phase's invalid action, counted and reported back like any agent's, and the
consecutive-invalid limit applies as it does to models.

A client that plays the same task again gets the next ``repeat`` (a job id is played once per
directory). Only this process writes the store: the server holds the run directory's lock
(``runlock``) for its whole life, and the store's writes are serialised by one lock.
Wall-clock time decides nothing: ``TURN_WAIT_S`` bounds how long a call waits for the
episode (which takes milliseconds per step), not the episode.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..agents.human import HumanAgent
from ..errors import LlmEvalError
from ..runstore import STORE_FILE, TRANSCRIPTS_DIR, RunStore
from ..sweep.job import JobInterrupted, JobOutcome, play_and_record
from ..sweep.spec import MCP_PREFIX, Job, Sweep, job_id
from ..transcripts.io import transcript_name
from ..worldtest.observation import Observation

__all__ = ["McpEpisodes", "McpEpisode", "Turn", "EpisodeBusy", "TooManyEpisodes",
           "MAX_ACTION_CHARS", "TURN_WAIT_S", "MAX_OPEN_EPISODES", "CLIENT_LEFT",
           "SERVER_STOPPED", "task_template"]

#: an action longer than this is cut before it reaches the phase (no valid action is
#: longer than a few dozen characters, so a cut action is invalid all the same, and counted)
MAX_ACTION_CHARS = 200
#: how long a call waits for the episode to ask for its next action (it takes milliseconds;
#: this bounds a call, it decides nothing about the episode)
TURN_WAIT_S = 30.0
#: unfinished episodes one server keeps at once (each waits on a thread for its client)
MAX_OPEN_EPISODES = 64
CLIENT_LEFT = "the MCP client ended its session before the episode ended"
SERVER_STOPPED = "the MCP server stopped while the client was playing"


class EpisodeBusy(LlmEvalError):
    """The episode did not ask for an action within ``TURN_WAIT_S`` (try again)."""


class TooManyEpisodes(LlmEvalError):
    """The server already has ``MAX_OPEN_EPISODES`` unfinished episodes."""


@dataclass(frozen=True, slots=True)
class Turn:
    """Where an episode stands: the observation it asks an action for, or ended."""

    observation: Observation | None
    ended: bool


@dataclass
class McpEpisode:
    """One outside agent's episode while it runs (module docstring)."""

    job: Job
    run_id: str
    transcript: Path
    agent: HumanAgent
    thread: threading.Thread | None = None
    outcome: JobOutcome | None = None

    @property
    def done(self) -> bool:
        return self.outcome is not None

    def turn(self, wait: float = TURN_WAIT_S) -> Turn:
        """The observation the episode asks the next action for, or that it has ended
        (``EpisodeBusy`` if it does neither within ``wait`` seconds)."""
        return self._turn(self.agent.next_seq, wait)

    def _turn(self, seq: int, wait: float) -> Turn:
        observation, asking = self.agent.wait_turn(seq, wait)
        if asking and observation is not None:
            return Turn(observation, False)
        if self.thread is not None:   # ended: let it record its end before saying so
            self.thread.join(wait)
        if self.done:
            return Turn(None, True)
        raise EpisodeBusy("the episode is still working on the last action; call observe "
                          "again")

    def act(self, text: str, wait: float = TURN_WAIT_S) -> tuple[Turn, Turn]:
        """Hand ``text`` to the episode as its next action and wait for what follows;
        returns (the turn it was taken in, the turn that follows). If the episode had
        already ended, both are that end and nothing was taken."""
        seq = self.agent.next_seq
        before = self._turn(seq, wait)
        if before.ended:
            return before, before
        self.agent.give(seq, text[:MAX_ACTION_CHARS])
        return before, self._turn(seq + 1, wait)


class McpEpisodes:
    """Every episode of one server, in one run directory (module docstring)."""

    def __init__(self, run_dir: str | Path, *, seed: int = 1, protocol: str = "worldtest",
                 interaction_steps: int | None = None, suite: str | None = None) -> None:
        self.run_dir = Path(run_dir)
        self.seed = seed
        self.protocol = protocol
        self.interaction_steps = interaction_steps
        self.suite = suite
        (self.run_dir / TRANSCRIPTS_DIR).mkdir(parents=True, exist_ok=True)
        self.store = RunStore(self.run_dir / STORE_FILE)
        self._store_lock = threading.Lock()
        self._lock = threading.Lock()
        self._episodes: list[McpEpisode] = []
        self._played: set[str] = set()   # job ids the directory already holds
        self._templates: dict[tuple, tuple[Sweep, dict[str, Any]]] = {}
        for run in self.store.runs():
            self._played.update(row.id for row in self.store.jobs(run["id"]))
        self._closed = False

    # -- jobs ----------------------------------------------------------------------------------
    def job_for(self, client: str, world: str, family: str) -> tuple[Job, Sweep]:
        """The job of ``client``'s next play of (world, family) and its one-model sweep."""
        model = f"{MCP_PREFIX}{client}"
        with self._lock:
            repeat = 0
            while True:
                sweep, settings = self._template(world, family, repeat)
                job = Job.of({**settings, "model": model})
                if job.id not in self._played:
                    self._played.add(job.id)
                    return job, sweep.model_copy(update={"name": model, "models": [model]})
                repeat += 1

    def _template(self, world: str, family: str, repeat: int) -> tuple[Sweep, dict[str, Any]]:
        key = (world, family, repeat)
        if key not in self._templates:
            self._templates[key] = task_template(
                world, family, repeat, seed=self.seed, protocol=self.protocol,
                suite=self.suite, interaction_steps=self.interaction_steps)
        return self._templates[key]

    # -- episodes ------------------------------------------------------------------------------
    def open(self, client: str, world: str, family: str) -> McpEpisode:
        """Start ``client``'s episode of the (world, family) task (module docstring)."""
        if self._closed:
            raise TooManyEpisodes("the server is stopping")
        open_now = sum(not e.done for e in self.episodes())
        if open_now >= MAX_OPEN_EPISODES:
            raise TooManyEpisodes(f"the server has {open_now} episodes under way, its limit; "
                                  f"end a session (or let one finish) and try again")
        job, sweep = self.job_for(client, world, family)
        run_id = job_id({"jobs": [job.id]})
        relative = f"{TRANSCRIPTS_DIR}/{transcript_name(job.id)}"
        with self._store_lock:
            self.store.add_run(run_id, sweep.name, sweep.canonical())
            self.store.add_jobs(run_id, [job])
            self.store.start(run_id, job.id, relative)
        episode = McpEpisode(job=job, run_id=run_id, transcript=self.run_dir / relative,
                             agent=HumanAgent(job.model))
        episode.thread = threading.Thread(target=self._play, args=(episode, sweep),
                                          name=f"mcp-{job.id}", daemon=True)
        with self._lock:
            self._episodes.append(episode)
        episode.thread.start()
        return episode

    def _play(self, episode: McpEpisode, sweep: Sweep) -> None:
        outcome = play_and_record(episode.job, sweep, episode.transcript,
                                  run_id=episode.run_id, player=episode.agent,
                                  store=self.store, store_lock=self._store_lock)
        episode.outcome = outcome
        episode.agent.close()

    def abandon(self, episode: McpEpisode, reason: str) -> None:
        """End ``episode`` unscored (``interrupted``) if it is still waiting for its client."""
        if not episode.done:
            episode.agent.abandon(JobInterrupted(reason))

    def episodes(self) -> list[McpEpisode]:
        with self._lock:
            return list(self._episodes)

    def read_store(self, read) -> Any:
        """``read(store)`` while no episode writes it."""
        with self._store_lock:
            return read(self.store)

    def close(self, wait: float = 10.0) -> None:
        """Refuse new episodes, abandon the unfinished ones (``SERVER_STOPPED``), let them
        record their end, and close the store."""
        self._closed = True
        for episode in self.episodes():
            self.abandon(episode, SERVER_STOPPED)
        for episode in self.episodes():
            if episode.thread is not None:
                episode.thread.join(wait)
        with self._store_lock:
            self.store.close()


def task_template(world: str, family: str, repeat: int = 0, *, seed: int = 1,
                  protocol: str = "worldtest", suite: str | None = None,
                  interaction_steps: int | None = None) -> tuple[Sweep, dict[str, Any]]:
    """The sweep of a placeholder client playing the task ``repeat + 1`` times, and the
    settings of its job of ``repeat``: a client's differ only in the model (validating and
    expanding a sweep reads the task files, so ``McpEpisodes`` does it once per task).
    ``SpecError`` names what is wrong (an unknown world, with "did you mean", a bad seed)."""
    data: dict[str, Any] = {"name": "mcp", "models": [f"{MCP_PREFIX}client"],
                            "worlds": [world], "families": [family], "seeds": [seed],
                            "repeats": repeat + 1, "protocol": protocol}
    if suite is not None:
        data["suite"] = suite
    if interaction_steps is not None:
        data["budgets"] = {"interaction_steps": [interaction_steps]}
    sweep = Sweep.from_data(data, f"task {world}-{family}")
    job = next(j for j in sweep.expand() if j.settings["repeat"] == repeat)
    return sweep, job.settings
