"""``parallel.map_in_order``: results in the items' order wherever they were computed, and the
items started in the order ``start_order`` gives (the longest first, so no core waits at the
end)."""

from __future__ import annotations

import time

from llm_eval.parallel import map_in_order

SHORT = [0.10, 0.11, 0.12, 0.13]
LONG = [0.60, 0.61]


def _finish_order(**kwargs) -> tuple[list, list]:
    finished: list[float] = []
    results = list(map_in_order(time.sleep, SHORT + LONG, 2,
                                finished=lambda item, _: finished.append(item), **kwargs))
    return results, finished


def test_start_order_starts_the_long_items_first_and_results_keep_the_items_order():
    results, finished = _finish_order(start_order=lambda seconds: -seconds)
    assert results == [None] * 6
    # both long items started before any short one: a short one can only finish after a
    # long one frees a core
    assert finished[0] in LONG
    assert sorted(finished) == sorted(SHORT + LONG)


def test_without_start_order_the_items_start_in_their_order():
    _, finished = _finish_order()
    assert finished[:2] == [0.10, 0.11] and set(finished[-2:]) == set(LONG)
