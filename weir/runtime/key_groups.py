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


class KeyGroupAssigner:
    """key -> key group, remembering recent keys' groups (keys repeat in a stream)."""

    def __init__(self, max_parallelism: int, cache_size: int = 1_000_000):
        self.max_parallelism = max_parallelism
        self.cache_size = cache_size
        self._groups = {}

    def __call__(self, key) -> int:
        group = self._groups.get(key)
        if group is None:
            if len(self._groups) >= self.cache_size:
                self._groups.clear()
            group = self._groups[key] = stable_key_hash(key) % self.max_parallelism
        return group

    def key_groups(self, keys: list) -> list:
        """The key group of each key; known keys are looked up in one C loop."""
        groups = list(map(self._groups.get, keys))
        if None in groups:
            groups = [self(key) if group is None else group for key, group in zip(keys, groups)]
        return groups


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


def operator_index(key_group: int, max_parallelism: int, parallelism: int) -> int:
    """The parallel instance owning `key_group` (Flink's computeOperatorIndexForKeyGroup)."""
    return key_group * parallelism // max_parallelism


def first_key_group(subtask: int, max_parallelism: int, parallelism: int) -> int:
    """The first key group of parallel instance `subtask`'s range."""
    return -(-subtask * max_parallelism // parallelism)
