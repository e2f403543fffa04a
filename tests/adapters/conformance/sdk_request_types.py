"""A request body checked against a provider SDK's own request types, extra keys forbidden.

The SDKs describe every request as ``TypedDict``s (``ResponseCreateParamsNonStreaming``,
``CompletionCreateParamsNonStreaming``, ``MessageCreateParamsNonStreaming``). Pydantic's
``TypeAdapter`` validates them, but not strictly enough to trust on its own here:

- it ignores keys a ``TypedDict`` does not declare unless the surrounding config forbids them
  (a wrapping model with ``extra="forbid"`` does reach nested ``TypedDict``s);
- the SDKs type lists as ``Iterable[...]``, which pydantic validates lazily: an item is checked
  only when the result is iterated, so a wrong block deep in ``messages`` passes ``validate``;
- the SDKs' unions also accept their *response* models (anthropic's ``MessageParam.content``
  takes ``ContentBlock``), pydantic ``BaseModel``s that allow extra fields, so a block with a
  key the API refuses still validates as a response model.

So ``check`` walks the body against the type hints itself: a ``TypedDict`` must hold its
required keys and no other (``extra`` names the paths a route may add on purpose), a union
passes if one member other than a response model does, lists are JSON arrays, scalars have
their JSON type. ``pydantic_check`` runs pydantic too (its iterables drained), as a second
opinion on the value types. Any type the walker does not know is an error naming it, never a
pass.
"""

from __future__ import annotations

import collections.abc
import functools
import types
import typing
from typing import Any

import pydantic
import typing_extensions

__all__ = ["Violation", "check", "pydantic_check", "REQUEST_TYPES"]


def _request_types() -> dict[str, Any]:
    from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
    from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming
    from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming

    return {"responses": ResponseCreateParamsNonStreaming,
            "chat": CompletionCreateParamsNonStreaming,
            "messages": MessageCreateParamsNonStreaming}


REQUEST_TYPES = _request_types()


class Violation(AssertionError):
    """The body does not fit the type: ``problems`` lists each as ``path: what``."""

    def __init__(self, kind: str, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(f"not a valid {kind} request:\n  " + "\n  ".join(problems[:20]))


def check(kind: str, body: Any, *, extra: frozenset[str] = frozenset()) -> None:
    """Raise ``Violation`` unless ``body`` fits ``REQUEST_TYPES[kind]`` exactly. ``extra``:
    paths (``messages[].tool_calls[].extra_content``, ``[]`` for any index) where one key the
    type does not declare is allowed."""
    problems = _walk(REQUEST_TYPES[kind], body, "", extra)
    if problems:
        raise Violation(kind, problems)


def pydantic_check(kind: str, body: Any) -> None:
    """Pydantic's own validation of ``body`` (extra keys forbidden where pydantic can see
    them, every lazy iterable drained so its items are checked)."""
    _drain(_pydantic_model(kind).model_validate({"body": body}).body)


@functools.lru_cache(maxsize=None)
def _pydantic_model(kind: str) -> type[pydantic.BaseModel]:
    # building the validator for a whole request type takes about a second: once per kind
    return pydantic.create_model(f"Checked_{kind}", __config__=pydantic.ConfigDict(
        extra="forbid", arbitrary_types_allowed=True), body=(REQUEST_TYPES[kind], ...))


def _drain(value: Any) -> None:
    if isinstance(value, dict):
        for v in value.values():
            _drain(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            _drain(v)
    elif type(value).__name__ == "ValidatorIterator":
        for v in value:
            _drain(v)


# --- the walker ------------------------------------------------------------------------------

_WRAPPERS = {typing.Required, typing.NotRequired, typing_extensions.Required,
             typing_extensions.NotRequired, typing.Annotated, typing_extensions.Annotated}
_LISTS = {list, collections.abc.Iterable, collections.abc.Sequence, typing.Iterable,
          typing.Sequence, typing.List}
_MAPS = {dict, collections.abc.Mapping, typing.Dict, typing.Mapping}


def _unwrap(tp: Any) -> Any:
    while typing.get_origin(tp) in _WRAPPERS:
        tp = typing.get_args(tp)[0]
    return tp


@functools.lru_cache(maxsize=None)
def _fields(td: type) -> tuple[dict[str, Any], frozenset[str]]:
    """A ``TypedDict``'s fields (types unwrapped) and its required keys. The SDKs' modules use
    ``from __future__ import annotations``, so ``__required_keys__`` cannot see ``Required[...]``
    (it reads strings) and says no key is required: they are found from the resolved hints,
    each key by the totality of the class that declares it."""
    hints = typing.get_type_hints(td, include_extras=True)
    required = set()
    for cls in _lineage(td):
        inherited = set().union(*(getattr(b, "__annotations__", {}) for b in _bases(cls)))
        for key in set(cls.__annotations__) - inherited:
            origin = typing.get_origin(hints[key])
            if origin in (typing.Required, typing_extensions.Required) or (
                    cls.__total__ and origin not in (typing.NotRequired,
                                                     typing_extensions.NotRequired)):
                required.add(key)
    return {k: _unwrap(v) for k, v in hints.items()}, frozenset(required)


def _bases(td: type) -> list[type]:
    return [b for b in getattr(td, "__orig_bases__", ()) if typing_extensions.is_typeddict(b)]


def _lineage(td: type) -> list[type]:
    out = [td]
    for base in _bases(td):
        out.extend(_lineage(base))
    return out


def _type_name(tp: Any) -> str:
    return getattr(tp, "__name__", None) or repr(tp)


def _walk(tp: Any, value: Any, path: str, extra: frozenset[str]) -> list[str]:
    tp = _unwrap(tp)
    here = path or "(body)"
    if tp is Any or tp is object:
        return []
    if tp is None or tp is type(None):
        return [] if value is None else [f"{here}: expected null, got {value!r:.60}"]
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        return _union(typing.get_args(tp), value, path, extra)
    if origin in (typing.Literal, typing_extensions.Literal):
        allowed = typing.get_args(tp)
        if any(value == a and type(value) is type(a) for a in allowed):
            return []
        return [f"{here}: expected one of {list(allowed)}, got {value!r:.60}"]
    if origin in _LISTS or tp in _LISTS or (origin is not None and
                                            getattr(origin, "_is_protocol", False)):
        # SequenceNotStr is a Protocol over Sequence: a JSON array
        if not isinstance(value, list):
            return [f"{here}: expected an array, got {type(value).__name__}"]
        (item,) = typing.get_args(tp) or (Any,)
        return [p for i, v in enumerate(value) for p in _walk(item, v, f"{path}[{i}]", extra)]
    if origin in _MAPS or tp in _MAPS:
        if not isinstance(value, dict):
            return [f"{here}: expected an object, got {type(value).__name__}"]
        args = typing.get_args(tp)
        inner = args[1] if len(args) == 2 else Any
        return [p for k, v in value.items() for p in _walk(inner, v, f"{path}.{k}", extra)]
    if typing_extensions.is_typeddict(tp):
        return _typeddict(tp, value, path, extra)
    if isinstance(tp, type) and issubclass(tp, pydantic.BaseModel):
        return [f"{here}: a response model ({tp.__name__}) is not a request shape"]
    if tp is bool:
        return [] if isinstance(value, bool) else [f"{here}: expected a boolean, got {value!r:.60}"]
    if tp is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return []
        return [f"{here}: expected an integer, got {value!r:.60}"]
    if tp is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return []
        return [f"{here}: expected a number, got {value!r:.60}"]
    if tp is str:
        return [] if isinstance(value, str) else [f"{here}: expected a string, got {value!r:.60}"]
    return [f"{here}: the checker does not know the type {_type_name(tp)}"]


def _typeddict(td: type, value: Any, path: str, extra: frozenset[str]) -> list[str]:
    here = path or "(body)"
    if not isinstance(value, dict):
        return [f"{here}: expected an object ({td.__name__}), got {type(value).__name__}"]
    fields, required = _fields(td)
    problems = [f"{here}: missing required key {k!r} ({td.__name__})"
                for k in sorted(required - value.keys())]
    allowed_extra = {p.rpartition(".")[2] for p in extra
                     if p.rpartition(".")[0] == _pattern(path)}
    for key, v in value.items():
        sub = f"{path}.{key}" if path else key
        if key not in fields:
            if key not in allowed_extra:
                problems.append(f"{sub}: not a field of {td.__name__} "
                                f"(fields: {', '.join(sorted(fields))})")
            continue
        problems.extend(_walk(fields[key], v, sub, extra))
    return problems


def _pattern(path: str) -> str:
    """``messages[3].tool_calls[0]`` -> ``messages[].tool_calls[]``."""
    out, skipping = [], False
    for ch in path:
        if ch == "[":
            skipping = True
            out.append("[]")
        elif ch == "]":
            skipping = False
        elif not skipping:
            out.append(ch)
    return "".join(out)


def _union(members: tuple, value: Any, path: str, extra: frozenset[str]) -> list[str]:
    results = []
    for member in members:
        found = _walk(member, value, path, extra)
        if not found:
            return []
        results.append((member, found))
    # report the member the value meant: the one whose ``type`` or ``role`` literal it carries,
    # else one of its JSON kind (object, array), with the fewest problems
    member, found = min(results, key=lambda r: (not _tag_matches(r[0], value),
                                                not _kind_matches(r[0], value), len(r[1])))
    names = ", ".join(_type_name(_unwrap(m)) for m, _ in results)
    if len(results) > 1:
        found = [*found[:5], f"{path or '(body)'}: fits none of {names}"]
    return found


def _kind_matches(member: Any, value: Any) -> bool:
    member = _unwrap(member)
    origin = typing.get_origin(member)
    if isinstance(value, list):
        return origin in _LISTS or member in _LISTS or getattr(origin, "_is_protocol", False)
    if isinstance(value, dict):
        return typing_extensions.is_typeddict(member) or origin in _MAPS or member in _MAPS
    return not (typing_extensions.is_typeddict(member) or origin in _LISTS or origin in _MAPS)


def _tag_matches(member: Any, value: Any) -> bool:
    member = _unwrap(member)
    if not (typing_extensions.is_typeddict(member) and isinstance(value, dict)):
        return False
    fields = _fields(member)[0]
    tags = [k for k in ("type", "role") if k in value and k in fields
            and typing.get_origin(fields[k]) in (typing.Literal, typing_extensions.Literal)]
    return bool(tags) and all(value[k] in typing.get_args(fields[k]) for k in tags)
