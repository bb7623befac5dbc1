"""weir's Redis connector (PyFlink has none): a Redis Streams source and sinks to streams,
hashes and keys, shaped like PyFlink's connectors. Needs redis-py
(`pip install "weir[redis]"`).

    source = (RedisStreamSource.builder().set_url("redis://127.0.0.1:6379/0")
              .set_streams("orders").set_bounded().build())
    env.from_source(source, WatermarkStrategy.for_monotonous_timestamps(), "orders")
    stream.sink_to(RedisSink.hash("redis://127.0.0.1:6379/0", lambda r: f"user:{r.id}"))

The source resumes from the entry ids in the job's checkpoint: each micro-batch reads
the entries between ids planned on the driver, so a replay reads exactly the same ones.
The stream sink writes each micro-batch exactly once (a marker key per sink task, in the
same transaction); the hash and key-value sinks are idempotent under replay.
"""

import codecs
import datetime
from typing import Any, Dict, Optional

from weir.datastream.connectors.base import dead_letter_tag_id
from weir.runtime.connectors import redis_clients
from weir.runtime.connectors.redis_sink import HashFields, KeyValues, RedisSinkSpec, StreamEntries
from weir.runtime.connectors.redis_source import (
    EARLIEST,
    LATEST,
    RedisStreamConfig,
    RedisStreamReader,
    full_id,
)


class RedisStreamSource:
    """Reads Redis streams; build one with RedisStreamSource.builder() and read it with
    env.from_source(source, watermark_strategy, name). A record's timestamp is its entry
    id's milliseconds unless set_timestamp_field(...) names a field."""

    def __init__(self, config: RedisStreamConfig):
        self._config = config

    @staticmethod
    def builder() -> "RedisStreamSourceBuilder":
        return RedisStreamSourceBuilder()

    def create_reader(self) -> RedisStreamReader:
        return RedisStreamReader(self._config)


class RedisStreamSourceBuilder:
    def __init__(self):
        self._settings: Dict[str, Any] = {"streams": [], "starting": EARLIEST, "starting_ids": {}}

    def set_url(self, url: str) -> "RedisStreamSourceBuilder":
        """The server: redis://[[user]:password@]host[:port][/db], rediss://... or
        unix://path (query parameters such as ?socket_connect_timeout=2 are redis-py's)."""
        self._settings["url"] = redis_clients.check_url(url)
        return self

    def set_streams(self, *streams: str) -> "RedisStreamSourceBuilder":
        if not streams or not all(isinstance(s, str) and s for s in streams):
            raise ValueError(f"set_streams expects stream names, got {streams!r}")
        self._settings["streams"] = list(dict.fromkeys(streams))
        return self

    def set_starting_position(self, position: str) -> "RedisStreamSourceBuilder":
        """Where streams without a starting id start when the job first starts:
        "earliest" (their first entry, the default) or "latest" (entries added after)."""
        if position not in (EARLIEST, LATEST):
            raise ValueError(
                f"the starting position is '{EARLIEST}' or '{LATEST}', got {position!r}"
            )
        self._settings["starting"] = position
        return self

    def set_starting_ids(self, ids: Dict[str, str]) -> "RedisStreamSourceBuilder":
        """{stream: entry id}: as XREAD's ids, the last entry already read; the source
        reads the entries after it ("0-0": all of them)."""
        self._settings["starting_ids"] = {stream: full_id(i) for stream, i in ids.items()}
        return self

    def set_bounded(self) -> "RedisStreamSourceBuilder":
        """Read up to the newest entry of each stream when the job first starts, then end
        (unbounded, the default, goes on reading new entries)."""
        self._settings["bounded"] = True
        return self

    def set_deserializer(self, deserializer) -> "RedisStreamSourceBuilder":
        """A function of an entry's fields ({name: value}) giving the record (None skips
        the entry). Default: a Row of the fields, in entry order."""
        if not callable(deserializer):
            raise TypeError(
                f"set_deserializer expects a function of an entry's fields, got {deserializer!r}"
            )
        self._settings["deserializer"] = deserializer
        return self

    def set_encoding(self, encoding) -> "RedisStreamSourceBuilder":
        """How field values are decoded (default "utf-8"); None keeps them bytes."""
        if encoding is not None:
            codecs.lookup(encoding)  # an unknown encoding fails here, not in a task
        self._settings["encoding"] = encoding
        return self

    def set_dead_letter_output(self, output_tag) -> "RedisStreamSourceBuilder":
        """An entry the deserializer or the timestamp field cannot take goes to this side
        output of the source's stream instead of failing the job (position:
        'stream/entry id'; record: the entry's raw fields; see
        base.dead_letter_tag_id)."""
        self._settings["dead_letter_tag"] = dead_letter_tag_id(output_tag)
        return self

    def set_timestamp_field(self, name: str) -> "RedisStreamSourceBuilder":
        """The field holding a record's event time, integer epoch milliseconds (default:
        the entry id's milliseconds)."""
        self._settings["timestamp_field"] = name
        return self

    def build(self) -> RedisStreamSource:
        redis_clients.redis_module()
        settings = self._settings
        if not settings.get("url"):
            raise ValueError("RedisStreamSource needs set_url(...)")
        if not settings["streams"]:
            raise ValueError("RedisStreamSource needs set_streams(...)")
        unknown = sorted(set(settings["starting_ids"]) - set(settings["streams"]))
        if unknown:
            raise ValueError(
                f"set_starting_ids names streams the source does not read: {', '.join(unknown)}"
            )
        return RedisStreamSource(RedisStreamConfig(**settings))


class RedisSink:
    """Writes records to Redis from the tasks that produce them, one MULTI/EXEC
    transaction per task and micro-batch. Keys and stream names are fixed (a str) or
    functions of the record; values are str, bytes, int or float.

    A stream sink's exactly-once marker keys are `weir:sink:<uid>:<job>:<task>`, where
    job is the identity kept in the job's checkpoint: a restored job finds its markers,
    a job started afresh writes anew."""

    def __init__(self, spec: RedisSinkSpec):
        self._spec = spec

    @staticmethod
    def stream(
        url: str, stream, serializer=None, max_len: Optional[int] = None, exact_trim: bool = False
    ) -> "RedisSink":
        """XADD per record to `stream` (a name or a function of the record) of the fields
        `serializer(record)` gives (a dict; default: a named Row's or a dict's fields, any
        other record as the field "value"); `max_len` trims the stream, approximately
        unless `exact_trim`. Exactly once under replay."""
        if max_len is not None and (not isinstance(max_len, int) or max_len < 1):
            raise ValueError(f"max_len must be a positive int, got {max_len!r}")
        return RedisSink._of(
            url,
            StreamEntries(
                _selector(stream, "stream"), _mapper(serializer, "serializer"), max_len, exact_trim
            ),
        )

    @staticmethod
    def hash(url: str, key_selector, field_mapper=None) -> "RedisSink":
        """HSET per record, in the hash `key_selector` gives, of the fields
        `field_mapper(record)` gives (default as the stream sink's). Idempotent."""
        return RedisSink._of(
            url,
            HashFields(
                _selector(key_selector, "key_selector"), _mapper(field_mapper, "field_mapper")
            ),
        )

    @staticmethod
    def key_value(url: str, key_selector, value_mapper=None, ttl=None) -> "RedisSink":
        """SET per record of `value_mapper(record)` (default the record) at the key
        `key_selector` gives; `ttl` (a Duration, a timedelta or seconds) expires it.
        Idempotent."""
        return RedisSink._of(
            url,
            KeyValues(
                _selector(key_selector, "key_selector"),
                _mapper(value_mapper, "value_mapper"),
                _ttl_ms(ttl),
            ),
        )

    @staticmethod
    def _of(url: str, command) -> "RedisSink":
        redis_clients.redis_module()
        return RedisSink(RedisSinkSpec(redis_clients.check_url(url), command))

    def sink_spec(self) -> RedisSinkSpec:
        return self._spec


def _selector(selector, what: str):
    """A fixed name (str) or a function of the record (a callable, or a KeySelector)."""
    selector = getattr(selector, "get_key", selector)
    if not (isinstance(selector, str) or callable(selector)):
        raise TypeError(f"{what} must be a str or a function of the record, got {selector!r}")
    return selector


def _mapper(mapper, what: str):
    mapper = getattr(mapper, "map", mapper)
    if mapper is not None and not callable(mapper):
        raise TypeError(f"{what} must be a function of the record, got {mapper!r}")
    return mapper


def _ttl_ms(ttl):
    """`ttl` in milliseconds: a Duration or Time (to_milliseconds), a timedelta, or
    seconds."""
    if ttl is None:
        return None
    if hasattr(ttl, "to_milliseconds"):
        millis = ttl.to_milliseconds()
    elif isinstance(ttl, datetime.timedelta):
        millis = int(ttl.total_seconds() * 1000)
    elif isinstance(ttl, (int, float)) and not isinstance(ttl, bool):
        millis = int(ttl * 1000)
    else:
        raise TypeError(f"ttl must be a Duration, a timedelta or seconds, got {ttl!r}")
    if millis <= 0:
        raise ValueError(f"ttl must be at least 1 ms, got {ttl!r}")
    return millis
