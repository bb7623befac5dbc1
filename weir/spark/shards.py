"""How a streaming query groups a stage's keyed work: by (operator uid, shard).

A shard is the range of key groups one shuffle partition owns, as a Flink subtask owns
one: shard = key group * shards // max parallelism. Spark calls a stateful operator once
per grouping key and micro-batch, and each call costs state and timer round trips to the
JVM, so a stage costs a few calls per shard rather than per key group.

Spark places a grouping key (uid, number) in partition pmod(murmur3(uid, number), P). The
number of each shard is the smallest one Spark places in the shard's own partition, found
here with Spark's hash computed in Python, so each partition gets one group per operator
without a Spark job at the query's start. The numbers depend only on the uid and P, which
a checkpoint keeps (weir.spark.restore.state_layout), so a restarted query finds every
shard's state under the same grouping key.
"""

import functools

from pyspark.sql import functions as F

from weir.runtime.key_groups import murmur3_finish, operator_index

_MASK = 0xFFFFFFFF
SEED = 42  # Spark's seed for the hash of a row's first column


def _mix_k1(k1: int) -> int:
    k1 = (k1 * 0xCC9E2D51) & _MASK
    k1 = ((k1 << 15) | (k1 >> 17)) & _MASK
    return (k1 * 0x1B873593) & _MASK


def _mix_h1(h1: int, k1: int) -> int:
    h1 ^= k1
    h1 = ((h1 << 13) | (h1 >> 19)) & _MASK
    return (h1 * 5 + 0xE6546B64) & _MASK


def hash_string(text: str, seed: int) -> int:
    """Spark's Murmur3 of a string column (Murmur3_x86_32.hashUnsafeBytes: the bytes
    after the last whole word are mixed one by one, as signed bytes), unsigned."""
    data = text.encode("utf-8")
    whole = len(data) - len(data) % 4
    h1 = seed
    for start in range(0, whole, 4):
        h1 = _mix_h1(h1, _mix_k1(int.from_bytes(data[start : start + 4], "little")))
    for byte in data[whole:]:
        h1 = _mix_h1(h1, _mix_k1((byte - 256 if byte > 127 else byte) & _MASK))
    return murmur3_finish(h1 ^ len(data))


def hash_int(value: int, seed: int) -> int:
    """Spark's Murmur3 of an int column, unsigned."""
    return murmur3_finish(_mix_h1(seed, _mix_k1(value & _MASK)) ^ 4)


def spark_partition(uid: str, number: int, partitions: int) -> int:
    """The shuffle partition Spark gives the grouping key (uid, number): F.pmod(F.hash(
    uid, number), partitions) for a string and an int column."""
    signed = hash_int(number, hash_string(uid, SEED))
    signed -= (1 << 32) if signed >= (1 << 31) else 0
    return signed % partitions


@functools.lru_cache(maxsize=1024)
def shard_numbers(uid: str, partitions: int) -> tuple:
    """For each partition p, the smallest grouping number Spark places in p with `uid`."""
    found: dict = {}
    number = 0
    while len(found) < partitions:
        found.setdefault(spark_partition(uid, number, partitions), number)
        number += 1
    return tuple(found[p] for p in range(partitions))


def key_group_range(key_group, max_parallelism: int, ranges: int):
    """operator_index as a column: which of `ranges` contiguous key-group ranges the
    key group (an int column) falls in."""
    return F.floor(key_group * F.lit(ranges) / F.lit(max_parallelism)).cast("int")


class ShardLayout:
    """A stage's grouping keys: (uid, the number of the key group's shard), for a query
    whose shuffle has `partitions` partitions (None: one group per key group, the key
    group itself its number)."""

    def __init__(self, max_parallelism: int, partitions=None):
        self.max_parallelism = max_parallelism
        self.partitions = partitions
        self.shards = None if partitions is None else min(partitions, max_parallelism)

    def shard_of(self, key_group: int) -> int:
        assert self.shards is not None  # (asked only where partitions are set: number)
        return operator_index(key_group, self.max_parallelism, self.shards)

    def number(self, uid: str, key_group: int) -> int:
        """The grouping number of `key_group` in operator `uid`."""
        if self.shards is None:
            return key_group
        return shard_numbers(uid, self.partitions)[self.shard_of(key_group)]

    def number_column(self, uid, key_group, uids):
        """The grouping number as a column, for rows of the operators `uids` (columns
        `uid` and `key_group`); null for rows of any other operator."""
        if self.shards is None:
            return key_group
        shard = key_group_range(key_group, self.max_parallelism, self.shards)
        number = None
        for name in uids:
            numbers = F.array(*(F.lit(n) for n in shard_numbers(name, self.partitions)))
            mapped = F.element_at(numbers, shard + 1)
            number = (
                F.when(uid == F.lit(name), mapped)
                if number is None
                else number.when(uid == F.lit(name), mapped)
            )
        return number
