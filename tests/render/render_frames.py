"""Hand-made frames for the renderer tests."""

from __future__ import annotations

from llm_eval.autumn import Frame


def frame_of(rows: list[str], legend: dict[str, str], background: str = "black") -> Frame:
    """A frame from strings of one character per cell, ``legend`` mapping characters to colours."""
    return Frame(tuple(tuple(legend[c] for c in row) for row in rows), background)
