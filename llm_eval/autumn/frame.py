"""A rendered frame: the text grid the benchmark shows (docs/spec/autumn.md 10.3)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Frame"]


@dataclass(frozen=True, slots=True)
class Frame:
    """``grid[y][x]`` is the colour name at column x, row y (background filled, off-grid dropped)."""

    grid: tuple[tuple[str, ...], ...]
    background: str

    @property
    def size(self) -> int:
        return len(self.grid)

    def to_rows(self) -> list[list[str]]:
        return [list(row) for row in self.grid]

    def colours(self) -> set[str]:
        return {c for row in self.grid for c in row}

    @classmethod
    def from_cells(cls, size: int, background: str, cells) -> "Frame":
        """Build from (x, y, colour) triples in render order; later cells win."""
        rows = [[background] * size for _ in range(size)]
        for x, y, colour in cells:
            if 0 <= x < size and 0 <= y < size:
                rows[y][x] = colour.lower()
        return cls(tuple(map(tuple, rows)), background)
