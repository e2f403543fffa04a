"""The ``notes`` tool: a scratchpad the agent reads and writes, kept for the whole episode.

The notes live as long as the episode: what the agent writes in the interaction phase is
there in the test phase, whichever turns the history keeps. ``notes_write`` replaces the
whole scratchpad; a text over ``MAX_NOTES_CHARS`` is refused (the notes are unchanged) with a
message saying the size and the cap, so nothing is silently cut.
"""

from __future__ import annotations

__all__ = ["Notes", "MAX_NOTES_CHARS"]

MAX_NOTES_CHARS = 4000


class Notes:
    """One episode's scratchpad."""

    def __init__(self, cap: int = MAX_NOTES_CHARS) -> None:
        self.cap = cap
        self.text = ""

    def read(self) -> tuple[str, bool]:
        """``(the result for the model, ok)``."""
        if not self.text:
            return "(the notes are empty)", True
        return self.text, True

    def write(self, text: str) -> tuple[str, bool]:
        """Replace the notes with ``text``: ``(the result for the model, ok)``."""
        if len(text) > self.cap:
            return (f"refused: {len(text):,} characters is over the notes' cap of "
                    f"{self.cap:,}; the notes are unchanged"), False
        self.text = text
        return f"saved ({len(text):,} of {self.cap:,} characters)", True
