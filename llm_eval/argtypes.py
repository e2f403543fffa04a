"""Argument types shared by the ``llm-eval`` subcommands: each turns a bad value into an
``argparse.ArgumentTypeError``, which argparse reports with the option's name."""

from __future__ import annotations

import argparse
from collections.abc import Callable

__all__ = ["integer", "integer_at_least", "integer_between"]


def integer(text: str) -> int:
    """A base-10 integer."""
    try:
        return int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None


def integer_at_least(low: int) -> Callable[[str], int]:
    """An integer of at least ``low``."""
    def parse(text: str) -> int:
        value = integer(text)
        if value < low:
            bound = "0 or more" if low == 0 else f"at least {low}"
            raise argparse.ArgumentTypeError(f"must be {bound}, got {value}")
        return value
    return parse


def integer_between(low: int, high: int, unit: str = "") -> Callable[[str], int]:
    """An integer from ``low`` to ``high`` inclusive (``unit`` names what it counts)."""
    def parse(text: str) -> int:
        value = integer(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"must be between {low} and {high}{' ' + unit if unit else ''}, got {value}")
        return value
    return parse
