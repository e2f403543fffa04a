"""Cost of a model call from its usage: LiteLLM's price map, and a user's prices over it.

The map is the one LiteLLM ships in its package (``model_prices_and_context_window_backup.json``:
input, output, cache read and write, reasoning and long-prompt rates for several thousand
models), read offline: it is the file ``litellm.model_cost`` holds when
``LITELLM_LOCAL_MODEL_COST_MAP=True``, read here without importing litellm (seconds), once per
process, and only when a price is asked for. Its version is the installed LiteLLM's.

A model is priced by its LiteLLM name whatever the route (``litellm_name``):
``openai/gpt-4.1-mini``, ``openai-chat/gpt-4.1-mini`` and ``litellm/gpt-4.1-mini`` are the
same model at the same price. A price file (``--prices FILE``, ``prices:`` in a sweep spec)
overrides or adds models, by our name (``openai-chat/smollm2-135m``) or LiteLLM's
(``gpt-4.1-mini``), in dollars per million tokens::

    models:
      openai-chat/smollm2-135m: {input: 0, output: 0}        # a local server
      gpt-4.1-mini: {input: 0.30, output: 1.20, cache_read: 0.075}

``input`` and ``output`` are required; ``cache_read`` and ``cache_write`` default to the input
rate and ``reasoning`` to the output rate (LiteLLM's rules for a missing rate). An entry
replaces the map's price of that model whole.

A model neither knows is *unpriced*: its calls have no cost (``None``, never 0), and a run
with a spend cap refuses to start with it (``PriceBook.unpriced``). Each cost names the price
it came from (``source``), and usage is kept raw beside it, so any run, including one priced
by the earlier hand-written table, can be re-priced from its stored usage (``price``).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import importlib.util
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..errors import LlmEvalError

__all__ = ["ModelPrice", "Cost", "PriceBook", "PinnedPrices", "PriceFileError", "load_prices",
           "price", "litellm_name", "default_prices", "book_for", "prices_from_data", "UNPRICED",
           "describe_cost", "source_of_record"]

UNPRICED = "unpriced"
MAP_FILE = "model_prices_and_context_window_backup.json"
_KINDS = ("input", "output", "cache_read", "cache_write", "reasoning")
_MAP_KEYS = {"input": "input_cost_per_token", "output": "output_cost_per_token",
             "cache_read": "cache_read_input_token_cost",
             "cache_write": "cache_creation_input_token_cost"}
_TIER = re.compile(r"^(input_cost_per_token|output_cost_per_token|cache_read_input_token_cost|"
                   r"cache_creation_input_token_cost)_above_(\d+)(k?)_tokens$")
# routes whose model is the provider's own name: priced as LiteLLM's ``<provider>/<model>``
_NATIVE = {"openai": "openai", "openai-chat": "openai", "anthropic": "anthropic"}
FREE_PROVIDERS = ("replay",)


class PriceFileError(LlmEvalError):
    """A price file that cannot be read (names the file, the line and the field)."""


@dataclass(frozen=True, slots=True)
class ModelPrice:
    """US dollars per token. ``reasoning`` None: reasoning tokens cost as output. ``tiers``:
    (prompt size in tokens, the rates for a prompt above it), smallest first."""

    input: float
    output: float
    cache_read: float
    cache_write: float
    reasoning: float | None = None
    tiers: tuple[tuple[int, ModelPrice], ...] = field(default=(), compare=False)

    def for_prompt(self, input_tokens: int) -> ModelPrice:
        """The rates that apply to a prompt of ``input_tokens``."""
        chosen = self
        for threshold, rates in self.tiers:
            if input_tokens > threshold:
                chosen = rates
        return chosen

    def to_dict(self) -> dict[str, Any]:
        """The rates as JSON (dollars per token, as held), for a transcript header."""
        out: dict[str, Any] = {"input": self.input, "output": self.output,
                               "cache_read": self.cache_read, "cache_write": self.cache_write,
                               "reasoning": self.reasoning}
        if self.tiers:
            out["tiers"] = [[threshold, rates.to_dict()] for threshold, rates in self.tiers]
        return out

    @classmethod
    def from_dict(cls, data: Any) -> ModelPrice:
        """The rates ``to_dict`` gave (``ValueError`` if ``data`` is not such a record)."""
        if not isinstance(data, dict):
            raise ValueError(f"rates are a mapping, got {type(data).__name__}")

        def rate(kind: str) -> float:
            value = data.get(kind)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise ValueError(f"{kind}: a rate is a number at least 0, got {value!r}")
            return float(value)

        tiers = data.get("tiers", [])
        if not isinstance(tiers, list) or not all(
                isinstance(t, list) and len(t) == 2 and isinstance(t[0], int) for t in tiers):
            raise ValueError(f"tiers: expected [[tokens, rates], ...], got {tiers!r}")
        return cls(input=rate("input"), output=rate("output"), cache_read=rate("cache_read"),
                   cache_write=rate("cache_write"),
                   reasoning=None if data.get("reasoning") is None else rate("reasoning"),
                   tiers=tuple((t, cls.from_dict(r)) for t, r in tiers))


@dataclass(frozen=True, slots=True)
class Cost:
    usd: float
    model: str           # the name it was priced under
    source: str          # where the price came from
    parts: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {"usd": self.usd, "model": self.model, "source": self.source,
                "parts": dict(self.parts)}


def litellm_name(model: str) -> str | None:
    """Our ``provider/model`` as LiteLLM names it (module docstring); None for what is never
    priced (random, oracle, script and replay agents)."""
    provider, _, name = model.partition("/")
    if not name or provider in FREE_PROVIDERS or provider == "script":
        return None
    if provider == "litellm":
        return name
    return f"{_NATIVE.get(provider, provider)}/{name}"


# -- LiteLLM's map ----------------------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def _litellm_map() -> tuple[dict[str, dict[str, Any]], str]:
    """The map LiteLLM ships and LiteLLM's version; ({}, "not installed") without LiteLLM."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return {}, "not installed"
    path = Path(list(spec.submodule_search_locations)[0]) / MAP_FILE
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}, "not installed"
    entries = {k: v for k, v in data.items() if isinstance(v, dict) and k != "sample_spec"}
    for name, entry in list(entries.items()):   # a row that is another's alias is served as it
        target = entry.get("alias_of")
        if isinstance(target, str) and isinstance(entries.get(target), dict):
            entries[name] = entries[target]
    try:
        version = importlib.metadata.version("litellm")
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    return entries, version


def _from_map(entry: dict[str, Any]) -> ModelPrice | None:
    """Our rates from a map entry; None for one without token prices (images, audio...)."""
    if not isinstance(entry.get("input_cost_per_token"), (int, float)) or \
            not isinstance(entry.get("output_cost_per_token"), (int, float)):
        return None
    base = _rates(entry)
    tiers: dict[int, dict[str, float]] = {}
    for key, value in entry.items():
        match = _TIER.match(key)
        if match and isinstance(value, (int, float)):
            threshold = int(match[2]) * (1000 if match[3] else 1)
            tiers.setdefault(threshold, {})[match[1]] = float(value)
    levels = []
    for threshold in sorted(tiers):
        levels.append((threshold, _rates({**entry, **tiers[threshold]})))
    return replace(base, tiers=tuple(levels))


def _rates(entry: dict[str, Any]) -> ModelPrice:
    def rate(key: str) -> float | None:
        value = entry.get(key)
        return float(value) if isinstance(value, (int, float)) else None

    input_rate = rate(_MAP_KEYS["input"]) or 0.0
    cache_read, cache_write = rate(_MAP_KEYS["cache_read"]), rate(_MAP_KEYS["cache_write"])
    return ModelPrice(input=input_rate, output=rate(_MAP_KEYS["output"]) or 0.0,
                      cache_read=input_rate if cache_read is None else cache_read,
                      cache_write=input_rate if cache_write is None else cache_write,
                      reasoning=rate("output_cost_per_reasoning_token"))


# -- price files ------------------------------------------------------------------------------

def _read_file(path: Path) -> dict[str, ModelPrice]:
    """A price file's overrides, read within ``bounded_yaml``'s bounds (size, aliases)."""
    import yaml

    from ..bounded_yaml import BoundsError, load_bounded, read_bounded

    try:
        text = read_bounded(path)
    except UnicodeDecodeError as exc:
        raise PriceFileError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise PriceFileError(f"{path}: cannot read the price file: "
                             f"{exc.strerror or exc}") from None
    except BoundsError as exc:
        raise PriceFileError(f"{path}: {exc.problem}") from None
    try:
        data, tree = load_bounded(text)
    except BoundsError as exc:
        mark = exc.problem_mark
        raise PriceFileError(f"{path}{f':{mark.line + 1}' if mark else ''}: {exc.setting}: "
                             f"{exc.problem}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f":{mark.line + 1}" if mark else ""
        raise PriceFileError(f"{path}{where}: not valid YAML: "
                             f"{getattr(exc, 'problem', None) or exc}") from None
    return prices_from_data(data, str(path), lambda *keys: _line(tree, keys))


def prices_from_data(data: Any, source: str, line_of=None) -> dict[str, ModelPrice]:
    """Overrides from the data of a price file (``{"models": {name: {kind: $/Mtok}}}``);
    errors name ``source``, the line (given ``line_of``) and the field."""
    def fail(message: str, *keys: str) -> PriceFileError:
        line = line_of(*keys) if line_of is not None else None
        where = f"{source}:{line}" if line else source
        field_name = ".".join(keys)
        return PriceFileError(f"{where}: {field_name + ': ' if field_name else ''}{message}")

    if not isinstance(data, dict) or not isinstance(data.get("models"), dict):
        raise fail("a price file is a mapping with 'models': {model: {input: ..., output: "
                   "...}} in dollars per million tokens")
    unknown = sorted(set(data) - {"models", "note", "unit", "currency"})
    if unknown:
        raise fail("unknown field (expected models, note)", unknown[0])
    models: dict[str, ModelPrice] = {}
    for name, entry in data["models"].items():
        where = ("models", str(name))
        if not isinstance(entry, dict):
            raise fail("expected a mapping of rates such as {input: 0.4, output: 1.6}", *where)
        bad = sorted(set(entry) - set(_KINDS))
        if bad:
            raise fail(f"unknown rate (expected {', '.join(_KINDS)})", *where, bad[0])
        for kind in ("input", "output"):
            if kind not in entry:
                raise fail(f"missing {kind} (dollars per million tokens)", *where)
        rates: dict[str, float] = {}
        for kind, value in entry.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
                raise fail(f"a rate is a number of dollars per million tokens, at least 0; "
                           f"got {value!r}", *where, kind)
            rates[kind] = float(value) / 1_000_000
        models[str(name)] = ModelPrice(
            input=rates["input"], output=rates["output"],
            cache_read=rates.get("cache_read", rates["input"]),
            cache_write=rates.get("cache_write", rates["input"]),
            reasoning=rates.get("reasoning"))
    return models


def _line(tree: Any, keys: tuple[str, ...]) -> int | None:
    node, line = tree, None
    for key in keys:
        if node is None or not hasattr(node, "value") or not isinstance(node.value, list):
            break
        for k, v in node.value if node.value and isinstance(node.value[0], tuple) else ():
            if str(k.value) == key:
                node, line = v, k.start_mark.line + 1
                break
        else:
            break
    return line


# -- the book ---------------------------------------------------------------------------------

class PriceBook:
    """LiteLLM's map with a user's prices over it (module docstring)."""

    def __init__(self, overrides: dict[str, ModelPrice] | None = None, *,
                 file: str | None = None, file_sha256: str | None = None) -> None:
        self.overrides = dict(overrides or {})
        self.file = file
        self.file_sha256 = file_sha256
        self._found: dict[str, tuple[str, ModelPrice, str] | None] = {}   # lookup's, by model

    @property
    def litellm_version(self) -> str:
        return _litellm_map()[1]

    def describe(self, model: str | None = None) -> dict[str, Any]:
        """The price source for a transcript header: the map, its version, the user's file;
        given ``model``, also the price it is charged (``model``: the name priced, where it
        came from and its rates), so a replay prices the job as it ran (``PinnedPrices``)."""
        out: dict[str, Any] = {"map": "litellm", "litellm": self.litellm_version}
        if self.file is not None:
            out["file"] = self.file
            out["file_sha256"] = self.file_sha256
        found = self.lookup(model) if model is not None else None
        if found is not None:
            name, rates, source = found
            out["model"] = {"name": name, "source": source, "rates": rates.to_dict()}
        return out

    @property
    def map_source(self) -> str:
        return f"LiteLLM price map (litellm {self.litellm_version})"

    def lookup(self, model: str) -> tuple[str, ModelPrice, str] | None:
        """(the name priced, its rates, where they came from) for our ``provider/model``, or
        None if it is unpriced (read once per model: every call is priced)."""
        if model not in self._found:
            self._found[model] = self._lookup(model)
        return self._found[model]

    def _lookup(self, model: str) -> tuple[str, ModelPrice, str] | None:
        name = litellm_name(model)
        if name is None:
            return None
        bare = name.partition("/")[2] if "/" in name else None
        for candidate in (model, name, bare):
            if candidate and candidate in self.overrides:
                return candidate, self.overrides[candidate], f"prices file {self.file}"
        entries = _litellm_map()[0]
        found = self._in_map(entries, name)
        if found is None:
            return None
        key, entry = found
        rates = _from_map(entry)
        return (key, rates, self.map_source) if rates is not None else None

    @staticmethod
    def _in_map(entries: dict[str, dict[str, Any]],
                name: str) -> tuple[str, dict[str, Any]] | None:
        if name in entries:
            return name, entries[name]
        prefix, _, bare = name.partition("/")
        entry = entries.get(bare) if bare else None
        # a bare entry serves a prefixed name only if it is that provider's model
        if entry is not None and prefix in str(entry.get("litellm_provider", "")).split("-"):
            return bare, entry
        return None

    def context_window(self, model: str) -> int | None:
        """The model's context window in tokens from LiteLLM's map (``max_input_tokens``, else
        ``max_tokens``), or None if the map does not say."""
        name = litellm_name(model)
        found = self._in_map(_litellm_map()[0], name) if name is not None else None
        if found is None:
            return None
        entry = found[1]
        for key in ("max_input_tokens", "max_tokens"):
            value = entry.get(key)
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                return value
        return None

    def unpriced(self, models: Iterable[str]) -> list[str]:
        """The provider models of ``models`` this book cannot price (local agents and
        replays cost nothing and are left out)."""
        return [m for m in models if litellm_name(m) is not None and self.lookup(m) is None]


class PinnedPrices(PriceBook):
    """A book that charges one model the price a transcript header recorded for it
    (``PriceBook.describe(model)``), whatever LiteLLM's map or a price file says now; other
    models as LiteLLM's map does."""

    def __init__(self, described: dict[str, Any], model: str) -> None:
        """``ValueError`` if ``described`` records no price for ``model``."""
        pinned = described.get("model")
        if not isinstance(pinned, dict) or not all(
                isinstance(pinned.get(k), str) for k in ("name", "source")):
            raise ValueError("the header's prices record no price for the job's model")
        super().__init__(file=described.get("file"), file_sha256=described.get("file_sha256"))
        self.model = model
        self.pinned = (pinned["name"], ModelPrice.from_dict(pinned.get("rates")),
                       pinned["source"])

    def _lookup(self, model: str) -> tuple[str, ModelPrice, str] | None:
        return self.pinned if model == self.model else super()._lookup(model)


@functools.lru_cache(maxsize=1)
def default_prices() -> PriceBook:
    """LiteLLM's map alone."""
    return PriceBook()


def load_prices(path: str | Path | None = None) -> PriceBook:
    """LiteLLM's map, with the price file at ``path`` over it."""
    if path is None:
        return default_prices()
    path = Path(path)
    overrides = _read_file(path)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    return PriceBook(overrides, file=str(path), file_sha256=digest)


def book_for(prices: str | Path | dict[str, Any] | None) -> PriceBook:
    """The book of a sweep's ``prices`` setting: None (the map alone), a price file's path, or
    the same data inline. A file is read once per version of it."""
    if prices is None:
        return default_prices()
    if isinstance(prices, dict):
        text = json.dumps(prices, sort_keys=True, default=str)
        return _inline_book(text)
    path = Path(prices)
    try:
        stat = path.stat()
    except OSError as exc:
        raise PriceFileError(f"{path}: cannot read the price file: "
                             f"{exc.strerror or exc}") from None
    return _file_book(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=16)
def _file_book(path: str, mtime_ns: int, size: int) -> PriceBook:
    return load_prices(path)


@functools.lru_cache(maxsize=16)
def _inline_book(text: str) -> PriceBook:
    overrides = prices_from_data(json.loads(text), "prices (in the sweep spec)")
    return PriceBook(overrides, file="(the sweep spec's prices)",
                     file_sha256=hashlib.sha256(text.encode()).hexdigest())


def price(usage: Any, model: str, book: PriceBook | None = None) -> Cost | None:
    """The cost of ``usage`` (a ``Usage``, or its stored dict) for our ``provider/model``,
    or None if it is unpriced."""
    found = (book or default_prices()).lookup(model)
    if found is None:
        return None
    name, rates, source = found
    u = usage if isinstance(usage, dict) else usage.model_dump()
    tokens = {k: int(u.get(k) or 0) for k in ("input_tokens", "output_tokens", "reasoning_tokens",
                                             "cache_read_tokens", "cache_write_tokens")}
    p = rates.for_prompt(tokens["input_tokens"])
    uncached = max(0, tokens["input_tokens"] - tokens["cache_read_tokens"]
                   - tokens["cache_write_tokens"])
    parts = {"input": uncached * p.input, "cache_read": tokens["cache_read_tokens"] * p.cache_read,
             "cache_write": tokens["cache_write_tokens"] * p.cache_write}
    if p.reasoning is None:
        parts["output"] = tokens["output_tokens"] * p.output
    else:
        visible = max(0, tokens["output_tokens"] - tokens["reasoning_tokens"])
        parts["output"] = visible * p.output
        parts["reasoning"] = tokens["reasoning_tokens"] * p.reasoning
    return Cost(round(sum(parts.values()), 10), name, source, parts)


def describe_cost(usd: float | None, digits: int = 4) -> str:
    """A cost for people: dollars, or ``unpriced`` (never $0 for a model with no price)."""
    return UNPRICED if usd is None else f"${usd:,.{digits}f}"


def source_of_record(versions: dict[str, Any] | None, cost: dict[str, Any] | None) -> str | None:
    """What priced a recorded episode, for people: from its transcript header's
    ``versions["prices"]`` or, in a transcript from before them, its first call's cost (the
    hand-written table of earlier versions named itself by version and date)."""
    described = (versions or {}).get("prices")
    if isinstance(described, dict):
        text = f"LiteLLM price map (litellm {described.get('litellm', 'unknown')})"
        if described.get("file"):
            text += f" under prices file {described['file']}"
        return text
    if isinstance(cost, dict):
        if cost.get("source"):
            return str(cost["source"])
        if "table_version" in cost:
            return (f"the hand-written table of earlier versions (version "
                    f"{cost['table_version']} of {cost.get('table_date')})")
    return None
