"""The seeds the generator cannot use (docs/spec/autumn.md 11.1): it runs on ``seed mod 2**32``,
and a state of 0 stays 0, so every random choice returns its first option. Refused by the
interpreter (unless asked: the published harness's default seed is 0), by the worldtest
protocol and by the commands, with this one rule and reason. A module of its own, below the
interpreter, so that the commands and the task models can ask without loading it."""

from __future__ import annotations

__all__ = ["SEED_MODULUS", "DEGENERATE_SEED_REASON", "is_degenerate_seed"]

SEED_MODULUS = 2 ** 32
DEGENERATE_SEED_REASON = ("a seed of 0 (mod 2**32) makes every random choice return its first "
                          "option, silently removing the world's randomness")


def is_degenerate_seed(seed: int) -> bool:
    """Whether ``seed`` leaves the generator at 0 (module docstring)."""
    return seed % SEED_MODULUS == 0
