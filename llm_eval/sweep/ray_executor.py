"""Sweeps on a Ray cluster: each job a Ray task that runs ``execute_job``.

``executor: ray`` in a spec (``llm-eval run --executor ray [--ray-address ADDRESS]``) changes
how its jobs run, not what they are: the job ids, the run id, the scores and the transcripts
are those of the local executor. The scheduler (the driver) keeps everything else: it expands
the spec, holds the run directory's lock, gates each job under its provider's semaphore, marks
it ``running`` in the store, moves an earlier execution's transcript aside, and then, instead
of a thread or a worker process, hands the job to ``RayEpisodes.run``: Ray plays it with
``execute_job`` into ``RUN_DIR/transcripts/<job id>.jsonl.gz`` on some node (the run
directory is on storage every node mounts at the same path) and returns the ``JobOutcome``.
The driver stays the only writer of the run store. A local agent's job (CPU-bound) is a Ray
task of one CPU; a model's job (waiting on its provider) is a call to an ``EpisodeHost``, a
threaded actor (one per node), which plays many episodes at once in its threads, as the local
executor's thread pool does: a task per model episode would be a Ray worker process per
episode in flight (about 130 MiB each, started cold; ``benchmarks/ray_sweep.py``).

One place counts what the cluster spends and whether it must stop: a ``RunControl`` actor on
the driver's node, created per run. Workers report each model call's cost to it (``record``,
waited for: Ray does not promise to run an async actor's calls in the order one caller sent
them, so a report left in flight could be overtaken by the next question, which then would not
count that call; a round trip per model call is nothing beside the call). A paid job's
episode asks it before every observation, so before every model call (``stop_reason``: the
user's stop, or the spend cap reached by the whole cluster's live spend); a job of a free
provider (the local agents, replays) only needs the user's stop: asked once as its episode
starts, then heard through one pending ``wait_stopped`` call per worker process, looked at
(``ray.wait``, no round trip) at most every ``STOP_POLL_S``. The driver's stop event (Ctrl-C)
is mirrored into the actor; the driver's spend meter reads it.

A job whose worker dies (``WorkerCrashedError``; its host actor: ``RayActorError``, and Ray
restarts the host; its node: ``NodeDiedError``, the raylet, the result lost) comes back as
a ``LostExecution``: the scheduler puts it back in the queue and runs it again as a new
execution, its partial transcript kept under ``transcripts/attempts/`` as after a local
SIGKILL (an episode that had ended is recorded from its transcript instead); a job lost
``MAX_LOST_EXECUTIONS`` times in a row is ``infra_error`` (rerun by ``--resume``). Ray's own
task retries are off: a retry Ray made behind the driver's back would write the transcript of
the execution it replaces.

An episode host that is restarting (after its process died) refuses calls for a while
(``ActorUnavailableError``: "The actor is restarting"; on a busy machine or a real cluster a
restart takes seconds). A call it refused before the job began (nothing written to its
transcript, nothing spent) is not a lost execution: the driver waits for the host to answer again (``HOST_RESTART_WAIT_S``
at most, polling every ``HOST_POLL_S``) and sends the job again, up to
``MAX_UNSTARTED_RESENDS`` times per execution; a host that does not come back in time, or is
dead for good, makes it a lost execution as before.

Ray is imported only here, and only when a spec asks for it (``connect``); a missing Ray or an
unreachable address is a ``SpecError`` naming the setting. API keys reach workers through
their environment, never through task arguments (``docs/ray.md``).
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Protocol, TypeVar, cast

from ..gcpolicy import tune as tune_collector
from .job import JobOutcome, execute_job
from .spec import LOCAL_AGENTS, Job, SpecError, Sweep, provider_of
from .spend import STOPPED_BY_USER, OnCall, StopReason, call_cost, spend_cap_reached

if TYPE_CHECKING:
    from ray import ObjectRef
    from ray.actor import ActorHandle

__all__ = ["RayEpisodes", "RunControl", "EpisodeHost", "ClusterSpendMeter", "connect",
           "disconnect", "play_job", "LostExecution", "MAX_LOST_EXECUTIONS", "INSTALL_HINT",
           "STOP_POLL_S", "HOST_RESTART_WAIT_S", "MAX_UNSTARTED_RESENDS"]

MAX_LOST_EXECUTIONS = 3       # executions of one job lost in a row before it is infra_error
HOST_RESTART_WAIT_S = 120.0   # how long a job waits for its restarting episode host
HOST_POLL_S = 0.1             # how often it asks whether the host is back
MAX_UNSTARTED_RESENDS = 10    # sends of one execution a restarting host may refuse
INSTALL_HINT = "pip install 'llm-eval[ray]'"
STOP_POLL_S = 0.05            # how often a free job's episode looks for the user's stop
REACH_TIMEOUT_S = 3.0


@dataclass(frozen=True, slots=True)
class LostExecution:
    """An execution lost with its worker, its node or its result (only the driver sees one:
    the job runs again): what it spent, and why it was lost."""

    cost_usd: float | None
    error: str


# -- joining a cluster -----------------------------------------------------------------------

def connect(address: str | None) -> bool:
    """Join the Ray cluster at ``address`` (``None``: Ray's default, ``RAY_ADDRESS`` or a new
    cluster on this machine; ``auto``: the cluster this node belongs to); True when this call
    started Ray (``disconnect`` ends it), False when the process had joined one already (at
    ``address``, when given as HOST:PORT)."""
    try:
        import ray
    except ImportError as exc:
        raise SpecError(f"executor: ray: Ray is not installed in this Python ({exc}); "
                        f"install it with {INSTALL_HINT}") from None
    if ray.is_initialized():   # e.g. a program that called ray.init itself
        joined = ray.get_runtime_context().gcs_address
        if address not in (None, "auto", "local", joined):
            raise SpecError(f"ray_address {address!r} (--ray-address): this process has "
                            f"already joined the Ray cluster at {joined}")
        return False
    if address not in (None, "auto", "local"):
        _check_reachable(address)
    try:
        ray.init(address=address, logging_level=logging.WARNING)
    except Exception as exc:   # ConnectionError, ValueError, RuntimeError depending on why
        where = f"ray_address {address!r} (--ray-address)" if address else "executor: ray"
        raise SpecError(f"{where}: could not join a Ray cluster: "
                        f"{type(exc).__name__}: {exc}") from None
    return True


def disconnect() -> None:
    import ray

    ray.shutdown()


def _check_reachable(address: str) -> None:
    """Fail at once on an address nothing answers at (``ray.init`` would retry for minutes)."""
    host, _, port = address.removeprefix("ray://").rpartition(":")
    if not host or not port.isdigit():
        raise SpecError(f"ray_address {address!r} (--ray-address): expected HOST:PORT (the "
                        f"head node's GCS, e.g. 10.0.0.5:6379), ray://HOST:PORT or auto")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=REACH_TIMEOUT_S).close()
    except OSError as exc:
        raise SpecError(f"ray_address {address!r} (--ray-address): nothing answers at "
                        f"{host}:{port} ({exc}); start the cluster there (ray start --head) "
                        f"or give its head node's address") from None


# -- handles: what the driver and the workers call on the actors --------------------------------
# Ray types an actor's handle as its class (``ActorProxy``), whose methods lack ``.remote``:
# these protocols say what a handle answers, and the handles ray makes are cast to them.

_R = TypeVar("_R")


class _Method(Protocol[_R]):
    """An actor's method as its handle has it: ``.remote`` sends a call, a reference to its
    result comes back."""

    def remote(self, *args: Any) -> ObjectRef[_R]: ...


class ControlHandle(Protocol):
    """A ``RunControl`` actor's handle."""

    record: _Method[None]
    settle: _Method[None]
    live: _Method[float]
    total: _Method[float]
    stop: _Method[None]
    stop_reason: _Method[StopReason | None]
    wait_stopped: _Method[StopReason]


class HostHandle(Protocol):
    """An ``EpisodeHost`` actor's handle."""

    play: _Method[JobOutcome]
    ready: _Method[bool]


def _kill(handle: ControlHandle | HostHandle) -> None:
    import ray

    ray.kill(cast("ActorHandle[Any]", handle))   # a handle ray made, cast back (above)


# -- the one place that counts ---------------------------------------------------------------

class RunControl:
    """A run's live spend and stop, for the whole cluster (a Ray actor on the driver's node;
    its methods have no ``await`` but ``wait_stopped``'s, so each runs whole, in the order a
    caller sent them)."""

    def __init__(self, spent: float, cap: float | None) -> None:
        self._settled = spent
        self._live: dict[str, float] = {}
        self._cap = cap
        self._reason: StopReason | None = None
        self._stopped: asyncio.Event | None = None   # made in the actor's event loop

    def _event(self) -> asyncio.Event:
        if self._stopped is None:
            self._stopped = asyncio.Event()
        return self._stopped

    async def record(self, job: str, usd: float) -> None:
        self._live[job] = self._live.get(job, 0.0) + usd

    async def settle(self, job: str, cost: float | None) -> None:
        live = self._live.pop(job, 0.0)
        self._settled += cost if cost is not None else live

    async def live(self, job: str) -> float:
        return self._live.get(job, 0.0)

    async def total(self) -> float:
        return self._settled + sum(self._live.values())

    async def stop(self, reason: StopReason) -> None:
        if self._reason is None:
            self._reason = reason
            self._event().set()

    async def stop_reason(self, paid: bool) -> StopReason | None:
        if self._reason is not None:
            return self._reason
        if paid and self._cap is not None and \
                self._settled + sum(self._live.values()) >= self._cap:
            return spend_cap_reached(self._cap)
        return None

    async def wait_stopped(self) -> StopReason:
        await self._event().wait()
        return self._reason or STOPPED_BY_USER   # only ``stop`` sets the event, reason first


class ClusterSpendMeter:
    """The scheduler's ``SpendMeter`` for a Ray run: the totals are the ``RunControl``'s.
    With no paid job in the run nothing is live, and the total is kept here (no round
    trip)."""

    def __init__(self, control: ControlHandle, spent: float, cap: float | None, *,
                 paid: bool) -> None:
        self.cap = cap
        self._control = control
        self._settled = spent
        self._paid = paid

    def job(self, job: str) -> OnCall:
        return lambda record: None   # the workers report their calls to the control

    def settle(self, job: str, cost: float | None) -> None:
        self._settled += cost or 0.0
        if self._paid:   # else the control counts no spend: no message per job
            self._control.settle.remote(job, cost)

    def total(self) -> float:
        if not self._paid:
            return self._settled
        import ray

        return ray.get(self._control.total.remote())

    def reached(self) -> bool:
        return self.cap is not None and self.total() >= self.cap


# -- in a worker -----------------------------------------------------------------------------

@dataclass(slots=True)
class _Waiter:
    """A worker process's watch on a run's stop: the pending ``wait_stopped`` call, when to
    look at it next, and the reason once heard."""

    stopped: ObjectRef[StopReason]
    next_look: float = 0.0
    reason: StopReason | None = None


_waiter: dict[str, _Waiter] = {}   # per worker process: run token -> its watch


def _stop_hook(control: ControlHandle, token: str, paid: bool
               ) -> Callable[[], StopReason | None]:
    import ray

    if paid:   # the spend cap is the cluster's: ask, before every model call
        return lambda: ray.get(control.stop_reason.remote(True))
    entry = _waiter.get(token)
    if entry is None:
        _waiter.clear()   # a worker process outlives runs: keep only this run's
        entry = _waiter[token] = _Waiter(control.wait_stopped.remote())
    if entry.reason is None:   # a job that starts after a stop (it waited for a core) sees it
        entry.reason = ray.get(control.stop_reason.remote(False))
        entry.next_look = time.monotonic() + STOP_POLL_S

    def stop() -> StopReason | None:
        if entry.reason is None and time.monotonic() >= entry.next_look:
            ready, _ = ray.wait([entry.stopped], timeout=0)
            if ready:
                entry.reason = ray.get(entry.stopped)
            else:
                entry.next_look = time.monotonic() + STOP_POLL_S
        return entry.reason
    return stop


def play_job(job: Job, spec: Sweep, transcript: str, run_id: str, control: ControlHandle,
             token: str,
             paid: bool, execute: Callable[..., JobOutcome]) -> JobOutcome:
    """The Ray task: play ``job`` into ``transcript`` (a path on the shared run directory)
    with ``execute`` (``execute_job``), its calls reported to and its stops asked of
    ``control``. The Ray worker runs the collector as our own processes do (``gcpolicy``)."""
    import ray

    tune_collector()
    job_id = job.id

    def on_call(record: dict[str, Any]) -> None:
        usd = call_cost(record)
        if usd:
            # waited for: an async actor runs one caller's calls in no promised order, so a
            # report sent and not waited for could reach the control after the question
            # before the next call (which would then not see this call's spend)
            ray.get(control.record.remote(job_id, usd))

    return execute(job, spec, Path(transcript), run_id=run_id,
                   stop=_stop_hook(control, token, paid), on_call=on_call)


class EpisodeHost:
    """A threaded Ray actor that plays model-bound jobs, many at once (``play_job`` in each
    of its threads)."""

    def play(self, *args: Any) -> JobOutcome:
        return play_job(*args)

    def ready(self) -> bool:
        """Answered once the host is alive (the driver asks after a restart)."""
        return True


# -- in the driver ---------------------------------------------------------------------------

def _begun(transcript: Path) -> bool:
    """Whether an execution wrote to ``transcript`` (the scheduler creates it empty)."""
    try:
        return transcript.stat().st_size > 0
    except FileNotFoundError:
        return False


def _lost_errors() -> tuple[type[BaseException], ...]:
    """Ray's errors for an execution whose worker, node or result was lost."""
    from ray import exceptions as e

    return (e.WorkerCrashedError, e.RayActorError, e.NodeDiedError, e.LocalRayletDiedError,
            e.ObjectLostError, e.OutOfMemoryError)


class RayEpisodes:
    """The jobs of one run on the Ray cluster this process has joined (``connect``): a
    ``RunControl`` on this node, the spec put once in the object store, a task per local
    agent's job and the episode hosts for the models' (module docstring). ``stop`` is the
    scheduler's stop event; ``spent`` what the run's earlier executions spent; ``paid``
    whether any job of the run goes to a paid provider."""

    def __init__(self, spec: Sweep, stop: threading.Event, *, spent: float, paid: bool,
                 execute: Callable[..., JobOutcome] = execute_job) -> None:
        import ray
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(),
                                              soft=False)
        self._control = cast(ControlHandle, ray.remote(RunControl).options(   # see _Method
            num_cpus=0, max_restarts=0, scheduling_strategy=here,
            max_concurrency=10_000).remote(spent, spec.spend_cap_usd))
        self.meter = ClusterSpendMeter(self._control, spent, spec.spend_cap_usd, paid=paid)
        self._spec = ray.put(spec)
        self._token = uuid.uuid4().hex
        self._execute = execute
        # local agents are CPU-bound: a core each; model-bound episodes wait on their
        # providers, in the threads of the hosts (the driver's semaphores bound how many)
        self._play = ray.remote(play_job).options(num_cpus=1, max_retries=0, name="play_job")
        self._threads = max(1, sum(spec.limit_for(provider_of(m)) for m in spec.models
                                   if m not in LOCAL_AGENTS))
        self._hosts: list[HostHandle] = []
        self._next_host = 0
        self._running: set[ObjectRef[JobOutcome]] = set()
        self._on_hosts: set[ObjectRef[JobOutcome]] = set()
        self._stop, self._closed = stop, threading.Event()
        self._mirror = threading.Thread(target=self._mirror_stop, name="ray-stop-mirror",
                                        daemon=True)
        self._mirror.start()

    def _mirror_stop(self) -> None:
        while not self._closed.is_set():
            if self._stop.wait(0.05):
                self._control.stop.remote(STOPPED_BY_USER)
                return

    async def run(self, job: Job, transcript: Path, run_id: str,
                  paid: bool) -> JobOutcome | LostExecution:
        """Play ``job`` on the cluster; a ``LostExecution`` (with what it spent) when its
        worker or node died, ``failed`` when the task itself raised; a model
        job its restarting host refused before it began is sent again (module docstring)."""
        args = (job, self._spec, str(transcript), run_id, self._control, self._token, paid,
                self._execute)
        if job.model in LOCAL_AGENTS:
            return (await self._outcome(job, self._play.remote(*args), on_host=False))[0]
        fresh = not _begun(transcript)   # else a refused call cannot be told from a begun one
        for _ in range(MAX_UNSTARTED_RESENDS):
            host = self._host()
            outcome, refused = await self._outcome(job, host.play.remote(*args), on_host=True)
            if not (refused and fresh and not _begun(transcript) and not outcome.cost_usd):
                return outcome
            # the host was restarting and the job never began: not a lost execution
            if not await self._host_back(host):
                return outcome
        return outcome

    async def _outcome(self, job: Job, ref: ObjectRef[JobOutcome], *,
                       on_host: bool) -> tuple[JobOutcome | LostExecution, bool]:
        """The outcome of the execution ``ref`` (a ``LostExecution`` when its worker was lost),
        and whether it was lost because its host refused the call while restarting."""
        from ray.exceptions import ActorUnavailableError, RayTaskError, TaskCancelledError

        if on_host:
            self._on_hosts.add(ref)   # Ray cannot force-cancel an actor's call
        self._running.add(ref)
        try:
            return await ref, False
        except _lost_errors() as exc:
            spent = await self._control.live.remote(job.id)
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            return LostExecution(cost_usd=spent or None,
                                 error=f"its Ray worker was lost ({type(exc).__name__}: "
                                       f"{first[:300]})"), isinstance(exc, ActorUnavailableError)
        except TaskCancelledError:
            return JobOutcome("interrupted", error="aborted"), False
        except RayTaskError as exc:   # execute_job does not raise; unpickling, imports might
            cause = exc.cause if isinstance(exc.cause, BaseException) else exc
            return JobOutcome("failed", error=f"on its Ray worker: {type(cause).__name__}: "
                                              f"{cause}"), False
        finally:
            self._running.discard(ref)
            self._on_hosts.discard(ref)

    async def _host_back(self, host: HostHandle) -> bool:
        """Whether ``host`` answers again within ``HOST_RESTART_WAIT_S`` (False: it is dead
        for good, its restarts spent, or still restarting at the deadline)."""
        from ray.exceptions import ActorUnavailableError, GetTimeoutError, RayActorError

        deadline = time.monotonic() + HOST_RESTART_WAIT_S
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            try:
                await asyncio.wait_for(asyncio.wrap_future(host.ready.remote().future()),
                                       left)
                return True
            except ActorUnavailableError:
                await asyncio.sleep(HOST_POLL_S)
            except (RayActorError, GetTimeoutError, asyncio.TimeoutError):
                return False

    def _host(self) -> HostHandle:
        """The next episode host, round robin; one per node, made at the first model job."""
        import ray

        if not self._hosts:
            # ray.nodes has no annotations (a list of dicts, one per node)
            found: list[dict[str, Any]] = ray.nodes()   # type: ignore[no-untyped-call]
            nodes = sum(1 for node in found if node.get("Alive"))
            host = ray.remote(EpisodeHost).options(
                num_cpus=0, max_concurrency=self._threads, max_restarts=MAX_LOST_EXECUTIONS,
                max_task_retries=0, scheduling_strategy="SPREAD")
            self._hosts = [cast(HostHandle, host.remote())   # see _Method
                           for _ in range(max(1, nodes))]
        self._next_host = (self._next_host + 1) % len(self._hosts)
        return self._hosts[self._next_host]

    def close(self, *, abort: bool = False) -> None:
        """End the run's part on the cluster; ``abort`` (a second Ctrl-C, an error) ends
        the running tasks at once (their jobs stay ``running``: resume reruns them)."""
        import ray

        self._closed.set()
        self._mirror.join()
        if abort:   # a task's worker is ended; the hosts' episodes end with the hosts
            for ref in list(self._running - self._on_hosts):
                ray.cancel(ref, force=True)
        for host in self._hosts:
            _kill(host)
        _kill(self._control)
