"""Iteration order of the reference's ``std::unordered_map<std::string, ...>`` (AUTUMN.md 9).

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
_PRIMES = [13, 29, 59, 127, 257, 541, 1109, 2357, 5087, 10273]
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
    # Beyond any realistic program: the next prime at or above 2b.
    c = 2 * b + 1
    while any(c % d == 0 for d in range(3, int(c ** 0.5) + 1, 2)):
        c += 2
    return c


class HashOrder:
    """The key order of one table; ``order`` is the iteration order."""

    __slots__ = ("order", "buckets", "_keys")

    def __init__(self) -> None:
        self.order: list[str] = []
        self.buckets = 1
        self._keys: set[str] = set()

    def __contains__(self, key: str) -> bool:
        return key in self._keys

    def __len__(self) -> int:
        return len(self.order)

    def copy(self) -> "HashOrder":
        other = HashOrder()
        other.order = list(self.order)
        other.buckets = self.buckets
        other._keys = set(self._keys)
        return other

    def _place(self, order: list[str], key: str, b: int) -> None:
        bucket = string_hash(key) % b
        h = _cache
        for i, other in enumerate(order):
            if h[other] % b == bucket:
                order.insert(i, key)
                return
        order.insert(0, key)

    def insert(self, key: str) -> None:
        if key in self._keys:
            return
        if not self.order and self.buckets == 1:
            self.buckets = 13
        elif len(self.order) >= self.buckets:
            self.buckets = _next_bucket_count(self.buckets)
            rehashed: list[str] = []
            for k in self.order:
                self._place(rehashed, k, self.buckets)
            self.order = rehashed
        self._place(self.order, key, self.buckets)
        self._keys.add(key)

    def erase(self, key: str) -> None:
        if key in self._keys:
            self._keys.remove(key)
            self.order.remove(key)
