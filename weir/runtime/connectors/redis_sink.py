"""Writing Redis: each task writes its share of a micro-batch's records in one MULTI/EXEC
transaction, sent as one pipeline (no round trip per record).

Stream sinks (XADD) write exactly once: a task's entries of micro-batch b go in one
transaction with its marker key `weir:sink:<uid>:<job>:<task>` = b (job: see sink_base),
WATCHing the marker; a replayed batch (after a crash, or a task retry) finds the marker
at b or later and writes nothing. Hash (HSET) and key-value (SET) sinks are idempotent by nature (a
replay writes
the same values again); their transaction makes each task's writes all-or-nothing.

Keys are checked to be of the sink's type before a transaction: Redis does not roll a
transaction back when one of its commands fails.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple, Union

from weir.common.row import Row
from weir.runtime.connectors import redis_clients
from weir.runtime.connectors.sink_base import BatchWriter

if TYPE_CHECKING:
    RedisScalar = Union[str, bytes, int, float]  # what Redis stores
    Fields = Dict[RedisScalar, RedisScalar]
    # a key or stream name: fixed, or a function of the record
    Selector = Union[str, Callable[[Any], object]]
    Command = Union["StreamEntries", "HashFields", "KeyValues"]

MARKER_PREFIX = "weir:sink"
WATCH_ATTEMPTS = 3  # a concurrent writer of the same (batch, task) moved the marker


def marker_key(uid: str, job: str, task: int) -> str:
    """The key holding the last micro-batch a stream sink's task of job `job` wrote."""
    return f"{MARKER_PREFIX}:{uid}:{job}:{task}"


def record_fields(record: Any) -> Dict[Any, Any]:
    """A record's fields, the default mapping of stream and hash sinks: a named Row's
    fields, a dict itself, anything else as one field "value"."""
    if isinstance(record, Row) and record.get_field_names() is not None:
        return record.as_dict()
    if isinstance(record, dict):
        return record
    return {"value": record}


def redis_value(value: object, what: str) -> RedisScalar:
    """`value` if Redis can store it (str, bytes, int, float), else a TypeError."""
    if isinstance(value, (str, bytes, int, float)) and not isinstance(value, bool):
        return value
    raise TypeError(
        f"{what} is a {type(value).__name__} ({value!r}); Redis stores str, bytes, int or float"
    )


def _checked_fields(fields: object) -> Fields:
    if not isinstance(fields, dict) or not fields:
        raise TypeError(f"expected a non-empty dict of fields, got {fields!r}")
    return {
        redis_value(name, "a field name"): redis_value(value, f"field {name!r}")
        for name, value in fields.items()
    }


def _selected(selector: Selector, record: Any) -> RedisScalar:
    """A key or stream name: fixed (a str) or a function of the record."""
    return redis_value(selector if isinstance(selector, str) else selector(record), "the key")


class StreamEntries:
    """XADD of each record's fields (`serializer(record)`, a dict; default record_fields)
    to its stream; `max_len` trims the stream (approximately, unless `exact_trim`)."""

    exactly_once = True
    key_type = "stream"

    def __init__(
        self,
        stream: Selector,
        serializer: Optional[Callable[[Any], object]] = None,
        max_len: Optional[int] = None,
        exact_trim: bool = False,
    ) -> None:
        self.stream = stream
        self.serializer = serializer or record_fields
        self.max_len = max_len
        self.exact_trim = exact_trim

    def args(self, record: Any) -> Tuple[RedisScalar, Fields]:
        return _selected(self.stream, record), _checked_fields(self.serializer(record))

    def queue(self, pipe: Any, key: RedisScalar, fields: Fields) -> None:  # (a Pipeline)
        pipe.xadd(key, fields, maxlen=self.max_len, approximate=not self.exact_trim)


class HashFields:
    """HSET of each record's fields (`field_mapper(record)`, a dict; default
    record_fields) in the hash `key_selector` gives."""

    exactly_once = False
    key_type = "hash"

    def __init__(
        self, key_selector: Selector, field_mapper: Optional[Callable[[Any], object]] = None
    ) -> None:
        self.key_selector = key_selector
        self.field_mapper = field_mapper or record_fields

    def args(self, record: Any) -> Tuple[RedisScalar, Fields]:
        return _selected(self.key_selector, record), _checked_fields(self.field_mapper(record))

    def queue(self, pipe: Any, key: RedisScalar, fields: Fields) -> None:  # (a Pipeline)
        pipe.hset(key, mapping=fields)


class KeyValues:
    """SET of `value_mapper(record)` (default the record) at the key `key_selector`
    gives, expiring after `ttl_ms` if set. SET replaces a key of any type."""

    exactly_once = False
    key_type = None

    def __init__(
        self,
        key_selector: Selector,
        value_mapper: Optional[Callable[[Any], object]] = None,
        ttl_ms: Optional[int] = None,
    ) -> None:
        self.key_selector = key_selector
        self.value_mapper = value_mapper
        self.ttl_ms = ttl_ms

    def args(self, record: Any) -> Tuple[RedisScalar, RedisScalar]:
        value = record if self.value_mapper is None else self.value_mapper(record)
        return _selected(self.key_selector, record), redis_value(value, "the value")

    def queue(self, pipe: Any, key: RedisScalar, value: RedisScalar) -> None:  # (a Pipeline)
        pipe.set(key, value, px=self.ttl_ms)


class RedisSinkSpec:
    """A RedisSink's settings: the server and what each record becomes (StreamEntries,
    HashFields or KeyValues); written on the executors, by RedisWriters."""

    executor_side = True

    def __init__(self, url: str, command: Command) -> None:
        self.url = url
        self.command = command

    def batch_writer(self, uid: str, job: str, batch_id: int, task: int) -> RedisWriter:
        return RedisWriter(self, uid, job, batch_id, task)


class RedisWriter(BatchWriter):
    """One task's records of one micro-batch: turned into commands as they come (a record
    that cannot be written fails with the record), sent in one transaction at finish()."""

    def __init__(self, spec: RedisSinkSpec, uid: str, job: str, batch_id: int, task: int) -> None:
        super().__init__(uid, job, batch_id, task)
        self.spec = spec
        self.pending: List[Tuple[RedisScalar, Any]] = []  # (key, payload) per record

    def write(self, values: List[Any], timestamps: Optional[List[Optional[int]]] = None) -> None:
        args = self.spec.command.args
        for value in values:
            try:
                self.pending.append(args(value))
            except Exception as exc:
                raise ValueError(
                    f"Redis sink '{self.uid}': record {value!r} cannot be "
                    f"written: {type(exc).__name__}: {exc}"
                ) from exc
            self.written += 1

    def finish(self) -> List[Any]:
        """Commits the task's records here, in the task: nothing is left for the driver's
        commit."""
        if self.pending:
            with redis_clients.server_errors(self.spec.url):
                self._send(redis_clients.client(self.spec.url))
            self.pending = []
        return []

    def abort(self) -> None:
        self.pending = []  # nothing reached Redis before finish()

    def _send(self, client: Any) -> None:  # (a redis.Redis)
        """The pending commands, in one transaction; again if a concurrent writer of the
        same (batch, task) moved the marker meanwhile."""
        self._check_types(client)
        watch_error = redis_clients.redis_module().WatchError
        for attempt in range(WATCH_ATTEMPTS):
            try:
                self._commit(client)
                return
            except watch_error:
                if attempt == WATCH_ATTEMPTS - 1:
                    raise

    def _commit(self, client: Any) -> None:
        """One MULTI/EXEC of the pending commands; for an exactly-once sink, with the
        marker, and nothing if the marker says this batch is written."""
        command = self.spec.command
        marker = marker_key(self.uid, self.job, self.task)
        with client.pipeline(transaction=True) as pipe:
            if command.exactly_once:
                pipe.watch(marker)
                written = pipe.get(marker)
                if written is not None and int(written) >= self.batch_id:
                    return
                pipe.multi()
            for key, payload in self.pending:
                command.queue(pipe, key, payload)
            if command.exactly_once:
                pipe.set(marker, self.batch_id)
            pipe.execute()

    def _check_types(self, client: Any) -> None:
        """Every key is new or of the sink's type (one round trip)."""
        expected = self.spec.command.key_type
        if expected is None:
            return
        keys = list(dict.fromkeys(key for key, _ in self.pending))
        pipe = client.pipeline(transaction=False)
        for key in keys:
            pipe.type(key)
        for key, kind in zip(keys, pipe.execute()):
            kind = kind.decode() if isinstance(kind, bytes) else str(kind)
            if kind not in ("none", expected):
                raise ValueError(
                    f"Redis sink '{self.uid}': key {key!r} at "
                    f"{redis_clients.address(self.spec.url)} is a {kind}, "
                    f"not a {expected}"
                )
