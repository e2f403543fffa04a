"""Iteration order of the reference's ``std::unordered_map<std::string, ...>`` (docs/spec/autumn.md 9).

The reference evaluates state-variable initialisers and next-expressions, and lists global
objects, in the iteration order of libstdc++ hash tables. ``HashOrder`` reproduces that order
exactly: the 64-bit string hash, the prime bucket counts, and where insertions and rehashes put
each key.
"""

from __future__ import annotations

__all__ = ["HashOrder", "string_hash"]

_M = 0xC6A4A7935BD1E995
_SEED = 0xC70F6907
_MASK = 0xFFFFFFFFFFFFFFFF
# libstdc++'s prime table, the entries its doubling growth picks (the smallest entry >= 2B),
# so that a program with more than 10,273 globals is ordered as the reference orders it.
_PRIMES = [13, 29, 59, 127, 257, 541, 1109, 2357, 5087, 10273, 20753, 42043, 85229, 172933,
           351061, 712697, 1447153, 2938679]
_cache: dict[str, int] = {}


def string_hash(name: str) -> int:
    h = _cache.get(name)
    if h is not None:
        return h
    data = name.encode("utf-8")
    n = len(data)
    h = (_SEED ^ ((n * _M) & _MASK)) & _MASK
    full = n - n % 8
    for i in range(0, full, 8):
        k = int.from_bytes(data[i:i + 8], "little")
        k = (k * _M) & _MASK
        k ^= k >> 47
        k = (k * _M) & _MASK
        h ^= k
        h = (h * _M) & _MASK
    if n % 8:
        h ^= int.from_bytes(data[full:], "little")
        h = (h * _M) & _MASK
    h ^= h >> 47
    h = (h * _M) & _MASK
    h ^= h >> 47
    _cache[name] = h
    return h


def _next_bucket_count(b: int) -> int:
    for p in _PRIMES:
        if p >= 2 * b:
            return p
    # Beyond any program the size limits admit: the next prime at or above 2b.
    c = 2 * b + 1
    while any(c % d == 0 for d in range(3, int(c ** 0.5) + 1, 2)):
        c += 2
    return c


class HashOrder:
    """The key order of one table; ``order`` is the iteration order.

    The reference's table is one linked list in which the keys of a bucket are contiguous: a
    key joins the front of its bucket's run, or the front of the list when its bucket is empty
    (docs/spec/autumn.md 9.1). Kept here as runs per bucket, each appended to (newest last), in a dict
    whose insertion order is the runs' creation order; the iteration order is both reversed.
    So an insertion or a rehash costs O(1) a key, where searching a flat list cost O(n) and a
    program with 20,000 globals took minutes to load.
    """

    __slots__ = ("buckets", "_runs", "_bucket_of", "_order")

    def __init__(self) -> None:
        self.buckets = 1
        self._runs: dict[int, list[str]] = {}
        self._bucket_of: dict[str, int] = {}
        self._order: list[str] | None = []

    def __contains__(self, key: str) -> bool:
        return key in self._bucket_of

    def __len__(self) -> int:
        return len(self._bucket_of)

    @property
    def order(self) -> list[str]:
        """The iteration order (a list the caller must not change; rebuilt after a change)."""
        order = self._order
        if order is None:
            order = [key for run in reversed(self._runs.values()) for key in reversed(run)]
            self._order = order
        return order

    def copy(self) -> "HashOrder":
        other = HashOrder()
        other.buckets = self.buckets
        other._runs = {b: list(run) for b, run in self._runs.items()}
        other._bucket_of = dict(self._bucket_of)
        other._order = self._order     # replaced on a change, never changed in place
        return other

    def _place(self, key: str) -> None:
        bucket = string_hash(key) % self.buckets
        run = self._runs.get(bucket)
        if run is None:
            self._runs[bucket] = [key]
        else:
            run.append(key)
        self._bucket_of[key] = bucket

    def insert(self, key: str) -> None:
        if key in self._bucket_of:
            return
        if not self._bucket_of and self.buckets == 1:
            self.buckets = 13
        elif len(self._bucket_of) >= self.buckets:
            old = self.order
            self.buckets = _next_bucket_count(self.buckets)
            self._runs = {}
            for k in old:      # the rehash walks the old order front to back
                self._place(k)
        self._place(key)
        self._order = None

    def erase(self, key: str) -> None:
        bucket = self._bucket_of.pop(key, None)
        if bucket is None:
            return
        run = self._runs[bucket]
        run.remove(key)
        if not run:       # an emptied bucket's next key goes to the front of the list
            del self._runs[bucket]
        self._order = None
