"""Before a paid run: one minimal real call per feature the run will use, and what came of it.

``check_model(settings)`` sends, through the model's own adapter and the one retry layer
(``llm_eval.calls``), a few small requests, each with a tiny reply cap:

- ``basic``: a system prompt and one line of text, with the run's temperature and sampling
  seed. Refused here (a wrong key, an unknown model), nothing else is tried.
- ``tools: <phase>``: the action tools of each phase the run plays, built as the LLM agent
  builds them (``adapters.tools.action_tools`` over the forms of the phase's first
  observation, found by playing a real task to it) and sent in the run's tool mode; a phase
  whose tools are all in a set already sent is not sent again. Only with ``tool_mode:
  tools``: the text and tag formats send no tools.
- ``thinking``: each thinking budget or reasoning effort of the run, sent with the
  interaction phase's tools as the run sends them together (a provider may refuse the pair:
  forced tool use with thinking on).
- ``image``: the basic request with a real frame as PNG (when a rendering has ``png``).
- ``cache``: two equal requests whose prefix is longer than the model's shortest cached
  prefix (``adapters.caching.min_cached_tokens``), when the run caches (``cache: auto``) on a
  route that has a prompt cache.

Each feature is ``accepted``, ``refused`` (the provider's message, scrubbed), ``ignored``
(the provider took the request but the feature had no effect: a knob the adapter did not send,
``knobs_dropped``; no reasoning in the reply; no tool call; an image that added no input
tokens; no cache read on the second call), ``failed`` (retries ran out: the provider is
unwell, nothing is known), ``skipped`` (the basic call did not get through) or
``unreachable`` (the connection itself failed: offline, a closed port, a name that does not
resolve; the check stops there and says which endpoint). The report names the price source
(LiteLLM's map, a price file, or unpriced) and the measured cost of the check. A run needs
no feature ``refused``, ``failed`` or ``unreachable`` (``CheckReport.ok``); ``ignored`` is a
warning: the run works, without the effect it asked for.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from typing import Any

from llm_eval.adapters import (
    GenerationConfig,
    ImagePart,
    Message,
    Request,
    Response,
    Tool,
    action_tools,
    create_adapter,
)
from llm_eval.adapters.base import Adapter
from llm_eval.adapters.caching import cache_kind, min_cached_tokens
from llm_eval.adapters.classify import scrub
from llm_eval.adapters.tokens import estimate_text

from .calls import CallPolicy, CallResult, FatalProviderError, InfrastructureError, call
from .errors import LlmEvalError
from .pricing import PriceBook, default_prices, describe_cost
from .vocabulary import FAMILIES

__all__ = ["CheckSettings", "FeatureResult", "CheckReport", "CheckSetupError", "check_model",
           "check_model_sync", "phase_observations", "format_report", "ACCEPTED", "REFUSED",
           "IGNORED", "FAILED", "SKIPPED", "UNREACHABLE", "DEFAULT_WORLD"]

ACCEPTED, REFUSED, IGNORED = "accepted", "refused", "ignored"
FAILED, SKIPPED, UNREACHABLE = "failed", "skipped", "unreachable"
BLOCKING = (REFUSED, FAILED, UNREACHABLE)   # a run cannot go on with these

PROBE_TOKENS = 16       # the reply cap of a call that needs only a word (Responses' minimum)
TOOL_TOKENS = 64        # room for one tool call with two integer arguments
THINKING_TOKENS = 64    # visible reply beside the thinking budget (OpenAI's reasoning counts in)
IMAGE_TOKENS = 16       # an image that adds fewer input tokens than this was not read
CACHE_MARGIN = 1.3      # the cached prefix's length, by our estimate, over the model's minimum
DEFAULT_WORLD = "hunters"

SYSTEM = ("This is llm-eval checking a model endpoint before a run. Answer as briefly as you "
          "can.")
BASIC_TEXT = "Reply with the single word: ok"
TOOLS_TEXT = "Call exactly one of the tools offered (any one) with valid arguments."
_FILLER = ("Reference line {i}: in these grid worlds each action advances time by one step, "
           "the frame is drawn again, and cells keep their colour until a rule changes it.")


class CheckSetupError(LlmEvalError):
    """The check cannot start: a missing key or SDK, an unknown provider or world."""


@dataclass(frozen=True, slots=True)
class CheckSettings:
    """What a run will send a model: ``knobs`` holds each (thinking budget, reasoning effort)
    pair of the run other than (None, None); ``tasks`` the tasks whose phases' tools are
    checked (``phase_observations``)."""

    model: str
    adapter_options: Mapping[str, Any] = field(default_factory=dict)
    image: bool = False
    tool_mode: str = "tools"
    knobs: tuple[tuple[int | None, str | None], ...] = ()
    temperature: float | None = None
    seed: int | None = None
    cache: str = "auto"
    tasks: tuple[Any, ...] = ()
    protocol: str = "worldtest"


@dataclass(frozen=True, slots=True)
class FeatureResult:
    feature: str
    status: str
    detail: str
    calls: int = 0
    cost_usd: float | None = None
    usage: dict[str, int] = field(default_factory=dict)
    knobs_dropped: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class CheckReport:
    model: str
    endpoint: str
    price: dict[str, Any]
    features: tuple[FeatureResult, ...]
    error: str | None = None     # why the check stopped early (the endpoint unreachable)

    @property
    def blocking(self) -> list[FeatureResult]:
        return [f for f in self.features if f.status in BLOCKING]

    @property
    def ok(self) -> bool:
        return not self.blocking and self.error is None

    @property
    def calls(self) -> int:
        return sum(f.calls for f in self.features)

    @property
    def cost_usd(self) -> float | None:
        """What the check cost; None when the model is unpriced."""
        if self.price.get("source") == "unpriced":
            return None
        return round(sum(f.cost_usd or 0.0 for f in self.features), 10)

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "endpoint": self.endpoint, "ok": self.ok,
                "error": self.error, "price": dict(self.price), "calls": self.calls,
                "cost_usd": self.cost_usd, "features": [f.to_dict() for f in self.features]}


# -- what the run sends ------------------------------------------------------------------------

class _FirstObservations:
    """An agent that goes straight to the test and stops at its first observation: the
    observations whose action forms and frame a run's first call of each phase carries."""

    def __init__(self) -> None:
        self.seen: dict[str, Any] = {}

    def act(self, observation: Any) -> str:
        from .worldtest.episode import StopEpisode

        self.seen.setdefault(observation.phase, observation)
        if observation.phase == "interaction" and \
                any(f.kind == "go-to-test" for f in observation.actions):
            return "go-to-test"
        raise StopEpisode("the check has the observations it needs")


def phase_observations(tasks: Iterable[Any], protocol: str = "worldtest") -> dict[str, Any]:
    """The first observation of each phase of ``tasks`` (seeded tasks), by phase name: the
    interaction phase's from the first task."""
    from .worldtest.episode import run_episode

    seen: dict[str, Any] = {}
    for task in tasks:
        agent = _FirstObservations()
        run_episode(task, agent, protocol=protocol)
        for phase, observation in agent.seen.items():
            seen.setdefault(phase, observation)
    return seen


def default_tasks(world: str = DEFAULT_WORLD,
                  families: Sequence[str] = FAMILIES) -> tuple[Any, ...]:
    """The shipped tasks of ``world``, seeded as a run seeds them."""
    from .tasks.store import load_task
    from .worldtest.seeding import seeded

    try:
        return tuple(seeded(load_task(world, family), 1)[0] for family in families)
    except LlmEvalError as exc:
        raise CheckSetupError(str(exc)) from None


def _phase_tools(observations: Mapping[str, Any]) -> list[tuple[str, tuple[Tool, ...]]]:
    """(phase, tools) for each set of tools the phases send, but for a set whose every tool
    (name and parameters; a description may differ) an earlier set holds, such as the change
    detection phase's before ``declare`` (the interaction phase's without ``go-to-test``): a
    provider that takes a set of tool schemas takes any part of it, so that call would tell
    nothing new."""
    out: list[tuple[str, tuple[Tool, ...]]] = []
    sent: list[set[str]] = []
    for phase, observation in observations.items():
        tools = action_tools(observation.actions)
        keys = {json.dumps([t.name, t.parameters], sort_keys=True) for t in tools}
        if tools and not any(keys <= known for known in sent):
            out.append((phase, tools))
            sent.append(keys)
    return out


# -- the calls ---------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class _Outcome:
    """One probe call: its result, or the status and message it failed with."""

    result: CallResult | None = None
    status: str = ACCEPTED
    message: str = ""

    @property
    def response(self) -> Response:
        assert self.result is not None
        return self.result.response


def _connection_failed(error: InfrastructureError) -> bool:
    last = error.last
    return (last.message or "").startswith("connection failed") or \
        "connection" in (last.error_class or "").lower()


class _Prober:
    def __init__(self, settings: CheckSettings, adapter: Adapter, policy: CallPolicy,
                 book: PriceBook) -> None:
        self.settings = settings
        self.adapter = adapter
        self.policy = policy
        self.book = book
        self.unreachable: str | None = None

    async def send(self, request: Request) -> _Outcome:
        try:
            result = await call(self.adapter, request, policy=self.policy, prices=self.book,
                                priced_as=self.settings.model)
        except FatalProviderError as exc:
            return _Outcome(status=REFUSED, message=scrub(str(exc)))
        except InfrastructureError as exc:
            if _connection_failed(exc):
                self.unreachable = scrub(exc.last.message)
                return _Outcome(status=UNREACHABLE, message=scrub(str(exc)))
            return _Outcome(status=FAILED, message=scrub(str(exc)))
        return _Outcome(result)

    def config(self, max_tokens: int, **knobs: Any) -> GenerationConfig:
        s = self.settings
        return GenerationConfig(max_output_tokens=max_tokens, temperature=s.temperature,
                                seed=s.seed, tool_mode=s.tool_mode, **knobs)


def _request(text: str, config: GenerationConfig, *, tools: tuple[Tool, ...] = (),
             images: tuple[ImagePart, ...] = (), system: str = SYSTEM,
             cache_key: str | None = None) -> Request:
    return Request(messages=(Message.system(system), Message.user(text, *images)),
                   tools=tools, config=config,
                   metadata={"cache_key": cache_key} if cache_key else {})


def _usage(outcomes: Sequence[_Outcome]) -> dict[str, int]:
    total: dict[str, int] = {}
    for o in outcomes:
        if o.result is not None:
            for k, v in o.response.usage.model_dump().items():
                total[k] = total.get(k, 0) + int(v)
    return total


def _cost(outcomes: Sequence[_Outcome]) -> float | None:
    costs = [o.result.cost for o in outcomes if o.result is not None]
    if not costs or any(c is None for c in costs):
        return None
    return round(sum(c.usd for c in costs if c is not None), 10)


def _dropped_text(dropped: Mapping[str, str]) -> str:
    return "; ".join(f"{k} not sent ({v})" for k, v in sorted(dropped.items()))


def _result(feature: str, outcomes: Sequence[_Outcome], status: str, detail: str,
            dropped: Mapping[str, str] | None = None) -> FeatureResult:
    return FeatureResult(feature, status, detail, calls=len(outcomes), cost_usd=_cost(outcomes),
                         usage=_usage(outcomes), knobs_dropped=dict(dropped or {}))


def _failed(feature: str, outcome: _Outcome) -> FeatureResult:
    return FeatureResult(feature, outcome.status, outcome.message, calls=1)


def _knob_name(budget: int | None, effort: str | None) -> str:
    parts = ([f"thinking budget {budget}"] if budget is not None else []) + \
        ([f"reasoning effort {effort}"] if effort is not None else [])
    return ", ".join(parts)


async def _basic(p: _Prober) -> tuple[FeatureResult, _Outcome]:
    outcome = await p.send(_request(BASIC_TEXT, p.config(PROBE_TOKENS)))
    if outcome.result is None:
        return _failed("basic", outcome), outcome
    r = outcome.response
    if r.knobs_dropped:
        return _result("basic", [outcome], IGNORED, _dropped_text(r.knobs_dropped),
                       r.knobs_dropped), outcome
    return _result("basic", [outcome], ACCEPTED,
                   f"answered by {r.model}: {r.text.strip()[:40]!r}"), outcome


async def _tools(p: _Prober, phase: str, tools: tuple[Tool, ...]) -> FeatureResult:
    feature = f"tools: {phase}"
    outcome = await p.send(_request(TOOLS_TEXT, p.config(TOOL_TOKENS), tools=tools))
    if outcome.result is None:
        return _failed(feature, outcome)
    r = outcome.response
    names = ", ".join(t.name for t in tools)
    if r.knobs_dropped:
        return _result(feature, [outcome], IGNORED,
                       f"{len(tools)} tools ({names}); {_dropped_text(r.knobs_dropped)}",
                       r.knobs_dropped)
    if not r.tool_calls:
        if r.stop_reason == "max_tokens":
            return _result(feature, [outcome], ACCEPTED,
                           f"{len(tools)} tools ({names}) taken; the reply reached the "
                           f"check's cap of {TOOL_TOKENS} tokens before a call")
        return _result(feature, [outcome], IGNORED,
                       f"{len(tools)} tools ({names}) sent, but the reply called none "
                       f"(stop: {r.raw_stop_reason or r.stop_reason})")
    return _result(feature, [outcome], ACCEPTED,
                   f"{len(tools)} tools ({names}); called {r.tool_calls[0].name}")


async def _thinking(p: _Prober, budget: int | None, effort: str | None,
                    tools: tuple[Tool, ...]) -> FeatureResult:
    feature = _knob_name(budget, effort)
    config = p.config(THINKING_TOKENS, thinking_budget=budget, reasoning_effort=effort)
    text = TOOLS_TEXT if tools else BASIC_TEXT
    outcome = await p.send(_request(text, config, tools=tools))
    if outcome.result is None:
        return _failed(feature, outcome)
    r = outcome.response
    with_tools = f" with {len(tools)} tools" if tools else ""
    asked = {k for k, v in (("thinking_budget", budget), ("reasoning_effort", effort))
             if v is not None}
    dropped = {k: v for k, v in r.knobs_dropped.items() if k in asked}
    if dropped:
        return _result(feature, [outcome], IGNORED, _dropped_text(dropped), r.knobs_dropped)
    sent = ", ".join(f"{k}={v}" for k, v in sorted(r.knobs_sent.items()))
    if r.thinking is False:
        return _result(feature, [outcome], IGNORED,
                       f"sent{with_tools} ({sent}), but the reply shows no reasoning (no "
                       f"thinking blocks, 0 reasoning tokens)", r.knobs_dropped)
    if r.thinking is None:
        return _result(feature, [outcome], ACCEPTED,
                       f"sent{with_tools} ({sent}); the provider does not say whether it "
                       f"reasoned", r.knobs_dropped)
    return _result(feature, [outcome], ACCEPTED,
                   f"sent{with_tools} ({sent}); reasoned "
                   f"({r.usage.reasoning_tokens} reasoning tokens)", r.knobs_dropped)


async def _image(p: _Prober, basic: _Outcome, frame_png: bytes) -> FeatureResult:
    image = ImagePart.from_bytes(frame_png)
    outcome = await p.send(_request(BASIC_TEXT, p.config(PROBE_TOKENS), images=(image,)))
    if outcome.result is None:
        return _failed("image", outcome)
    with_image = outcome.response.usage.input_tokens
    without = basic.response.usage.input_tokens
    if with_image == 0 and without == 0:
        return _result("image", [outcome], ACCEPTED,
                       "taken; the provider reports no usage, so whether the image was read "
                       "is unknown")
    if with_image - without < IMAGE_TOKENS:
        return _result("image", [outcome], IGNORED,
                       f"taken, but the input did not grow with the image ({with_image} "
                       f"tokens with it, {without} without): the server drops images")
    return _result("image", [outcome], ACCEPTED,
                   f"read: {with_image - without} input tokens for one frame")


async def _cache(p: _Prober, tools: tuple[Tool, ...]) -> FeatureResult:
    model = p.settings.model
    wanted = math.ceil(min_cached_tokens(model) * CACHE_MARGIN)
    lines: list[str] = [SYSTEM]
    while estimate_text("\n".join(lines)) < wanted:
        lines.append(_FILLER.format(i=len(lines)))
    system = "\n".join(lines)
    key = "llm-eval-check-" + hashlib.sha256(f"{model}\n{system}".encode()).hexdigest()[:16]
    text = TOOLS_TEXT if tools else BASIC_TEXT
    request = _request(text, p.config(TOOL_TOKENS if tools else PROBE_TOKENS), tools=tools,
                       system=system, cache_key=key)
    outcomes = [await p.send(request)]
    if outcomes[0].result is None:
        return _failed("cache", outcomes[0])
    outcomes.append(await p.send(request))
    if outcomes[1].result is None:
        return _failed("cache", outcomes[1])
    written = outcomes[0].response.usage.cache_write_tokens
    read = outcomes[1].response.usage.cache_read_tokens
    prefix = f"a prefix of about {estimate_text(system)} tokens (estimated), sent twice"
    if read <= 0:
        return _result("cache", outcomes, IGNORED,
                       f"{prefix}: no cache read on the second call ({written} tokens written "
                       f"on the first)")
    return _result("cache", outcomes, ACCEPTED,
                   f"{prefix}: {read} tokens read from the cache on the second call "
                   f"({written} written on the first)")


# -- the check ---------------------------------------------------------------------------------

def _price(model: str, book: PriceBook) -> dict[str, Any]:
    found = book.lookup(model)
    if found is None:
        return {"source": "unpriced", "priced_as": None}
    name, _, source = found
    return {"source": source, "priced_as": name}


def endpoint_of(settings: CheckSettings) -> str:
    base = settings.adapter_options.get("base_url")
    return scrub(str(base)) if base else f"the {settings.model.partition('/')[0]} provider's own API"


def make_adapter(settings: CheckSettings) -> Adapter:
    """The model's adapter, as a run makes it (with ``cache``); a missing key or SDK is a
    ``CheckSetupError``."""
    options = {"cache": settings.cache, **dict(settings.adapter_options)}
    try:
        return create_adapter(settings.model, **options)
    except ImportError as exc:
        raise CheckSetupError(f"model {settings.model}: its SDK is not installed "
                              f"({exc.name or exc}); see llm-eval providers") from None
    except LlmEvalError as exc:
        raise CheckSetupError(f"model {settings.model}: {exc}") from None


async def check_model(settings: CheckSettings, *, policy: CallPolicy | None = None,
                      prices: PriceBook | None = None,
                      adapter: Adapter | None = None) -> CheckReport:
    """Check ``settings.model`` (module docstring); ``policy`` as for every model call
    (default ``CallPolicy()`` without a concurrency cap), ``prices`` LiteLLM's map by
    default."""
    from .render import render_png

    book = prices or default_prices()
    policy = policy or CallPolicy(concurrency=None)
    own = adapter is None
    adapter = make_adapter(settings) if adapter is None else adapter   # a missing key: now
    p = _Prober(settings, adapter, policy, book)
    features: list[FeatureResult] = []
    try:
        observations = phase_observations(settings.tasks or default_tasks(),
                                          settings.protocol)
        tools = _phase_tools(observations) if settings.tool_mode == "tools" else []
        first, basic = await _basic(p)
        features.append(first)
        steps: list[tuple[str, Callable[[], Awaitable[FeatureResult]]]] = []
        steps += [(f"tools: {phase}", partial(_tools, p, phase, t)) for phase, t in tools]
        main_tools = tools[0][1] if tools else ()
        steps += [(_knob_name(b, e), partial(_thinking, p, b, e, main_tools))
                  for b, e in settings.knobs]
        if settings.image:
            frame = observations.get("interaction") or next(iter(observations.values()))
            png = render_png(frame.frame, coordinates=True, masked=frame.masked)
            steps.append(("image", lambda: _image(p, basic, png)))
        if settings.cache == "auto" and \
                cache_kind(settings.model, dict(settings.adapter_options)) != "none":
            steps.append(("cache", lambda: _cache(p, main_tools)))
        for name, step in steps:
            if first.status in BLOCKING:
                features.append(FeatureResult(name, SKIPPED,
                                              f"not tried: the basic call was {first.status}"))
                continue
            features.append(await step())
            if p.unreachable is not None:
                break
    finally:
        if own:
            await adapter.aclose()
    error = None
    if p.unreachable is not None:
        error = (f"cannot reach {settings.model} at {endpoint_of(settings)}: "
                 f"{p.unreachable} (offline, or no server there?)")
    return CheckReport(settings.model, endpoint_of(settings), _price(settings.model, book),
                       tuple(features), error)


def check_model_sync(settings: CheckSettings, **kwargs: Any) -> CheckReport:
    """``check_model`` for synchronous callers (its own event loop)."""
    import asyncio

    return asyncio.run(check_model(settings, **kwargs))


# -- the report for people ---------------------------------------------------------------------

def format_report(report: CheckReport) -> str:
    lines = [f"check of {report.model} at {report.endpoint}"]
    width = max([len(f.feature) for f in report.features] + [8])
    for f in report.features:
        lines.append(f"  {f.feature:<{width}}  {f.status:<11} {f.detail}")
    price = report.price
    source = "unpriced (no price in LiteLLM's map or a price file)" \
        if price["source"] == "unpriced" else f"{price['source']}, as {price['priced_as']}"
    lines.append(f"  price: {source}")
    calls = f"{report.calls} call{'' if report.calls == 1 else 's'}"
    lines.append(f"  cost of this check: {describe_cost(report.cost_usd, 6)} ({calls})")
    if report.error:
        lines.append(f"  error: {report.error}")
    blocking = report.blocking
    if blocking:
        lines.append("  result: a run would fail: "
                     + ", ".join(f"{f.feature} {f.status}" for f in blocking))
    else:
        ignored = [f.feature for f in report.features if f.status == IGNORED]
        lines.append("  result: ready" + (f" (ignored, so without effect: "
                                          f"{', '.join(ignored)})" if ignored else ""))
    return "\n".join(lines)
