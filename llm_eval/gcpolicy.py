"""How llm_eval's own processes run Python's cyclic garbage collector.

Stepping a world allocates and drops objects by the million (every tick builds new values,
scopes and frames), while the process keeps a large heap that lives as long as it does:
imported modules, compiled programs and their generated code, task files, a test session's
fixtures. With Python's default thresholds (700, 10, 10) the collector runs a young
collection every 700 allocations and a full one, which walks that whole heap, every 100 of
them: measured on tests/agents and tests/worldtest in one process (543 tests, 1.1 million
live objects at the end), 43 s of 158 s of CPU went to the collector, 82 full collections.

``tune()`` raises the young threshold to 50,000 and the middle one to 20 (a young collection
still frees the cycles the interpreter makes within a few ticks): on the same tests, 9 s in
the collector, one full collection, 102 s of CPU in all. Full collections still happen (at
most every 10 million allocations, when enough survived), so garbage held in cycles is freed
over a long sweep and memory stays bounded. Reference counting frees everything else at once,
as before; nothing a result depends on changes.

Called where a process of ours starts work: the command line's ``main``, the worker processes
of ``parallel.map_in_order`` and of the sweep, the Ray task that plays a job, and the test
session (tests/conftest.py). A program that imports llm_eval as a library keeps its own
settings unless it calls ``tune()``. ``LLM_EVAL_GC=python`` in the environment keeps Python's
defaults everywhere (``python benchmarks/validation.py --collector python`` compares).
"""

from __future__ import annotations

import gc
import os

__all__ = ["THRESHOLDS", "ENV", "tune"]

THRESHOLDS = (50_000, 20, 10)
ENV = "LLM_EVAL_GC"   # "python": keep Python's own thresholds (to compare; see benchmarks/)


def tune() -> None:
    """Set the collector's thresholds to ``THRESHOLDS`` (idempotent; cheap), unless the
    environment says ``LLM_EVAL_GC=python``; any other value of it is a ``ValueError``."""
    choice = os.environ.get(ENV, "")
    if choice == "python":
        return
    if choice not in ("", "ours"):
        raise ValueError(f"{ENV}={choice!r}: expected 'ours' (the default) or 'python' "
                         "(Python's own thresholds)")
    gc.set_threshold(*THRESHOLDS)

