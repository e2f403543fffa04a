"""Progress of a running sweep: done, running, failed, fatal, spend and an estimated time left.

The scheduler tells a ``Progress`` when the run begins (jobs in all, jobs already done, jobs
left ``fatal`` that this run does not retry, spend so far), when each job starts and when it
ends (its outcome and the spend since). ``Progress`` itself shows nothing (library use,
tests); ``make_progress(stream)`` picks the display for the command line: on a terminal a live
``rich`` panel that redraws in place, elsewhere (a log file, CI) one plain line per finished
job, so the output stays readable when captured.

The estimate of the time left is the mean wall time per finished job this session, times the
jobs still to finish; it is shown once a job of this session has finished.
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from .job import JobOutcome
    from .spec import Job

__all__ = ["Progress", "LineProgress", "LiveProgress", "make_progress", "format_duration"]


def format_duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


class Progress:
    """Counts a run's jobs; shows nothing (subclasses display)."""

    def __init__(self) -> None:
        self.total = self.done = self.failed = self.stopped = self.running = 0
        self.fatal = 0   # refused for a reason only the user can fix (not retried)
        self.finished_here = 0
        self.spent = 0.0
        self.unpriced: set[str] = set()   # models whose calls have no price: not in spent
        self.started_at = time.monotonic()

    def begin(self, *, total: int, done: int, spent: float, fatal: int = 0) -> None:
        self.total, self.done, self.spent, self.fatal = total, done, spent, fatal
        self.started_at = time.monotonic()
        self.show()

    def started(self, job: Job) -> None:
        self.running += 1
        self.show()

    def finished(self, job: Job, outcome: JobOutcome, *, spent: float) -> None:
        self.running -= 1
        self.spent = spent
        if outcome.usage and outcome.usage.get("calls") and outcome.cost_usd is None:
            self.unpriced.add(job.model)
        if outcome.status == "done":
            self.done += 1
            self.finished_here += 1
        elif outcome.status == "interrupted":
            self.stopped += 1
        elif outcome.status == "fatal":
            self.fatal += 1
            self.finished_here += 1
        else:
            self.failed += 1
            self.finished_here += 1
        self.line(job, outcome)
        self.show()

    def end(self) -> None:
        pass

    # -- display hooks -------------------------------------------------------------------------
    def show(self) -> None:
        """Redraw the summary (a live display)."""

    def line(self, job: Job, outcome: JobOutcome) -> None:
        """Report one finished job (a line display)."""

    # -- the figures ---------------------------------------------------------------------------
    def eta(self) -> float | None:
        left = self.total - self.done - self.failed - self.fatal - self.stopped
        if self.finished_here == 0 or left <= 0:
            return None
        return (time.monotonic() - self.started_at) / self.finished_here * left

    def summary(self) -> str:
        eta = self.eta()
        return (f"{self.done}/{self.total} done, {self.running} running, {self.failed} failed"
                + (f", {self.fatal} fatal" if self.fatal else "")
                + (f", {self.stopped} stopped" if self.stopped else "")
                + f", spent ${self.spent:.4f}"
                + (f" (unpriced: {', '.join(sorted(self.unpriced))})" if self.unpriced else "")
                + (f", ETA {format_duration(eta)}" if eta is not None else ""))


def _job_text(job: Job, outcome: JobOutcome) -> str:
    s = job.settings
    score = f" score {outcome.score:.3f}" if outcome.score is not None else ""
    error = f" ({outcome.error.splitlines()[0][:120]})" if outcome.error and \
        outcome.status != "done" else ""
    return f"{job.id} {s['model']} {s['task']} seed {s['seed']}: {outcome.status}{score}{error}"


class LineProgress(Progress):
    """One line per finished job, with the run's counts (for logs and pipes)."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream

    def begin(self, *, total: int, done: int, spent: float, fatal: int = 0) -> None:
        super().begin(total=total, done=done, spent=spent, fatal=fatal)
        print(f"{total} jobs, {done} already done"
              + (f", {fatal} fatal left as they are (--retry-fatal reruns them)" if fatal
                 else ""), file=self.stream, flush=True)

    def line(self, job: Job, outcome: JobOutcome) -> None:
        print(f"[{self.summary()}] {_job_text(job, outcome)}", file=self.stream, flush=True)


class LiveProgress(Progress):
    """A ``rich`` panel redrawn in place: a bar of finished jobs, the counts, spend, ETA, and
    the last jobs that finished."""

    RECENT = 5

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        from rich.console import Console
        from rich.live import Live

        self.console = Console(file=stream)
        self.recent: list[str] = []
        self.live = Live(console=self.console, refresh_per_second=4, transient=False)

    def begin(self, *, total: int, done: int, spent: float, fatal: int = 0) -> None:
        self.live.start()
        super().begin(total=total, done=done, spent=spent, fatal=fatal)

    def line(self, job: Job, outcome: JobOutcome) -> None:
        self.recent = (self.recent + [_job_text(job, outcome)])[-self.RECENT:]

    def show(self) -> None:
        from rich.text import Text

        width = 30
        filled = round(width * (self.done + self.failed + self.fatal) / max(self.total, 1))
        text = Text("█" * filled, style="green")
        text.append("░" * (width - filled), style="dim")
        text.append(f" {self.summary()}")
        for recent in self.recent:
            text.append(f"\n  {recent}", style="dim")
        self.live.update(text, refresh=True)

    def end(self) -> None:
        self.live.stop()


def make_progress(stream: TextIO | None = None, *, enabled: bool = True) -> Progress:
    """The command line's display on ``stream`` (standard error by default)."""
    stream = stream if stream is not None else sys.stderr
    if not enabled:
        return Progress()
    isatty = getattr(stream, "isatty", None)
    return LiveProgress(stream) if callable(isatty) and isatty() else LineProgress(stream)
