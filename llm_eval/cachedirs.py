"""Where llm_eval keeps what it can make again: one folder per kind under the user's cache
(``$XDG_CACHE_HOME/llm_eval/<kind>``, else ``~/.cache/llm_eval/<kind>``), or the folder an
environment variable names, ``off`` for none. The compiled Autumn functions
(``autumn/codecache.py``) and the kept validation reports (``tasks/report_cache.py``) live there.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_folder"]


def cache_folder(env: str, kind: str) -> Path | None:
    """``$env`` if set (None when it is ``off``), else the user's cache folder for ``kind``."""
    chosen = os.environ.get(env, "")
    if chosen == "off":
        return None
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "llm_eval" / kind
