"""How a model call is stored: what it adds to the conversation, not all of it again.

``CallEncoder.encode`` turns one call (the typed request as sent, the response, the
provider's raw request) into the stored fields of a ``model_call`` event:

- ``request``: the typed request whole, for the episode's first call and for a request that
  shares nothing with the one before; otherwise ``request_patch``: ``{"base": i, "op": patch}``,
  a ``patch`` (``patch.py``) on the request of call ``i``, the call before;
- ``response``: the response; its ``raw_request`` (the provider's request body) is stored the
  same way, whole inside ``response`` or as ``raw_request_patch`` beside it;
- ``truncated``: each string cut by the cap (``cap.py``: at most 65,536 characters a string),
  with its path in the stored fields, its original length and sha256.

Everything stored is scrubbed of secrets (``adapters.classify.scrub``) item by item, as a
scrub of the whole would be. ``CallExpander.expand`` rebuilds the whole request and raw
request from a stream of stored calls, keeping only the previous call's: rebuilt values share
the unchanged items with the call before, so expanding an episode costs little memory.
``expand_calls`` does it for a list of records (``LLMAgent.calls``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from typing import Any

from llm_eval.adapters.classify import scrub

from .cap import cap_strings
from .patch import PatchChain, PatchError, apply

__all__ = ["CallEncoder", "CallExpander", "expand_calls", "PatchError"]

REDACTED = "[redacted]"


@functools.lru_cache(maxsize=1024)
def _secret_key(key: str) -> bool:
    """Whether ``scrub`` redacts the value under ``key`` (its rule, asked through it)."""
    return bool(scrub({key: 1}).get(key) == REDACTED)


def _stored(value: Any, cuts: list[dict[str, Any]], where: str) -> Any:
    return cap_strings(scrub(value), cuts, where)


def _stored_op(op: dict[str, Any], cuts: list[dict[str, Any]], where: str) -> dict[str, Any]:
    """A patch with what it adds scrubbed and capped (what it copies already was)."""
    kind, body = next(iter(op.items()))
    if kind == "set":
        return {"set": _stored(body, cuts, f"{where}.set")}
    if kind == "dict":
        out = {}
        for key, sub in body.items():
            if _secret_key(key) and "keep" not in sub and \
                    not ("set" in sub and sub["set"] in (None, "")):
                out[key] = {"set": REDACTED}
            else:
                out[key] = _stored_op(sub, cuts, f"{where}.dict.{key}")
        return {"dict": out}
    if kind == "list":
        return {"list": [{"add": _stored(p["add"], cuts, f"{where}.list[{i}].add")}
                         if "add" in p else p for i, p in enumerate(body)]}
    return op


def _with_raw(response: dict[str, Any], raw: Any) -> dict[str, Any]:
    """``response`` with ``raw_request`` in its place (before ``raw_response``)."""
    out: dict[str, Any] = {}
    for key, value in response.items():
        if key == "raw_response":
            out["raw_request"] = raw
        if key != "raw_request":
            out[key] = value
    out.setdefault("raw_request", raw)
    return out


class CallEncoder:
    """The stored fields of each call of one episode, in order (module docstring)."""

    def __init__(self) -> None:
        self._requests = PatchChain()
        self._raw = PatchChain()
        self.calls = 0

    def encode(self, request: dict[str, Any], response: dict[str, Any],
               raw_request: dict[str, Any]) -> dict[str, Any]:
        """``request``: the typed request as JSON (images as their hash); ``response``: the
        response as JSON without ``raw_request``; ``raw_request``: the provider's request."""
        cuts: list[dict[str, Any]] = []
        fields: dict[str, Any] = {}
        base = self.calls - 1
        patch = self._requests.encode(request)
        if patch is None:
            fields["request"] = _stored(request, cuts, "request")
        else:
            fields["request_patch"] = {"base": base,
                                       "op": _stored_op(patch, cuts, "request_patch.op")}
        stored = _stored(response, cuts, "response")
        raw_patch = self._raw.encode(raw_request)
        if raw_patch is None:
            fields["response"] = _with_raw(stored, _stored(raw_request, cuts,
                                                           "response.raw_request"))
        else:
            fields["response"] = stored
            fields["raw_request_patch"] = {
                "base": base, "op": _stored_op(raw_patch, cuts, "raw_request_patch.op")}
        fields["truncated"] = cuts
        self.calls += 1
        return fields


class CallExpander:
    """Rebuilds whole requests from stored calls, in order (module docstring)."""

    def __init__(self) -> None:
        self.index: int | None = None
        self.request: Any = None
        self.raw: Any = None

    def expand(self, index: int, request: dict[str, Any] | None,
               request_patch: dict[str, Any] | None, response: dict[str, Any],
               raw_request_patch: dict[str, Any] | None
               ) -> tuple[dict[str, Any], dict[str, Any]]:
        """The whole request and the response with its whole ``raw_request`` of the call
        ``index`` (``PatchError`` if a patch's base is not the call before or does not fit)."""
        if request is not None:
            whole = request
        elif request_patch is not None:
            whole = apply(self._base(request_patch, index, self.request, "request"),
                          request_patch.get("op"))
        else:
            raise PatchError("a model call with neither request nor request_patch")
        if raw_request_patch is not None:
            raw = apply(self._base(raw_request_patch, index, self.raw, "raw request"),
                        raw_request_patch.get("op"))
            response = _with_raw(response, raw)
        else:
            raw = response.get("raw_request", {})
        self.index, self.request, self.raw = index, whole, raw
        return whole, response

    def _base(self, patch: dict[str, Any], index: int, value: Any, what: str) -> Any:
        base = patch.get("base")
        if self.index is None or base != self.index:
            before = "no call" if self.index is None else f"call {self.index}"
            raise PatchError(f"model call {index}: its {what} is a patch on call {base}, "
                             f"but the call before it is {before}")
        return value


def expand_calls(records: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The stored call records (``LLMAgent.calls``, or model_call events as JSON) with each
    ``request`` and ``response.raw_request`` whole again."""
    expander = CallExpander()
    for record in records:
        request, response = expander.expand(
            record["index"], record.get("request"), record.get("request_patch"),
            record["response"], record.get("raw_request_patch"))
        yield {**record, "request": request, "request_patch": None, "response": response,
               "raw_request_patch": None}
