"""The stand-in model of ``llm-eval run --estimate``: plays any route offline, billing as it.

``StandInAdapter(model, options, reply_tokens=...)`` answers every request at once, without a
network, as a model on the route of ``model`` would be billed for it:

- **the reply**: ``reply_tokens`` tokens of text (by ``adapters.tokens``' count) and one valid
  action: a tool call in ``tools`` mode, the ``ACTION:`` line or the ``<action>`` tag in the
  text modes. The action comes from the request's metadata (the phase's valid action forms,
  or under the autumnbench protocol the offered strings): only actions that keep a phase going
  (the world's actions, ``watch``), never one that ends it early, chosen in turn, so the
  estimate is the cost of a model that uses every step it is given;
- **the window**: a request over ``context_window`` tokens (estimated) is refused with the
  context-length error a provider gives, so the episode ends there as it would for real;
- **the usage**: input tokens by ``estimate_request``, cache reads and writes by the route's
  ``PromptCache`` under the ``cache`` option (one cache per episode: a request of turn 0 starts
  a new one), output tokens the reply's text and call.

The caller prices the usage as the real model (``LLMAgent`` prices every call as its model).
"""

from __future__ import annotations

import json
import re
from typing import Any

from .base import Adapter
from .caching import PromptCache, cache_kind, min_cached_tokens
from .tokens import estimate_text
from .types import Fatal, Request, Response, ToolCall, Usage

__all__ = ["StandInAdapter", "DEFAULT_REPLY_TOKENS"]

DEFAULT_REPLY_TOKENS = 40
KEEP_GOING = ("left", "right", "up", "down", "click", "noop", "watch")
_RANGE = re.compile(r"\[(\d+)-(\d+)\]")


class StandInAdapter(Adapter):
    provider = "standin"

    def __init__(self, model: str, options: dict[str, Any] | None = None, *,
                 reply_tokens: int = DEFAULT_REPLY_TOKENS,
                 context_window: int | None = None) -> None:
        options = dict(options or {})
        super().__init__(model, **options)
        if reply_tokens < 0:
            raise ValueError(f"reply_tokens must be at least 0, got {reply_tokens}")
        self.kind = cache_kind(model, options)
        self.setting = options.get("cache", "auto")
        self.reply_tokens = reply_tokens
        self.context_window = context_window
        self._min_tokens = min_cached_tokens(model)
        self._cache = PromptCache(self.kind, self.setting, min_tokens=self._min_tokens)
        self._serial = 0

    async def complete(self, request: Request) -> Response:
        meta = request.metadata
        turn = int(meta.get("turn", 0))
        if turn == 0:
            self._cache = PromptCache(self.kind, self.setting, min_tokens=self._min_tokens)
        bill = self._cache.bill(request)
        if self.context_window is not None and bill.input_tokens > self.context_window:
            raise Fatal(f"prompt is too long: {bill.input_tokens} tokens > "
                        f"{self.context_window} (the stand-in's estimate)",
                        reason="context_overflow", provider=self.provider)
        self._serial += 1
        action = _choose(meta, turn)
        text = " step" * self.reply_tokens   # one token each, by estimate_text
        calls: tuple[ToolCall, ...] = ()
        match request.config.tool_mode:
            case "tools":
                name, _, rest = action.partition(" ")
                names = [p["name"].lower() for p in _form(meta, name).get("params", ())]
                args = dict(zip(names, (int(v) for v in rest.split())))
                calls = (ToolCall(id=f"standin_{self._serial}", name=name.replace("-", "_"),
                                  arguments=args, raw_arguments=json.dumps(args)),)
                called = estimate_text(f"{name} {json.dumps(args)}")
            case "text":
                text, called = f"{text}\nACTION: {action}", 0
            case _:
                text, called = f"{text}\n<action>{action}</action>", 0
        usage = Usage(input_tokens=bill.input_tokens,
                      output_tokens=estimate_text(text) + called,
                      cache_read_tokens=bill.cache_read_tokens,
                      cache_write_tokens=bill.cache_write_tokens)
        return Response(provider=self.provider, model_requested=self.model, model=self.model,
                        text=text, tool_calls=calls,
                        stop_reason="tool_call" if calls else "end_turn", usage=usage)


def _form(meta: dict[str, Any], kind: str) -> dict[str, Any]:
    return next((f for f in meta.get("actions", ()) if f["kind"] == kind), {})


def _choose(meta: dict[str, Any], turn: int) -> str:
    """The action for ``turn``: the forms (or offered strings) that keep the phase going, in
    turn, their numbers spread over their ranges; anything valid if none does."""
    forms = meta.get("actions") or []
    if forms:
        going = [f for f in forms if f["kind"] in KEEP_GOING] or forms
        form = going[turn % len(going)]
        numbers = []
        for i, p in enumerate(form.get("params", ())):
            low = p["low"] if p["low"] is not None else 0
            high = p["high"] if p["high"] is not None else low
            numbers.append(str(low + (turn * (3 + 2 * i)) % max(1, high - low + 1)))
        return " ".join([form["kind"], *numbers])
    offered = meta.get("offered") or []
    going = [o for o in offered if o.split(" ")[0] in KEEP_GOING] or offered or ["noop"]
    chosen = going[turn % len(going)]
    return _RANGE.sub(lambda m: str(int(m.group(1)) + turn % (int(m.group(2)) - int(m.group(1))
                                                              + 1)), chosen)
