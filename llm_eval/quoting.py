"""``quote``: input text as an error message shows it, cut to a readable length.

Errors name what was wrong by quoting it; a hostile input can be megabytes long (a 10 MB action
line, a 5,000-digit literal), and quoting it whole puts megabytes on stderr or into a model's
next prompt. Every error that quotes program or action text goes through here.
"""

from __future__ import annotations

__all__ = ["quote", "QUOTE_LIMIT"]

#: The most characters of an input an error message shows.
QUOTE_LIMIT = 60


def quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``repr(text)``, or its first ``limit`` characters and how long the whole is."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text):,} characters)"
