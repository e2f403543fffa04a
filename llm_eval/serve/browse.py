"""Run directories browsed live: the report's page (leaderboard, tables, plots, transcript
viewer) built from the run stores as they are now.

``RunsPage(run_dirs).html()`` renders ``report.page.render_report`` over the directories'
episodes, read-only, and keeps the page until one of the directories changes (its run store,
the store's write-ahead log or its transcripts directory), so a page asked for while a sweep
or a study runs shows its progress, and one asked for again unchanged costs nothing. The
report holds what participants must not see (scores, transcripts of every episode), so the
server shows it only to the operator (``app``).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path

from ..runstore import STORE_FILE, TRANSCRIPTS_DIR

__all__ = ["RunsPage", "RUNS_CSP"]

#: the report's page has an inline style sheet and no script
RUNS_CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
            "form-action 'none'; frame-ancestors 'none'")


class RunsPage:
    """The report of ``run_dirs``, rebuilt when they change (module docstring)."""

    def __init__(self, run_dirs: Iterable[str | Path]) -> None:
        self.run_dirs = [Path(d) for d in dict.fromkeys(map(str, run_dirs))]
        self._lock = threading.Lock()
        self._cached: tuple[tuple, str] | None = None

    def _fingerprint(self) -> tuple:
        marks: list[tuple[str, int | None, int | None]] = []
        for run_dir in self.run_dirs:
            for path in (run_dir / STORE_FILE, run_dir / f"{STORE_FILE}-wal",
                         run_dir / TRANSCRIPTS_DIR):
                try:
                    stat = path.stat()
                    marks.append((str(path), stat.st_mtime_ns, stat.st_size))
                except OSError:
                    marks.append((str(path), None, None))
        return tuple(marks)

    def html(self) -> str:
        """The page now (module docstring)."""
        from ..analysis.data import load_episodes
        from ..report.page import render_report

        with self._lock:
            mark = self._fingerprint()
            if self._cached is not None and self._cached[0] == mark:
                return self._cached[1]
            present = [d for d in self.run_dirs if (d / STORE_FILE).is_file()]
            duplicates: list = []
            episodes = load_episodes(present, duplicates=duplicates)
            text = render_report(episodes, present, duplicates=duplicates)
            self._cached = (mark, text)
            return text
