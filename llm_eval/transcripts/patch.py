"""A value as a patch on the one before it: how a model call stores only what it adds.

Each model call re-sends most of the previous call's request (the history), so storing every
request whole makes a transcript grow with the square of the episode. ``PatchChain`` encodes
each value of a sequence (the typed requests, or the provider's raw requests, of one episode)
against the value before it, and ``apply`` rebuilds it. A patch is JSON:

- ``{"keep": true}``: the value equals the base;
- ``{"set": v}``: the value is ``v``;
- ``{"dict": {key: patch, ...}}``: a dict, key by key in the value's order (a key the base
  lacks is a ``set``; keys only the base has are dropped);
- ``{"list": [piece, ...]}``: a list made of pieces in order, each ``{"copy": [a, b]}`` (the
  base's items ``a`` to ``b - 1``) or ``{"add": [item, ...]}`` (new items). Any shared slice
  is found, not only a shared prefix: a history window drops old turns and puts a summary
  first, so a request is then the system message, a new opening turn, a copied run of the
  previous request's turns and the new turn.

Two items are the same when their JSON texts are (``true`` is not ``1``, key order counts),
so ``apply(base, patch)`` is exactly the value encoded. Diffing costs one JSON dump of each
list item of the new value (the base's are kept from the call before).
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["PatchChain", "PatchError", "apply", "KEEP"]

KEEP: dict[str, Any] = {"keep": True}
_MISSING = object()
KeyPath = tuple[str, ...]   # the keys from a value down to a list in it


class PatchError(ValueError):
    """A patch that does not fit its base (or is not a patch)."""


def _key(item: Any) -> str:
    return json.dumps(item, ensure_ascii=False, separators=(",", ":"))


class PatchChain:
    """Encodes each value against the previous one (module docstring).

    ``encode(value)`` returns the patch, or None when the value is better stored whole (the
    first value, or one that shares nothing with the last); either way ``value`` becomes the
    base of the next call. Values are JSON data and must not be changed afterwards."""

    def __init__(self) -> None:
        self.base: Any = _MISSING
        self._keys: dict[KeyPath, list[str]] = {}   # list path -> its items' JSON, of the base

    def encode(self, value: Any) -> dict[str, Any] | None:
        if self.base is _MISSING:
            patch = None
            keys: dict[KeyPath, list[str]] = {}
        else:
            keys = {}
            patch = _diff(self.base, value, (), self._keys, keys)
            if "set" in patch:
                patch = None
        self.base, self._keys = value, keys
        return patch


def _diff(base: Any, value: Any, path: KeyPath, old: dict[KeyPath, list[str]],
          new: dict[KeyPath, list[str]]) -> dict[str, Any]:
    kind = type(value)
    if kind is dict and type(base) is dict:
        ops: dict[str, Any] = {}
        changed = list(base) != list(value)
        for key, item in value.items():
            op = _diff(base[key], item, path + (key,), old, new) if key in base \
                else {"set": item}
            changed = changed or "keep" not in op
            ops[key] = op
        return {"dict": ops} if changed else KEEP
    if kind is list and type(base) is list:
        keys = [_key(item) for item in value]
        new[path] = keys
        base_keys = old.get(path)
        if base_keys is None or len(base_keys) != len(base):
            base_keys = [_key(item) for item in base]
        if keys == base_keys:
            return KEEP
        pieces = _pieces(base_keys, keys, value)
        if not any("copy" in p for p in pieces):
            return {"set": value}
        return {"list": pieces}
    if kind is type(base) and value == base:
        return KEEP
    return {"set": value}


def _pieces(base_keys: list[str], keys: list[str], value: list[Any]) -> list[dict[str, Any]]:
    """``value`` as copied runs of the base and added items (greedy: a run goes on while the
    next item is the base's next one; a new run starts at the item's first place in the base)."""
    pieces: list[dict[str, Any]] = []
    first: dict[str, int] | None = None
    start = end = -1           # the current run is base[start:end]
    added: list[Any] = []

    def flush_run() -> None:
        nonlocal start, end
        if start >= 0:
            pieces.append({"copy": [start, end]})
            start = end = -1

    for i, key in enumerate(keys):
        if start >= 0 and end < len(base_keys) and base_keys[end] == key:
            end += 1
            continue
        if first is None:
            first = {}
            for at, k in enumerate(base_keys):
                first.setdefault(k, at)
        j = first.get(key)
        if j is None:
            flush_run()
            added.append(value[i])
            continue
        flush_run()
        if added:
            pieces.append({"add": added})
            added = []
        start, end = j, j + 1
    flush_run()
    if added:
        pieces.append({"add": added})
    return pieces


def apply(base: Any, patch: Any) -> Any:
    """The value ``patch`` encodes against ``base`` (``PatchError`` if it does not fit)."""
    if not isinstance(patch, dict) or len(patch) != 1:
        raise PatchError(f"not a patch: {_short(patch)}")
    (kind, body), = patch.items()
    if kind == "keep":
        if base is _MISSING:
            raise PatchError("keep: no base value")
        return base
    if kind == "set":
        return body
    if kind == "dict":
        if not isinstance(base, dict) or not isinstance(body, dict):
            raise PatchError(f"dict patch on {type(base).__name__}")
        out = {}
        for key, op in body.items():
            out[key] = apply(base.get(key, _MISSING), op)
        return out
    if kind == "list":
        if not isinstance(base, list) or not isinstance(body, list):
            raise PatchError(f"list patch on {type(base).__name__}")
        out_list: list[Any] = []
        for piece in body:
            if isinstance(piece, dict) and isinstance(piece.get("copy"), list):
                a, b = piece["copy"]
                if not (isinstance(a, int) and isinstance(b, int) and 0 <= a <= b <= len(base)):
                    raise PatchError(f"copy {a}..{b} of a list of {len(base)}")
                out_list.extend(base[a:b])
            elif isinstance(piece, dict) and isinstance(piece.get("add"), list):
                out_list.extend(piece["add"])
            else:
                raise PatchError(f"not a list piece: {_short(piece)}")
        return out_list
    raise PatchError(f"unknown patch kind {kind!r}")


def _short(value: Any) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= 60 else text[:57] + "..."
