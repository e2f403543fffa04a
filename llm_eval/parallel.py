"""Work spread over this machine's cores: worker processes that start safely from a program
with threads running, and a map over them whose results come back in order.

Used by the sweep's local episodes (``sweep.workers``), task validation, the world gallery and
the cost estimate: it knows no job, task or episode (the modules it preloads are named, not
imported), so any layer may use it.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from functools import partial
from typing import Any

from .gcpolicy import tune as tune_collector

__all__ = ["default_processes", "can_start_workers", "map_in_order", "worker_context", "PRELOAD"]

# imported once by the fork server, so a worker starts with the episode code loaded
PRELOAD = ["llm_eval.sweep.job", "llm_eval.sweep.workers", "llm_eval.worldtest.episode",
           "llm_eval.worldtest.programs", "llm_eval.agents", "llm_eval.tasks.store",
           "llm_eval.transcripts"]

def default_processes() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def can_start_workers() -> bool:
    """Whether worker processes can start here: they import ``__main__`` as the parent did,
    which needs a module name or a file (not ``<stdin>``)."""
    main = sys.modules.get("__main__")
    if main is None or getattr(getattr(main, "__spec__", None), "name", None):
        return True
    path = getattr(main, "__file__", None)
    return path is None or os.path.isfile(path)


def worker_context() -> multiprocessing.context.BaseContext:
    """The multiprocessing context worker processes start from (see the module docstring)."""
    methods = multiprocessing.get_all_start_methods()
    if "forkserver" in methods:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        return context
    return multiprocessing.get_context("spawn")


def map_in_order(function, items, processes: int = 1, start_order=None, finished=None):
    """``function(item)`` of each item, yielded in the order of ``items``, computed by
    ``processes`` worker processes (1: here, one after the other). For pure functions of their
    item (a validation, a task's figures): the results are the same wherever they are computed.
    Items start in increasing ``start_order(item)`` (a sort key; ties keep their order), so
    that the longest start first and no core waits on one at the end. ``finished(item,
    result)`` is called as each item's result is ready, in the order they finish (for
    progress; not for an item whose function raised, which the iteration raises);
    ``function`` must be a module-level function or a partial of one."""
    items = list(items)
    if processes <= 1 or len(items) <= 1:
        for item in items:
            result = function(item)
            if finished is not None:
                finished(item, result)
            yield result
        return
    rank = start_order or (lambda item: 0)
    order = sorted(range(len(items)), key=lambda i: rank(items[i]))  # stable
    with ProcessPoolExecutor(max_workers=min(processes, len(items)),
                             mp_context=worker_context(), initializer=tune_collector) as pool:
        futures = {i: pool.submit(function, items[i]) for i in order}
        if finished is not None:
            for i, future in futures.items():
                future.add_done_callback(partial(_report_finished, finished, items[i]))
        try:
            for i in range(len(items)):
                yield futures[i].result()
        finally:
            for future in futures.values():
                future.cancel()


def _report_finished(finished: Callable[[Any, Any], object], item: Any, done: Future) -> None:
    """``finished(item, result)`` once its future is done, unless it was cancelled or raised."""
    if not done.cancelled() and done.exception() is None:
        finished(item, done.result())
