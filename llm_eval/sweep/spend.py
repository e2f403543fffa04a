"""What a run spends, and why it stops its jobs.

A run stops a job for one of two causes (``StopCause``): the user (Ctrl-C, a stop event) or
its spend cap. A ``StopReason`` names the cause and carries the words the transcript's ``end``
and the run store record; whoever stops a job (the scheduler's threads, a worker process, a Ray
worker's ``RunControl``) gives one, and the job's outcome says which cause it was
(``JobOutcome.stopped_by``), so the scheduler asks the cause, never compares the words.

``SpendMeter`` is the scheduler's meter of a run on this machine: what the store says earlier
executions spent, plus every model call's cost as it is recorded. ``Meter`` is what the
scheduler asks of any meter (a Ray run's is ``ray_executor.ClusterSpendMeter``).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Callable, Literal, Protocol

__all__ = ["StopCause", "StopReason", "STOPPED_BY_USER", "spend_cap_reached", "OnCall", "Meter",
           "SpendMeter", "call_cost"]

StopCause = Literal["user", "spend_cap"]

OnCall = Callable[[dict[str, Any]], None]   # hears each model call's record as it is written


@dataclass(frozen=True, slots=True)
class StopReason:
    """Why a job is stopped: ``cause``, and ``text``, what the transcript and store record."""

    cause: StopCause
    text: str


STOPPED_BY_USER = StopReason("user", "stopped by the user (Ctrl-C)")


def spend_cap_reached(cap: float) -> StopReason:
    """Why no paid job starts and running episodes stop: the spend cap was reached."""
    return StopReason("spend_cap", f"the spend cap (${cap:g}) was reached")


def call_cost(record: dict[str, Any]) -> float:
    """The cost (USD) of one model call's record; 0 for an unpriced call."""
    cost = record.get("cost") or {}
    return float(cost.get("usd") or 0.0)


class Meter(Protocol):
    """What the scheduler asks of a run's spend meter."""

    cap: float | None

    def job(self, job: str) -> OnCall: ...

    def settle(self, job: str, cost: float | None) -> None: ...

    def total(self) -> float: ...

    def reached(self) -> bool: ...


class SpendMeter:
    """What the run has spent: the store's total when it started, plus every model call's
    cost as it is recorded (worker threads report calls; the scheduler settles a job's
    cost when it ends). ``reached()`` once the total is at the cap."""

    def __init__(self, spent: float, cap: float | None) -> None:
        self.cap = cap
        self._settled = spent
        self._live: dict[str, float] = {}
        self._lock = threading.Lock()

    def job(self, job: str) -> OnCall:
        """The ``on_call`` listener of one running job."""
        def on_call(record: dict[str, Any]) -> None:
            usd = call_cost(record)
            with self._lock:
                self._live[job] = self._live.get(job, 0.0) + usd
        return on_call

    def settle(self, job: str, cost: float | None) -> None:
        with self._lock:
            live = self._live.pop(job, 0.0)
            self._settled += cost if cost is not None else live

    def total(self) -> float:
        with self._lock:
            return self._settled + sum(self._live.values())

    def reached(self) -> bool:
        return self.cap is not None and self.total() >= self.cap
