"""Stable key hashing into key groups (as Flink's KeyGroupRangeAssignment)."""

import pickle
import zlib

DEFAULT_MAX_PARALLELISM = 128
_SMALL_INT_MIN, _SMALL_INT_MAX = -(2**127), 2**127  # ints hashed from 16 little-endian bytes


def stable_key_hash(key) -> int:
    """A hash of `key` that is the same in every process and on every machine.

    Python's `hash()` is salted per process for str and bytes, so it cannot place keys.
    """
    if isinstance(key, str):
        data = key.encode("utf-8")
    elif isinstance(key, bool) or not isinstance(key, int):
        data = key if isinstance(key, bytes) else pickle.dumps(key, protocol=4)
    else:
        data = key.to_bytes(16, "little", signed=True) if _SMALL_INT_MIN <= key < _SMALL_INT_MAX \
            else pickle.dumps(key, protocol=4)
    return _mix(zlib.crc32(data))


class CachedKeyHash:
    """stable_key_hash, remembering recent keys' hashes (keys repeat in a stream)."""

    def __init__(self, cache_size: int = 1_000_000):
        self.cache_size = cache_size
        self._cache = {}

    def __call__(self, key) -> int:
        key_hash = self._cache.get(key)
        if key_hash is None:
            if len(self._cache) >= self.cache_size:
                self._cache.clear()
            key_hash = self._cache[key] = stable_key_hash(key)
        return key_hash


class KeyGroupAssigner:
    """key -> key group, with cached hashes."""

    def __init__(self, max_parallelism: int):
        self.max_parallelism = max_parallelism
        self._hash = CachedKeyHash()

    def __call__(self, key) -> int:
        return self._hash(key) % self.max_parallelism


def _mix(h: int) -> int:
    """murmur3's 32-bit finaliser: spreads crc32's low bits over the whole word."""
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & 0xFFFFFFFF
    h ^= h >> 16
    return h


def assign_to_key_group(key, max_parallelism: int) -> int:
    return stable_key_hash(key) % max_parallelism
