"""Cost of a call from its usage and a dated, versioned price table shipped as package data.

Usage is kept raw beside the cost, so a run can be re-priced with a later table; the cost
records which table (version and date) priced it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from adapters.types import Usage

from ..errors import LlmEvalError

__all__ = ["PriceTable", "ModelPrice", "Cost", "PriceTableError", "load_prices", "price"]

_KINDS = ("input", "cache_read", "cache_write", "output")
_DATED = re.compile(r"-(\d{8}|\d{4}-\d{2}-\d{2}|latest|preview(-[\w-]+)?)$")


class PriceTableError(LlmEvalError):
    """A price table that cannot be read (names the file and the field)."""


@dataclass(frozen=True, slots=True)
class ModelPrice:
    input: float
    cache_read: float
    cache_write: float
    output: float
    reasoning: float | None = None  # None: reasoning tokens are billed as output


@dataclass(frozen=True, slots=True)
class PriceTable:
    version: int
    date: str
    models: dict[str, ModelPrice]

    def lookup(self, model: str) -> tuple[str, ModelPrice] | None:
        """The price of ``model``: exact, then without a provider prefix (``gemini/x``) and
        a date suffix (``-20250929``)."""
        name = model.rsplit("/", 1)[-1]
        for candidate in (model, name, _DATED.sub("", name)):
            if candidate in self.models:
                return candidate, self.models[candidate]
        return None


@dataclass(frozen=True, slots=True)
class Cost:
    usd: float
    model: str
    table_version: int
    table_date: str
    parts: dict[str, float]

    def to_dict(self) -> dict[str, Any]:
        return {"usd": self.usd, "model": self.model, "table_version": self.table_version,
                "table_date": self.table_date, "parts": dict(self.parts)}


def _read(text: str, where: str) -> PriceTable:
    data = yaml.safe_load(text)
    if not isinstance(data, dict):
        raise PriceTableError(f"{where}: not a mapping")
    for field in ("version", "date", "models"):
        if field not in data:
            raise PriceTableError(f"{where}: missing field {field!r}")
    models = {}
    for name, entry in data["models"].items():
        missing = [k for k in _KINDS if k not in (entry or {})]
        if missing:
            raise PriceTableError(f"{where}: models.{name}: missing {', '.join(missing)}")
        models[name] = ModelPrice(**{k: float(v) for k, v in entry.items()})
    return PriceTable(int(data["version"]), str(data["date"]), models)


@lru_cache(maxsize=None)
def _shipped() -> PriceTable:
    text = resources.files(__package__).joinpath("prices.yaml").read_text(encoding="utf-8")
    return _read(text, "llm_eval/pricing/prices.yaml")


def load_prices(path: str | Path | None = None) -> PriceTable:
    """The shipped table, or the one at ``path``."""
    if path is None:
        return _shipped()
    return _read(Path(path).read_text(encoding="utf-8"), str(path))


def price(usage: Usage, model: str, table: PriceTable | None = None) -> Cost | None:
    """The cost of ``usage`` for ``model`` (the model that answered), or None if the table does
    not know it."""
    table = table or _shipped()
    found = table.lookup(model)
    if found is None:
        return None
    name, p = found
    uncached = max(0, usage.input_tokens - usage.cache_read_tokens - usage.cache_write_tokens)
    parts = {"input": uncached * p.input, "cache_read": usage.cache_read_tokens * p.cache_read,
             "cache_write": usage.cache_write_tokens * p.cache_write}
    if p.reasoning is None:
        parts["output"] = usage.output_tokens * p.output
    else:
        visible = max(0, usage.output_tokens - usage.reasoning_tokens)
        parts["output"] = visible * p.output
        parts["reasoning"] = usage.reasoning_tokens * p.reasoning
    parts = {k: v / 1_000_000 for k, v in parts.items()}
    return Cost(round(sum(parts.values()), 10), name, table.version, table.date, parts)
