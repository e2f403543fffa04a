"""The hash-table order (docs/spec/autumn.md 9.1): the run-per-bucket ``HashOrder`` gives the order the
spec's flat-list algorithm gives, for any history of insertions and erasures, and it grows
linearly, so a program with many globals loads in seconds (issue 33)."""

from __future__ import annotations

import random

import pytest

from llm_eval.autumn.hashorder import HashOrder, _next_bucket_count, string_hash


class _SpecOrder:
    """docs/spec/autumn.md 9.1 written out literally: one list, searched for each placement."""

    def __init__(self) -> None:
        self.order: list[str] = []
        self.buckets = 1

    def _place(self, order: list[str], key: str) -> None:
        bucket = string_hash(key) % self.buckets
        for i, other in enumerate(order):
            if string_hash(other) % self.buckets == bucket:
                order.insert(i, key)
                return
        order.insert(0, key)

    def insert(self, key: str) -> None:
        if key in self.order:
            return
        if not self.order and self.buckets == 1:
            self.buckets = 13
        elif len(self.order) >= self.buckets:
            self.buckets = _next_bucket_count(self.buckets)
            rehashed: list[str] = []
            for k in self.order:
                self._place(rehashed, k)
            self.order = rehashed
        self._place(self.order, key)

    def erase(self, key: str) -> None:
        if key in self.order:
            self.order.remove(key)


def test_the_worked_example_of_the_spec():
    table = HashOrder()
    for key in ["t", "u", "src", "dst", "marks"]:
        table.insert(key)
    assert table.order == ["marks", "src", "u", "dst", "t"]


@pytest.mark.parametrize("seed", range(12))
def test_any_history_of_inserts_and_erasures_orders_as_the_spec_says(seed):
    rng = random.Random(seed)
    names = [f"{rng.choice('abcxyz')}{i}" for i in range(rng.choice([20, 150, 700]))]
    ours, spec = HashOrder(), _SpecOrder()
    snapshot = None
    for step in range(3 * len(names)):
        key = rng.choice(names)
        if rng.random() < 0.25:
            ours.erase(key)
            spec.erase(key)
        else:
            ours.insert(key)
            spec.insert(key)
        assert ours.order == spec.order, f"step {step}"
        assert len(ours) == len(spec.order) and (key in ours) == (key in spec.order)
        if step == len(names):
            snapshot, expected = ours.copy(), list(spec.order)
    assert snapshot.order == expected   # a copy is not changed by what the original does later
    snapshot.insert("fresh")
    assert "fresh" not in ours


def test_bucket_counts_follow_the_libstdcxx_table_past_ten_thousand_keys():
    sizes = []
    b = 13
    while b < 1_000_000:
        b = _next_bucket_count(b)
        sizes.append(b)
    assert sizes[:12] == [29, 59, 127, 257, 541, 1109, 2357, 5087, 10273, 20753, 42043, 85229]


@pytest.mark.timeout(60)
def test_inserting_many_keys_is_linear():
    """200,000 keys: the flat-list algorithm does ~10^10 steps; the runs do ~10^6."""
    table = HashOrder()
    keys = [f"value_number_{i}" for i in range(200_000)]
    for key in keys:
        table.insert(key)
    assert len(table.order) == len(keys) and set(table.order) == set(keys)
    assert table.buckets == 351061
