"""Reading Kafka: the driver fixes each micro-batch's offsets per partition, tasks read them.

A Kafka source's offset (weir's checkpoint, Spark's offset log) is
{"pos": records planned so far, "end": 0|1, "next": {"topic:partition": next offset},
 "stop": {"topic:partition": stopping offset} (bounded or stopping sources only),
 "added": {"topic:partition": first offset} (partitions found in this batch),
 "marks": the partitions' largest timestamps (a source with a watermark strategy only;
 weir.runtime.split_watermarks)}.
A replayed micro-batch reads exactly the offsets its log entry names. The client is
confluent-kafka (librdkafka); weir speaks no Kafka protocol itself.
"""

from __future__ import annotations

import contextlib
import re
import time
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    Iterable,
    Iterator,
    List,
    Optional,
    Tuple,
    cast,
)

from weir.runtime import split_watermarks
from weir.runtime.connectors import kafka_clients
from weir.runtime.sources import END_SPLIT, DeadLetter, SourceReader

if TYPE_CHECKING:
    from confluent_kafka import Consumer, Message

    from weir.runtime.sources import Columns, Offset

    Initializer = Tuple[Any, ...]  # a KafkaOffsetsInitializer's (kind, *arguments)
    # (index, partition key or None, first offset, end offset, its bound or the watermark)
    Split = Tuple[int, Optional[str], int, int, Any]

READ_TIMEOUT_MS = "weir.read.timeout.ms"  # a planned record not read for this long fails
DEFAULT_READ_TIMEOUT_MS = 60_000
METADATA_TIMEOUT_MS = "weir.metadata.timeout.ms"  # the broker must answer within this
DEFAULT_METADATA_TIMEOUT_MS = 30_000
MIN_RECORDS_PER_SPLIT = 32_768


def partition_key(topic: str, partition: int) -> str:
    return f"{topic}:{partition}"


def split_partition_key(key: str) -> Tuple[str, int]:
    topic, _, partition = key.rpartition(":")
    return topic, int(partition)


class KafkaSourceConfig:
    """What KafkaSource.builder() collected: where to read, from which offsets to which."""

    def __init__(
        self,
        bootstrap_servers: str,
        topics: Iterable[str] = (),
        topic_pattern: Optional[str] = None,
        partitions: Iterable[Tuple[str, int]] = (),
        group_id: Optional[str] = None,
        starting: Initializer = ("earliest",),
        stopping: Optional[Initializer] = None,
        bounded: bool = False,
        deserializer: Any = None,
        properties: Optional[Dict[str, Any]] = None,
        client_id_prefix: Optional[str] = None,
        dead_letter_tag: Optional[str] = None,
    ) -> None:
        self.bootstrap_servers = bootstrap_servers
        self.topics = list(topics)
        self.topic_pattern = topic_pattern
        self.partitions = sorted(partitions)  # [(topic, partition)]
        self.group_id = group_id
        self.starting = starting  # an initializer: (kind, *arguments)
        self.stopping = stopping
        self.bounded = bounded
        self.deserializer = deserializer
        self.properties = dict(properties or {})
        self.client_id_prefix = client_id_prefix
        self.dead_letter_tag = dead_letter_tag  # None: a record that cannot be read fails

    def client_config(self) -> Dict[str, Any]:
        """librdkafka's settings: the user's properties, then what weir's reading needs."""
        config = {
            key: value
            for key, value in self.properties.items()
            if not key.startswith("weir.") and key not in _FLINK_ONLY_PROPERTIES
        }
        config.update(
            {
                "bootstrap.servers": self.bootstrap_servers,
                "group.id": self.group_id or "weir",
                "enable.auto.commit": False,
                "enable.partition.eof": True,
                "auto.offset.reset": "error",  # a planned offset that is gone fails, loudly
                "isolation.level": config.get("isolation.level", "read_committed"),
            }
        )
        if self.client_id_prefix:
            config["client.id"] = self.client_id_prefix
        return config

    def read_timeout_ms(self) -> int:
        return int(self.properties.get(READ_TIMEOUT_MS, DEFAULT_READ_TIMEOUT_MS))

    def metadata_timeout_s(self) -> float:
        return int(self.properties.get(METADATA_TIMEOUT_MS, DEFAULT_METADATA_TIMEOUT_MS)) / 1000


# Flink's KafkaSource options that are not librdkafka settings
_FLINK_ONLY_PROPERTIES = {
    "partition.discovery.interval.ms",
    "commit.offsets.on.checkpoint",
    "client.id.prefix",
    "register.consumer.metrics",
}


class KafkaReader(SourceReader):
    """Reads the partitions of a KafkaSource. The driver lists partitions (new ones are
    picked up from their earliest offset while an unbounded job runs) and their latest
    offsets; each micro-batch reads every partition up to the offsets it planned, one task
    per partition (large ranges cut into several). Record timestamps are Kafka's; with a
    watermark strategy, each partition has its own watermark, as in Flink.

    A split is (index, partition, first offset, end offset, (its partition's mark, its
    floor) or None); one that only announces the source's watermark is (index, None, 0, 0,
    the watermark)."""

    partitioned = True
    may_pause = True  # bounded: its stopping offsets may lie beyond the records there yet

    def __init__(self, config: KafkaSourceConfig) -> None:
        self.config = config
        self.bounded = config.bounded
        self.dead_letter_tag = config.dead_letter_tag

    # -- the driver: offsets ----------------------------------------------------------
    def initial_offset(self) -> Offset:
        with self._broker_errors():
            return self._initial_offset()

    def _initial_offset(self) -> Offset:
        partitions = self._partitions()
        offset: Offset = {
            "pos": 0,
            "end": 0,
            "next": self._resolve(self.config.starting, partitions, "starting"),
        }
        if self.config.stopping is not None:
            offset["stop"] = self._resolve(self.config.stopping, partitions, "stopping")
        return offset

    def latest_offset(self, start: Offset, limit: Optional[int] = None) -> Offset:
        if start["end"]:
            return start
        with self._broker_errors():
            return self._latest(start)

    def _latest(self, start: Offset) -> Offset:
        known: Dict[str, int] = dict(start["next"])
        stop = start.get("stop")
        added: Dict[str, int] = {}
        if stop is None:  # partitions added while the job runs start at their earliest
            new = [tp for tp in self._partitions() if partition_key(*tp) not in known]
            if new:
                added = self._resolve(("earliest",), new, "discovered")
                known.update(added)
        latest = self._watermarks(list(known), high=True)
        next_offsets: Dict[str, int]
        next_offsets, planned = {}, start["pos"]
        for key, position in known.items():
            upto = latest[key] if stop is None else min(latest[key], stop.get(key, position))
            next_offsets[key] = max(position, upto)
            planned += next_offsets[key] - position
        offset: Offset = {"pos": planned, "end": 0, "next": next_offsets}
        if added:  # where the batch starts reading them (the offset log keeps it)
            offset["added"] = added
        if self.announced_marks is not None:
            offset["marks"] = split_watermarks.merged(start.get("marks"), self.announced_marks())
        if stop is not None:
            offset["stop"] = stop
            offset["end"] = int(
                all(next_offsets[key] >= stop.get(key, next_offsets[key]) for key in next_offsets)
            )
        return offset

    def splits(self, start: Offset, end: Offset) -> List[Any]:
        first = {**end.get("added", {}), **start["next"]}
        ranges = [(key, first.get(key, hi), hi) for key, hi in sorted(end["next"].items())]
        ranges = [(key, lo, hi) for key, lo, hi in ranges if hi > lo]
        total = sum(hi - lo for _, lo, hi in ranges)
        per_split = max(MIN_RECORDS_PER_SPLIT, -(-total // max(1, self.target_splits)))
        out: List[Any] = []  # (index, partition, lo, hi, bound) splits, then END_SPLIT
        for key, lo, hi in ranges:
            pieces = -(-(hi - lo) // per_split)
            bounds = [lo + (hi - lo) * i // pieces for i in range(pieces + 1)]
            bound = self._bound(key, end)
            out.extend((len(out) + i, key, bounds[i], bounds[i + 1], bound) for i in range(pieces))
        if not out and "marks" in end:  # no records, but the partitions' minimum moved
            moved = split_watermarks.source_watermark(end["next"], end["marks"])
            before = split_watermarks.source_watermark(
                start["next"], start.get("marks", split_watermarks.NO_MARKS)
            )
            if moved is not None and (before is None or moved > before):
                out.append((0, None, 0, 0, moved))
        if end["end"] and not start["end"]:
            out.append(END_SPLIT)
        return out

    @staticmethod
    def _bound(key: str, end: Offset) -> Optional[Tuple[Optional[int], Optional[int]]]:
        """(partition `key`'s mark, the floor of its splits) by `end`'s marks, or None."""
        marks = end.get("marks")
        if marks is None:
            return None
        return marks["marks"].get(key), split_watermarks.floor(key, end["next"], marks)

    def split_watermark(self, split: Split) -> Optional[Tuple[Any, Optional[int], Optional[int]]]:
        _, key, _, _, bound = split
        if key is None:
            return None, None, bound
        return None if bound is None else (key, *bound)

    def commit_offset(self, end: Offset) -> None:
        """After a micro-batch committed: its offsets go to the consumer group (Flink's
        commit on checkpoint), for monitoring and for committed_offsets() of a later job.
        weir itself restarts from its checkpoint, never from these."""
        if not self.config.group_id or not end.get("next"):
            return
        from confluent_kafka import TopicPartition

        offsets = [
            TopicPartition(*split_partition_key(key), position)
            for key, position in end["next"].items()
        ]
        try:
            self._admin().commit(offsets=offsets, asynchronous=False)
        except Exception:  # noqa: BLE001 (monitoring only: the next commit tries again)
            pass

    # -- tasks: records -----------------------------------------------------------------
    def split_chunks(self, split: Split, chunk: int) -> Iterator[Columns]:
        _, key, lo, hi, _ = split
        if key is None:  # it only announces the watermark
            return iter(())
        topic, partition = split_partition_key(key)
        return _read_range(self.config, topic, partition, lo, hi, chunk)

    # -- metadata -----------------------------------------------------------------------
    def _admin(self) -> Consumer:
        """The driver's consumer for metadata, offsets and group commits."""
        return kafka_clients.consumer(self._admin_config())

    def _admin_config(self) -> Dict[str, Any]:
        config = self.config.client_config()
        config.pop("enable.partition.eof")
        return config

    def _partitions(self) -> List[Tuple[str, int]]:
        """The (topic, partition)s the source reads now."""
        config = self.config
        if config.partitions:
            return list(config.partitions)
        metadata = self._metadata()
        if config.topic_pattern is not None:
            pattern = re.compile(config.topic_pattern)
            topics = sorted(t for t in metadata.topics if pattern.fullmatch(t))
        else:
            topics = config.topics
            missing = [
                t
                for t in topics
                if t not in metadata.topics or metadata.topics[t].error is not None
            ]
            if missing:
                raise ValueError(
                    f"Kafka topic(s) {', '.join(missing)} do not exist at "
                    f"{config.bootstrap_servers}"
                )
        return [(topic, p) for topic in topics for p in sorted(metadata.topics[topic].partitions)]

    @contextlib.contextmanager
    def _broker_errors(self) -> Iterator[None]:
        """A broker that does not answer in time: one error with its address."""
        from confluent_kafka import KafkaException

        try:
            yield
        except KafkaException as exc:
            kafka_clients.close_consumer(self._admin_config())  # it would retry forever
            raise ConnectionError(
                f"Kafka at {self.config.bootstrap_servers} did not answer within "
                f"{self.config.metadata_timeout_s():.0f} s ({METADATA_TIMEOUT_MS}): "
                f"{exc.args[0].str() if exc.args else exc}"
            ) from None

    def _metadata(self) -> Any:  # (a ClusterMetadata: Consumer.list_topics is typed Any)
        return self._admin().list_topics(timeout=self.config.metadata_timeout_s())

    def _watermarks(self, keys: List[str], high: bool) -> Dict[str, int]:
        from confluent_kafka import TopicPartition

        consumer = self._admin()
        out = {}
        for key in keys:
            low, high_mark = consumer.get_watermark_offsets(
                TopicPartition(*split_partition_key(key)), timeout=self.config.metadata_timeout_s()
            )
            out[key] = high_mark if high else low
        return out

    def _resolve(
        self, initializer: Initializer, partitions: Iterable[Tuple[str, int]], what: str
    ) -> Dict[str, int]:
        """{partition: offset} of an offsets initializer (KafkaOffsetsInitializer)."""
        keys = [partition_key(t, p) for t, p in partitions]
        kind = initializer[0]
        if kind in ("earliest", "latest"):
            return self._watermarks(keys, high=kind == "latest")
        if kind == "timestamp":
            return self._by_timestamp(keys, initializer[1])
        if kind == "committed":
            return self._committed(keys, initializer[1])
        if kind == "offsets":
            given = {partition_key(*tp): offset for tp, offset in initializer[1].items()}
            missing = [k for k in keys if k not in given]
            fallback = self._reset(missing, initializer[2], what) if missing else {}
            # (the fallback has every key `given` misses)
            return {key: cast(int, given.get(key, fallback.get(key))) for key in keys}
        raise ValueError(f"unknown Kafka offsets initializer {kind!r}")

    def _by_timestamp(self, keys: List[str], timestamp: int) -> Dict[str, int]:
        from confluent_kafka import TopicPartition

        asked = [TopicPartition(*split_partition_key(k), timestamp) for k in keys]
        found = self._admin().offsets_for_times(asked, timeout=self.config.metadata_timeout_s())
        latest = self._watermarks(keys, high=True)
        return {
            partition_key(tp.topic, tp.partition): tp.offset
            if tp.offset >= 0
            else latest[partition_key(tp.topic, tp.partition)]
            for tp in found
        }

    def _committed(self, keys: List[str], reset: str) -> Dict[str, int]:
        from confluent_kafka import TopicPartition

        if not self.config.group_id:
            raise ValueError(
                "KafkaOffsetsInitializer.committed_offsets() needs "
                "set_group_id(...) on the KafkaSource"
            )
        asked = [TopicPartition(*split_partition_key(k)) for k in keys]
        found = self._admin().committed(asked, timeout=self.config.metadata_timeout_s())
        offsets = {
            partition_key(tp.topic, tp.partition): tp.offset for tp in found if tp.offset >= 0
        }
        missing = [k for k in keys if k not in offsets]
        offsets.update(self._reset(missing, reset, "committed") if missing else {})
        return {key: offsets[key] for key in keys}

    def _reset(self, keys: List[str], reset: str, what: str) -> Dict[str, int]:
        if reset == "NONE":
            raise ValueError(
                f"Kafka partition(s) {', '.join(keys)} have no {what} offset "
                f"and the offset reset strategy is NONE"
            )
        return self._watermarks(keys, high=reset == "LATEST")


def _read_range(
    config: KafkaSourceConfig, topic: str, partition: int, lo: int, hi: int, chunk: int
) -> Iterator[Columns]:
    """(values, timestamps) of the records of one partition at offsets lo..hi-1, `chunk`
    at a time. Offsets without a record (transaction markers, aborted records) are
    skipped; a planned offset that cannot be read within the read timeout fails with the
    position."""
    from confluent_kafka import KafkaError, TopicPartition

    consumer = kafka_clients.consumer(config.client_config())
    deserialize = _reader_of(config.deserializer)
    consumer.assign([TopicPartition(topic, partition, lo)])
    timeout_s = config.read_timeout_ms() / 1000
    values: List[Any]
    stamps: List[Optional[int]]
    values, stamps, position = [], [], lo
    last_progress = time.monotonic()
    try:
        while position < hi:
            for message in consumer.consume(min(chunk, hi - position), 0.2):
                error = message.error()
                if error is not None:
                    if error.code() == KafkaError._PARTITION_EOF:
                        continue
                    raise ConnectionError(
                        f"Kafka {topic}/{partition} at offset {position} "
                        f"({config.bootstrap_servers}): {error.str()}"
                    )
                # (a consumed message, not an error, has its offset)
                offset: int = message.offset()  # type: ignore[assignment]
                if offset >= hi:
                    position = hi
                    break
                value = _deserialized(
                    deserialize,
                    message,
                    topic,
                    partition,
                    offset,
                    config.dead_letter_tag is not None,
                )
                position = offset + 1
                if value is None:  # the schema skips it (ignore_parse_errors), as Flink
                    continue
                values.append(value)
                stamp = message.timestamp()
                stamps.append(stamp[1] if stamp[0] else None)
                last_progress = time.monotonic()
            if position < hi:
                now_at = consumer.position([TopicPartition(topic, partition)])[0].offset
                if now_at > position:  # past markers and aborted records
                    position, last_progress = min(now_at, hi), time.monotonic()
            if len(values) >= chunk or (position >= hi and values):
                yield values, stamps
                values, stamps = [], []
            if position < hi and time.monotonic() - last_progress > timeout_s:
                raise TimeoutError(
                    f"Kafka {topic}/{partition}: offset {position} (planned up to {hi}) not "
                    f"readable from {config.bootstrap_servers} within {timeout_s:.0f} s "
                    f"({READ_TIMEOUT_MS})"
                )
    finally:
        consumer.unassign()


def _reader_of(deserializer: Any) -> Callable[[Message], Any]:
    """A message's record: its key and value's (a record deserializer's
    `deserialize_record`), or its value's (a value-only DeserializationSchema's)."""
    whole = getattr(deserializer, "deserialize_record", None)
    if whole is not None:
        return lambda message: whole(message.key(), message.value())
    value_only = deserializer.deserialize
    return lambda message: value_only(message.value())


def _deserialized(
    deserialize: Callable[[Message], Any],
    message: Message,
    topic: str,
    partition: int,
    offset: int,
    to_dead_letters: bool,
) -> Any:
    """The record of a message; one that cannot be deserialized fails, naming its
    position, or, `to_dead_letters`, becomes a DeadLetter."""
    try:
        return deserialize(message)
    except Exception as exc:
        raw = message.value()
        position = f"{topic}/{partition}@{offset}"
        reason = f"{type(exc).__name__}: {exc}"
        if to_dead_letters:
            return DeadLetter(position, reason, raw)
        shown = raw if raw is None or len(raw) <= 200 else raw[:200] + b"..."
        raise ValueError(
            f"Kafka record {position} cannot be deserialized: {reason}; record value: {shown!r}"
        ) from exc
