"""LiteLLM (``litellm/<litellm model>``): any provider LiteLLM knows, and any OpenAI-compatible
server (``litellm/openai/<model>`` with ``base_url=``).

LiteLLM speaks Chat Completions for every provider. A knob is sent only if LiteLLM says the
routed provider supports it (``get_supported_openai_params``); otherwise it is recorded in
``knobs_dropped``. LiteLLM's own retries are off (``num_retries=0``). Importing litellm takes
seconds and, unless told otherwise, fetches a price map from the network: this module is
imported only when a litellm adapter is created, with the local map forced.

Tools go out in the subset of JSON Schema the routed provider takes (``schemas``): a Claude
model's the Anthropic one, OpenAI's API the strict one, anything else the portable one. A
Claude model with thinking on (``thinking``, or a ``reasoning_effort``, which LiteLLM turns
into thinking) is sent ``tool_choice: "auto"``: Anthropic refuses forcing a tool while thinking
is on. LiteLLM's errors carry no response body, so the ``tool_choice`` fallback reads the
server's refusal from the exception's message.

Prompt caching (option ``cache``, ``adapters.caching``): for an Anthropic model LiteLLM is sent
the same two ``cache_control`` markers the Anthropic adapter sends (``mark_for_cache``), which
it passes on; for other providers it sends nothing more (OpenAI caches by itself).

Every LiteLLM call of the process runs on one event loop, in a thread of its own
(``_on_litellm_loop``). LiteLLM keeps process-wide state bound to one loop: its logging worker
queues a success callback for each call and, when a call comes from another loop, moves its
queue there, re-queueing callbacks the old loop has already started. Episodes run concurrently,
each on its own loop in its own thread, so a concurrent sweep made it race with itself:
dozens of "cannot reuse already awaited coroutine" tracebacks on stderr (the results were
right). On one loop there is nothing to move.
"""

from __future__ import annotations

import asyncio
import atexit
import os
import threading
import warnings
from collections.abc import Coroutine
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

import litellm  # noqa: E402

from .base import Adapter, Stopwatch  # noqa: E402
from .chat_format import (  # noqa: E402
    ToolChoiceFallback,
    chat_messages,
    chat_stop_reason,
    chat_tools,
    mark_for_cache,
    read_tool_calls,
    server_message,
)
from .classify import classify_status, error_fields, json_reply, malformed, reading_reply, scrub  # noqa: E402
from .schemas import is_claude, litellm_subset  # noqa: E402
from .thinking import NOT_FORCED_WITH_THINKING, check_budget, max_tokens_with  # noqa: E402
from .types import (  # noqa: E402
    JsonObject,
    ProviderError,
    Request,
    Response,
    Transient,
    Usage,
)

__all__ = ["LiteLLMAdapter"]

_GEMINI = ("gemini", "vertex_ai")   # LiteLLM routes whose tool-only turns go as content null

litellm.suppress_debug_info = True
# LiteLLM dumps the OpenAI SDK's reply object before checking its shape, so a reply of the wrong
# shape (reported as malformed by ``_classify``) also makes pydantic warn on stderr; only that
# warning, raised in pydantic's serializer, is silenced.
warnings.filterwarnings("ignore", message="Pydantic serializer warnings", category=UserWarning,
                        module=r"pydantic\.main")


class LiteLLMAdapter(Adapter):
    provider = "litellm"

    def __init__(self, model: str, **options: Any) -> None:
        super().__init__(model, **options)
        try:
            _, self.routed_provider, _, _ = litellm.get_llm_provider(model)
        except Exception as exc:  # litellm raises a bare BadRequestError-like for unknowns
            from .types import Fatal

            raise Fatal(f"bad_request: litellm does not know model {model!r}: {exc}",
                        reason="bad_request", provider=self.provider) from exc
        self.supported = set(litellm.get_supported_openai_params(
            model=model, custom_llm_provider=self.routed_provider) or ())
        self._tool_choice = ToolChoiceFallback(self.provider, options.get("base_url"), model)
        self.schema_subset = litellm_subset(model, self.routed_provider, options.get("base_url"))
        self._claude = is_claude(model, self.routed_provider)

    def build(self, request: Request, *,
              for_record: bool = False) -> tuple[JsonObject, JsonObject, JsonObject]:
        cfg = request.config
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": chat_messages(request, for_record=for_record,
                                      replay_provider=self.provider,
                                      null_content=self.routed_provider in _GEMINI),
        }
        if self.routed_provider == "anthropic" and self.options.get("cache", "auto") == "auto":
            mark_for_cache(kwargs["messages"])
        sent: dict[str, Any] = {}
        dropped: dict[str, str] = {}
        knobs = {"max_tokens": cfg.max_output_tokens, "temperature": cfg.temperature,
                 "seed": cfg.seed, "reasoning_effort": cfg.reasoning_effort,
                 "thinking": ({"type": "enabled", "budget_tokens": cfg.thinking_budget}
                              if cfg.thinking_budget else None)}
        for name, value in knobs.items():
            if value is None:
                continue
            if name in self.supported:
                kwargs[name] = sent[name] = value
            else:
                dropped[name] = f"litellm: {self.routed_provider} does not support {name}"
        if cfg.thinking_budget == 0:
            dropped["thinking"] = "a budget of 0 means thinking off"
        if self._claude:
            self._claude_thinking(kwargs, sent)
        if request.tools and cfg.tool_mode == "tools":
            kwargs["tools"] = chat_tools(request, self.schema_subset)
            thinking = "thinking" in kwargs or "reasoning_effort" in kwargs
            self._tool_choice.apply(kwargs, dropped, not_forced=(
                NOT_FORCED_WITH_THINKING if self._claude and thinking else None))
            if "parallel_tool_calls" in self.supported:
                kwargs["parallel_tool_calls"] = False
        return kwargs, sent, dropped

    def _claude_thinking(self, kwargs: dict[str, Any], sent: dict[str, Any]) -> None:
        """Anthropic's rules of thinking (``adapters.thinking``) on what LiteLLM will send: the
        budget given, or the one LiteLLM maps a ``reasoning_effort`` to; ``max_tokens`` is the
        reply's own plus that budget, as on the anthropic route."""
        if "thinking" in kwargs:
            budget = kwargs["thinking"]["budget_tokens"]
        elif "reasoning_effort" in kwargs:
            mapped = litellm.AnthropicConfig.map_reasoning_effort(
                kwargs["reasoning_effort"], self.model, self.routed_provider) or {}
            budget = mapped.get("budget_tokens") or 0
        else:
            return
        check_budget(budget, self.provider)
        if budget and "max_tokens" in kwargs:
            kwargs["max_tokens"] = sent["max_tokens"] = max_tokens_with(kwargs["max_tokens"],
                                                                      budget)

    async def complete(self, request: Request) -> Response:
        kwargs, sent, dropped = self.build(request)
        record, _, _ = self.build(request, for_record=True)
        call = dict(kwargs, num_retries=0, max_retries=0,
                    timeout=self.options.get("timeout", 600.0))
        if self.options.get("base_url"):
            call["api_base"] = self.options["base_url"]
        if self.options.get("api_key"):
            call["api_key"] = self.options["api_key"]
        elif self.options.get("api_key_env"):
            call["api_key"] = os.environ.get(self.options["api_key_env"])
        elif self.options.get("base_url"):
            call["api_key"] = "not-needed"
        watch = Stopwatch()
        try:
            result = await _send(call)
        except ProviderError as verdict:
            said = _said(verdict)
            refusal = self._tool_choice.refusal(call, verdict.status, said)
            if refusal is None:
                raise
            self._tool_choice.fall_back(refusal, dropped, call, record)
            watch = Stopwatch()
            result = await _send(call)
            self._tool_choice.remember(dropped)
        latency = watch.elapsed()
        raw = json_reply(result, self.provider, "a chat completion", {"choices": list})
        with reading_reply(self.provider):
            return self.normalise(result, raw, record, sent, dropped, latency)

    def normalise(self, result: Any, raw: JsonObject, record: JsonObject, sent: JsonObject,
                  dropped: JsonObject, latency: float) -> Response:
        """Our ``Response`` from LiteLLM's ``ModelResponse`` (``raw``: the same as JSON)."""
        if not raw["choices"]:
            raise malformed(self.provider, "expected a chat completion with a choice, got none")
        choice = result.choices[0]
        message = choice.message
        calls, call_items = read_tool_calls(raw["choices"][0]["message"].get("tool_calls"),
                                            record)
        blocks = tuple(dict(b) for b in (getattr(message, "thinking_blocks", None) or ()))
        reasoning_text = getattr(message, "reasoning_content", None) or ""
        u = getattr(result, "usage", None)
        raw_usage = raw.get("usage") or {}
        details = getattr(u, "completion_tokens_details", None)
        reasoning = getattr(details, "reasoning_tokens", 0) or 0
        prompt_details = getattr(u, "prompt_tokens_details", None)
        cache_read = (getattr(prompt_details, "cached_tokens", 0)
                      or raw_usage.get("cache_read_input_tokens") or 0)
        cache_write = raw_usage.get("cache_creation_input_tokens") or 0
        usage = Usage(input_tokens=getattr(u, "prompt_tokens", 0) or 0,
                      output_tokens=getattr(u, "completion_tokens", 0) or 0,
                      reasoning_tokens=reasoning, cache_read_tokens=cache_read,
                      cache_write_tokens=cache_write)
        return Response(
            provider=self.provider, model_requested=self.model,
            model=getattr(result, "model", None) or self.model,
            text=message.content or "", tool_calls=calls, thinking_text=reasoning_text,
            replay_items=blocks + call_items,
            stop_reason=chat_stop_reason(choice.finish_reason, bool(calls)),
            raw_stop_reason=choice.finish_reason, usage=usage, raw_usage=raw_usage,
            thinking=bool(reasoning or blocks or reasoning_text),
            knobs_sent=sent, knobs_dropped=dropped, raw_request=scrub(record),
            raw_response=scrub(raw), latency_s=latency)


def _said(verdict: ProviderError) -> str | None:
    """What the server said in refusing the call: its error body's message, or, as LiteLLM's
    exceptions carry no body, the exception's own message (LiteLLM puts the provider's error
    text in it); None when neither is there."""
    cause = verdict.__cause__
    body = getattr(cause, "body", None)
    if body is not None:
        return server_message(body)
    message = getattr(cause, "message", None)
    return message if isinstance(message, str) else None


async def _send(call: dict[str, Any]) -> Any:
    try:
        return await _on_litellm_loop(litellm.acompletion(**call))
    except Exception as exc:
        verdict = _classify(exc)
        if verdict is None:
            raise
        raise verdict from exc


_loop: asyncio.AbstractEventLoop | None = None
_loop_lock = threading.Lock()


def _litellm_loop() -> asyncio.AbstractEventLoop:
    """The one loop LiteLLM's calls run on (module docstring), started on first use."""
    global _loop
    with _loop_lock:
        if _loop is None:
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="litellm-calls", daemon=True)
            thread.start()
            atexit.register(_stop_loop, loop, thread)
            _loop = loop
        return _loop


async def _on_litellm_loop(call: Coroutine[Any, Any, Any]) -> Any:
    """Await ``call`` on LiteLLM's loop from any other; cancelling the caller (the core's
    timeout) cancels the call there."""
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(call, _litellm_loop()))


def _stop_loop(loop: asyncio.AbstractEventLoop, thread: threading.Thread) -> None:
    """At exit (before LiteLLM's own exit handler, registered earlier): stop LiteLLM's logging
    worker on the loop it is bound to, then the loop, so nothing is left pending."""
    from litellm.litellm_core_utils.logging_worker import GLOBAL_LOGGING_WORKER

    async def finish() -> None:
        await GLOBAL_LOGGING_WORKER.stop(timeout=2.0)

    try:
        asyncio.run_coroutine_threadsafe(finish(), loop).result(timeout=5.0)
    except Exception:   # noqa: BLE001 - nothing at exit may raise
        pass
    loop.call_soon_threadsafe(loop.stop)
    thread.join(timeout=5.0)


def _classify(exc: BaseException) -> ProviderError | None:
    errors = litellm.exceptions
    name = type(exc).__name__
    if isinstance(exc, tuple(errors.LITELLM_EXCEPTION_TYPES)) and \
            (what := _malformed_reply(str(exc))) is not None:
        return malformed("litellm", what, error_class=name)
    if isinstance(exc, errors.Timeout):
        return Transient(f"timeout: {scrub(str(exc))[:300]}", provider="litellm",
                         error_class=name)
    if isinstance(exc, errors.ContextWindowExceededError):
        return classify_status(400, f"context window exceeded: {exc}", provider="litellm",
                               error_class=name)
    if isinstance(exc, errors.APIConnectionError):
        return Transient(f"connection failed: {scrub(str(exc))[:300]}", provider="litellm",
                         error_class=name)
    status = getattr(exc, "status_code", None)
    if isinstance(exc, tuple(errors.LITELLM_EXCEPTION_TYPES)) or status is not None:
        headers: dict[str, str] = {}
        response = getattr(exc, "response", None)
        if response is not None and getattr(response, "headers", None) is not None:
            headers.update(dict(response.headers))
        headers.update(getattr(exc, "litellm_response_headers", None) or {})
        kind, code, _ = error_fields(getattr(exc, "body", None))
        return classify_status(status if isinstance(status, int) else 500, str(exc)[:500],
                               provider="litellm", headers=headers, error_class=name,
                               error_type=kind, error_code=code)
    return None


# What LiteLLM says (inside a 500-like InternalServerError) when a 200 reply is not a chat
# completion: a body that is not a JSON object, a missing or wrong ``choices``, or a field its
# conversion could not read.
_MALFORMED_MARKERS = ("Empty or invalid response from LLM endpoint", "Invalid response object",
                      "LiteLLM: provider returned")


def _malformed_reply(text: str) -> str | None:
    """LiteLLM's account of a reply it could not read, plainly; None for any other error."""
    for marker in _MALFORMED_MARKERS:
        at = text.find(marker)
        if at < 0:
            continue
        said = text[at:]
        if marker == "Invalid response object":
            # its message holds its own traceback and the whole reply: keep the error line
            lines = said.split("received_args=")[0].strip().splitlines()
            said = f"litellm could not read it ({lines[-1].strip()})"
        return said.removesuffix(" Check the reverse proxy or model server configuration.")
    return None
