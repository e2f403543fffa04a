"""The core of every model call: retries, waits, concurrency, timeouts and the attempt record.

Adapters only classify failures (``adapters.types``: ``RateLimited``, ``Transient``,
``Fatal``); this module decides. Rate limits wait for the provider's Retry-After, capped at
``CallPolicy.max_retry_after``; transient failures back off exponentially with full jitter;
fatal ones raise ``FatalProviderError`` at once, naming the provider and the reason (``account``:
a reason only the user can fix, such as no credit, whose message says what to fix). When the
attempts run out, ``InfrastructureError``: the episode is marked as an infrastructure error
and never scored. Each attempt is recorded (no secrets: messages are scrubbed).

Tests set the waits to zero by patching ``llm_eval.calls.sleep`` (one fixture).
"""

from __future__ import annotations

import asyncio
import time
import weakref
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from typing import Any

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    retry_if_exception_type,
    stop_after_attempt,
    wait_random_exponential,
)

from llm_eval.adapters.base import Adapter
from llm_eval.adapters.classify import ACCOUNT_REASONS, scrub
from llm_eval.adapters.types import Fatal, ProviderError, RateLimited, Request, Response, Transient

from .errors import LlmEvalError
from .pricing import Cost, PriceBook, price

__all__ = ["CallPolicy", "Attempt", "CallResult", "FatalProviderError", "InfrastructureError",
           "CONTEXT_OVERFLOW", "call", "call_sync", "sleep"]


async def sleep(seconds: float) -> None:
    """The one wait of the retry loop (tests replace it)."""
    await asyncio.sleep(seconds)


@dataclass(frozen=True, slots=True)
class CallPolicy:
    """How hard to try. ``concurrency`` caps calls in flight per provider (None: no cap)."""

    max_attempts: int = 6
    timeout: float = 300.0
    max_retry_after: float = 120.0
    backoff_initial: float = 1.0
    backoff_max: float = 60.0
    concurrency: int | None = 8


@dataclass(frozen=True, slots=True)
class Attempt:
    number: int
    started_at: str
    duration_s: float
    outcome: str  # "ok", "rate_limited", "transient", "fatal"
    error_class: str | None = None
    status: int | None = None
    retry_after: float | None = None
    wait_s: float | None = None
    message: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class CallResult:
    """The response, every attempt, and the cost of the answer (None for an unpriced model;
    the raw usage stays in the response for re-pricing)."""

    response: Response
    attempts: tuple[Attempt, ...]
    cost: Cost | None = None

    @property
    def retries(self) -> int:
        return len(self.attempts) - 1


CONTEXT_OVERFLOW = "context_overflow"   # the reason of a request over the model's window


class FatalProviderError(LlmEvalError):
    """The provider refused the call for a reason retrying cannot fix; ``account`` when only the
    user can fix it (``adapters.classify.ACCOUNT_REASONS``: quota, auth, permission, a model
    not found), so a sweep ends the job ``fatal`` and a resume does not pay to try again."""

    def __init__(self, provider: str, reason: str, message: str,
                 attempts: tuple[Attempt, ...], status: int | None = None) -> None:
        self.provider = provider
        self.reason = reason
        self.account = reason in ACCOUNT_REASONS
        self.status = status
        self.attempts = attempts
        super().__init__(f"{provider}: {message}")


class InfrastructureError(LlmEvalError):
    """Every attempt failed with a retryable error; the episode is not the model's fault."""

    def __init__(self, provider: str, attempts: tuple[Attempt, ...], last: ProviderError) -> None:
        self.provider = provider
        self.attempts = attempts
        self.last = last
        super().__init__(f"{provider}: gave up after {len(attempts)} attempts; last: "
                         f"{last.kind}: {last.message}")


# One semaphore per (event loop, provider): asyncio primitives belong to a loop.
_SEMAPHORES: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[tuple[str, int], asyncio.Semaphore]] = \
    weakref.WeakKeyDictionary()


def _semaphore(provider: str, limit: int) -> asyncio.Semaphore:
    loop = asyncio.get_running_loop()
    per_loop = _SEMAPHORES.setdefault(loop, {})
    key = (provider, limit)
    if key not in per_loop:
        per_loop[key] = asyncio.Semaphore(limit)
    return per_loop[key]


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


async def call(adapter: Adapter, request: Request, *,
               policy: CallPolicy = CallPolicy(), prices: PriceBook | None = None,
               priced_as: str | None = None) -> CallResult:
    """Send ``request`` through ``adapter`` with retries; the response, every attempt, and its
    cost by ``prices`` (LiteLLM's map by default) for the model ``priced_as`` (default the
    adapter's: a replay prices as the model it replays)."""
    attempts: list[Attempt] = []
    backoff = wait_random_exponential(multiplier=policy.backoff_initial, max=policy.backoff_max)

    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, RateLimited) and exc.retry_after is not None:
            seconds = min(exc.retry_after, policy.max_retry_after)
        else:
            seconds = backoff(state)
        if attempts:  # the attempt just recorded is the one that waits
            attempts[-1] = _with_wait(attempts[-1], seconds)
        return seconds

    async def once() -> Response:
        number = len(attempts) + 1
        started, clock = _now(), time.perf_counter()
        try:
            async with asyncio.timeout(policy.timeout):   # no task of its own, as wait_for's
                response = await adapter.complete(request)
        except TimeoutError:
            error: ProviderError = Transient(f"timeout: no answer within {policy.timeout} s",
                                             provider=adapter.provider,
                                             error_class="CallTimeout")
            attempts.append(_failed(number, started, clock, error))
            raise error from None
        except ProviderError as error:
            attempts.append(_failed(number, started, clock, error))
            raise
        attempts.append(Attempt(number, started, time.perf_counter() - clock, "ok"))
        return response

    retrying = AsyncRetrying(stop=stop_after_attempt(policy.max_attempts), wait=wait,
                             retry=retry_if_exception_type((RateLimited, Transient)),
                             sleep=lambda s: sleep(s), reraise=True)
    limit = _semaphore(adapter.provider, policy.concurrency) if policy.concurrency else None
    response: Response
    try:
        if limit is not None:
            async with limit:
                response = await retrying(once)
        else:
            response = await retrying(once)
    except Fatal as error:
        raise FatalProviderError(adapter.provider, error.reason, error.message,
                                 tuple(attempts), error.status) from error
    except (RateLimited, Transient) as error:
        raise InfrastructureError(adapter.provider, tuple(attempts), error) from error
    return CallResult(response, tuple(attempts),
                      price(response.usage, priced_as or adapter.name, prices))


def call_sync(adapter: Adapter, request: Request, *, policy: CallPolicy = CallPolicy(),
              prices: PriceBook | None = None, priced_as: str | None = None) -> CallResult:
    """``call`` for synchronous callers (runs its own event loop)."""
    return asyncio.run(call(adapter, request, policy=policy, prices=prices,
                            priced_as=priced_as))


def _failed(number: int, started: str, clock: float, error: ProviderError) -> Attempt:
    return Attempt(number, started, time.perf_counter() - clock, error.kind,
                   error_class=error.error_class or type(error).__name__, status=error.status,
                   retry_after=getattr(error, "retry_after", None),
                   message=scrub(error.message)[:500])


def _with_wait(attempt: Attempt, seconds: float) -> Attempt:
    data = attempt.to_dict()
    data["wait_s"] = seconds
    return Attempt(**data)

