"""Shared helpers of the Autumn tests: printed forms (docs/spec/autumn.md 5.5), the random generator of
11.1, the hash-table order of 9.1, and a small script runner (evaluations, steps, host renders,
frame checks on one interpreter).

These are transcriptions of the specification, written independently of the interpreter, so
that tests can compute expectations from the spec text alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import pytest

from llm_eval.autumn import Interpreter
from llm_eval.errors import AutumnInternalError

__all__ = [
    "UNK", "NUM", "BOOL", "STR", "POS_T", "POSL", "ANY", "N", "B", "S", "P", "L", "NL", "SL",
    "PL", "matches", "spec_states", "Ev", "Step", "Render", "Frame", "run_ops", "grid_rows",
    "spec_hash", "SpecHashTable", "NATIVE_ORDER", "STDLIB_ORDER",
]

# --------------------------------------------------------------------------- printed forms (5.5)

UNK = "List<Unknown>"
NUM = "List<Number>"
BOOL = "List<Bool>"
STR = "List<String>"
POS_T = "class Position {x: Number, y: Number, }"
POSL = f"List<{POS_T}>"
ANY = "<TAG>"          # a tag the spec does not pin down: matches any tag


def N(n: int) -> str:
    return f"({n}: N)"


def B(b: bool) -> str:
    return f"({'true' if b else 'false'}: Bool)"


def S(s: str) -> str:
    return f'("{s}": S)'


def P(x: int, y: int) -> str:
    return f"Position{{x: {N(x)},y: {N(y)}}}"


def L(items: list[str], tag: str) -> str:
    return "([" + ", ".join(items) + "] :" + tag + ")"


def NL(nums: list[int], tag: str = NUM) -> str:
    return L([N(n) for n in nums], tag)


def SL(strs: list[str], tag: str = UNK) -> str:
    return L([S(s) for s in strs], tag)


def PL(pairs: list[tuple[int, int]], tag: str = UNK) -> str:
    return L([P(x, y) for x, y in pairs], tag)


def matches(expected: str, actual: str) -> bool:
    if ANY not in expected:
        return expected == actual
    pattern = re.escape(expected).replace(re.escape(ANY), ".*?")
    return re.fullmatch(pattern, actual, re.DOTALL) is not None


# --------------------------------------------------------------------------- the generator (11.1)


def spec_states(seed: int, n: int) -> list[int]:
    """The first n states of the Lehmer generator of 11.1: draw k (k >= 1) is states[k-1] % m."""
    s = seed % 2 ** 32
    out = []
    for _ in range(n):
        s = ((48271 * s) % 2 ** 32) % 2147483647
        out.append(s)
    return out



# --------------------------------------------------------------------------- scripts


@dataclass
class Ev:
    """Evaluate ``expr``; expect its printed form, or an error class."""
    expr: str
    expected: Any


@dataclass
class Step:
    """Apply inputs (``L R U D``, ``C x y``), step once, then a host render (the standard loop
    of 10.2) unless ``render`` is False."""
    inputs: tuple[str, ...] = ()
    render: bool = True


@dataclass
class Render:
    """A host render (rebuilds the occupancy set, 10.2)."""


@dataclass
class Frame:
    """A host render checked against rows of legend characters (``.`` = black)."""
    rows: list[str]
    legend: dict[str, str] = field(default_factory=dict)


def run_ops(program: str, ops: list, *, native: bool = True, seed: int = 42) -> Interpreter:
    it = Interpreter(native_stdlib=native)
    it.run_script(program, seed=seed)
    for op in ops:
        if isinstance(op, Ev):
            if isinstance(op.expected, type) and issubclass(op.expected, BaseException):
                with pytest.raises(op.expected) as info:
                    it.evaluate_to_string(op.expr)
                assert not isinstance(info.value, AutumnInternalError), info.value
            else:
                got = it.evaluate_to_string(op.expr)
                assert matches(op.expected, got), f"{op.expr!r}: expected {op.expected}, got {got}"
        elif isinstance(op, Step):
            for tok in op.inputs:
                if tok.startswith("C"):
                    _, x, y = tok.split()
                    it.click(int(x), int(y))
                else:
                    {"L": it.left, "R": it.right, "U": it.up, "D": it.down}[tok]()
            it.step()
            if op.render:
                it.render_all()
        elif isinstance(op, Render):
            it.render_all()
        elif isinstance(op, Frame):
            grid = grid_rows(it, op.legend)
            assert grid == op.rows, "\n" + "\n".join(grid)
        else:  # pragma: no cover
            raise TypeError(op)
    return it


def grid_rows(it: Interpreter, legend: dict[str, str]) -> list[str]:
    """One host render (``render_frame``) as rows of legend characters; black is ``.``."""
    chars = {"black": ".", **{v: k for k, v in legend.items()}}
    return ["".join(chars.get(c, "?") for c in row) for row in it.render_frame().grid]



# --------------------------------------------------------------------------- hash order (9.1)

_M = 0xC6A4A7935BD1E995
_SEED = 0xC70F6907
_MASK = 2 ** 64 - 1
_PRIMES = [13, 29, 59, 127, 257, 541, 1109, 2357, 5087, 10273]


def spec_hash(name: str) -> int:
    """The hash of 9.1, transcribed."""
    data = name.encode("utf-8")
    n = len(data)
    h = (_SEED ^ (n * _M)) & _MASK
    full = n - n % 8
    for i in range(0, full, 8):
        k = int.from_bytes(data[i:i + 8], "little")
        k = (k * _M) & _MASK
        k ^= k >> 47
        k = (k * _M) & _MASK
        h ^= k
        h = (h * _M) & _MASK
    if n % 8:
        h ^= int.from_bytes(data[full:], "little")
        h = (h * _M) & _MASK
    h ^= h >> 47
    h = (h * _M) & _MASK
    h ^= h >> 47
    return h


class SpecHashTable:
    """The table state of 9.1: ``order`` is the iteration order."""

    def __init__(self) -> None:
        self.order: list[str] = []
        self.B = 1

    def _place(self, order: list[str], key: str, B: int) -> None:
        b = spec_hash(key) % B
        for i, other in enumerate(order):
            if spec_hash(other) % B == b:
                order.insert(i, key)
                return
        order.insert(0, key)

    def insert(self, key: str) -> None:
        if key in self.order:
            return
        if not self.order and self.B == 1:
            self.B = 13
        elif len(self.order) == self.B:
            self.B = next(p for p in _PRIMES if p >= 2 * self.B)
            new: list[str] = []
            for k in self.order:
                self._place(new, k, self.B)
            self.order = new
        self._place(self.order, key, self.B)

    def erase(self, key: str) -> None:
        self.order.remove(key)


# 9.3 items 1 and 2: the global table's insertion history before the program's own names.
NATIVE_ORDER = ("GRID_SIZE map concat filter foldl length head at tail renderAll defined "
                "arrayEqual sqrt prev any isList uniformChoice adjPositions addObj isFreePos range "
                "print removeObj updateObj randomPositions allPositions clicked left right up down "
                "isWithinBounds allObjs rotate").split()
STDLIB_ORDER = ("FRAME_RATE background move moveRight moveLeft moveUp moveDown moveNoCollision "
                "moveCanCollision rotateNoCollision movePos moveRightPos moveLeftPos moveUpPos "
                "moveDownPos abs sign vcat deltaPos rect displacement deltaElem deltaObj "
                "adjacentElem adjacentPoss adjacentTwoObjs adjacentPossDiag adjacentTwoObjsDiag "
                "adjacentObjs adjacentObjsDiag adj objClicked sqdist unitVector unitVectorObjPos "
                "unitVectorSinglePos max min closest closestPos renderValue sum intersectsElems "
                "intersectsPosElems intersectsPosPoss intersects isFree in isFreeExcept "
                "isFreePosExceptObj isFreeRangeExceptObj moveLeftNoCollision moveRightNoCollision "
                "moveUpNoCollision moveDownNoCollision nextSolid nextLiquidClosestHole nextLiquid "
                "nextLiquidMoveClosestHole").split()
