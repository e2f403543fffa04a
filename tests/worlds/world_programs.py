"""Small Autumn programs for the world tests."""

from __future__ import annotations

# 3x3: a red dot at (0, 1); arrows move it, a click puts it there.
DOT = """\
(program
  (= GRID_SIZE 3)
  (object Dot (Cell 0 0 "red"))
  (= dot (initnext (Dot (Position 0 1)) (prev dot)))
  (on right (= dot (moveRight dot)))
  (on left (= dot (moveLeft dot)))
  (on clicked (= dot (Dot click))))
"""

# 4x4: a dot that jumps to a random diagonal cell every tick.
RANDOM_DOT = """\
(program
  (= GRID_SIZE 4)
  (object Dot (Cell 0 0 "red"))
  (= dot (initnext (Dot (Position 0 0))
    (Dot (uniformChoice (list (Position 0 0) (Position 1 1) (Position 2 2) (Position 3 3)))))))
"""

# Loads, then fails on the first `up`: (head (list)) of an empty list.
FAILS_ON_UP = """\
(program
  (= GRID_SIZE 3)
  (object Dot (Cell 0 0 "red"))
  (= dot (initnext (Dot (Position 0 1)) (prev dot)))
  (on up (= dot (head (list)))))
"""


def dot_grid(x: int, y: int, size: int = 3) -> tuple[tuple[str, ...], ...]:
    rows = [["black"] * size for _ in range(size)]
    if 0 <= x < size and 0 <= y < size:
        rows[y][x] = "red"
    return tuple(tuple(r) for r in rows)
