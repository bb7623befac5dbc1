"""Reading Redis streams: the driver fixes each micro-batch's last entry id per stream,
tasks read the entries up to it.

A Redis stream source's offset (weir's checkpoint, Spark's offset log) is
{"end": 0|1, "next": {stream: id of the last entry read},
 "added": {stream: entries ever added up to that id} (unbounded sources, where Redis 7
 counts them: to tell entries trimmed unread), "stop": {stream: last id to read} (bounded
 sources only)}. A micro-batch reads, per stream, the entries after its start's id up to
and including its end's (XRANGE with an exclusive start, in pages); a replayed
micro-batch reads the ids its log entry names, so exactly the same entries.
Entry ids are Redis's `<milliseconds>-<sequence>`; "0-0" comes before every entry.
"""

from __future__ import annotations

from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    Iterable,
    Iterator,
    List,
    NamedTuple,
    Optional,
    Tuple,
    Union,
    cast,
)

from weir.common.row import row_of, shared_field_names
from weir.runtime.connectors import redis_clients
from weir.runtime.sources import END_SPLIT, DeadLetter, SourceReader

if TYPE_CHECKING:
    from weir.runtime.sources import Columns, Offset

    Fields = Dict[str, Union[str, bytes]]  # an entry's fields, decoded (values: or bytes)
    # a page of XRANGE: (entry id, fields) per entry, as redis-py gives them
    Page = List[Tuple[bytes, Dict[bytes, bytes]]]

EARLIEST = "earliest"
LATEST = "latest"
BEFORE_ALL = "0-0"
SHOWN_ENTRY_CHARS = 300  # of a bad entry, in its error


def parse_id(entry_id: str) -> Tuple[int, int]:
    """(milliseconds, sequence) of a full entry id, for comparing ids."""
    millis, _, sequence = entry_id.partition("-")
    return int(millis), int(sequence)


def full_id(entry_id: object) -> str:
    """`entry_id` ('<ms>-<seq>', or '<ms>' for '<ms>-0') as a full id, or a ValueError."""
    text = str(entry_id)
    millis, dash, sequence = text.partition("-")
    if not (millis.isdigit() and (sequence.isdigit() if dash else True)):
        raise ValueError(f"not a Redis stream entry id ('<ms>-<seq>'): {entry_id!r}")
    return f"{int(millis)}-{int(sequence or 0)}"


def _later(first: str, second: str) -> str:
    return first if parse_id(first) >= parse_id(second) else second


class RedisStreamConfig:
    """What RedisStreamSource.builder() collected: where to read, from which ids, and how
    an entry becomes a record and gets its timestamp."""

    def __init__(
        self,
        url: str,
        streams: Iterable[str],
        starting: str = EARLIEST,
        starting_ids: Optional[Dict[str, str]] = None,
        bounded: bool = False,
        deserializer: Optional[Callable[[Fields], Any]] = None,
        encoding: Optional[str] = "utf-8",
        timestamp_field: Optional[str] = None,
        dead_letter_tag: Optional[str] = None,
    ) -> None:
        self.url = url
        self.streams = list(streams)
        self.starting = starting  # EARLIEST or LATEST, for streams without a starting id
        self.starting_ids = dict(starting_ids or {})
        self.bounded = bounded
        self.deserializer = deserializer  # fields dict -> record; None: a Row of them
        self.encoding = encoding  # of field values; None keeps them bytes
        self.timestamp_field = timestamp_field
        self.dead_letter_tag = dead_letter_tag  # None: an entry that cannot be read fails


class StreamEnd(NamedTuple):
    """A stream as the driver plans its reading (XINFO STREAM); a stream that does not
    exist yet has the defaults."""

    last_id: str = BEFORE_ALL  # the newest id ever added
    deleted_id: str = BEFORE_ALL  # the newest id XDEL deleted
    added: Optional[int] = 0  # entries ever added (None before Redis 7)
    first_id: Optional[str] = None  # the oldest entry kept
    length: int = 0


class RedisStreamReader(SourceReader):
    """Reads the streams of a RedisStreamSource, one split per stream with new entries in
    a micro-batch. A stream that does not exist yet is read from its first entry once it
    exists. Entries deleted (XDEL, trimming) before they were read fail the job, naming
    the stream: they are lost input, not an empty range."""

    def __init__(self, config: RedisStreamConfig) -> None:
        self.config = config
        self.bounded = config.bounded
        self.dead_letter_tag = config.dead_letter_tag

    # -- the driver: offsets ------------------------------------------------------------
    def initial_offset(self) -> Offset:
        ends = self._stream_ends()
        config = self.config
        latest = config.starting == LATEST
        first = {
            s: config.starting_ids.get(s) or (ends[s].last_id if latest else BEFORE_ALL)
            for s in config.streams
        }
        if not self.bounded:
            return {"end": 0, "next": first, "added": _added(first, ends)}
        stop = {s: end.last_id for s, end in ends.items()}
        self._check_kept(first, stop, ends, {})
        return {"end": 0, "next": first, "stop": stop}

    def latest_offset(self, start: Offset, limit: Optional[int] = None) -> Offset:
        if start["end"]:
            return start
        self._check_streams(start)
        stop = start.get("stop")
        if stop is not None:  # bounded: everything up to the ids fixed at the start
            planned = {s: _later(last, stop[s]) for s, last in start["next"].items()}
            return {"end": 1, "next": planned, "stop": stop}
        ends = self._stream_ends()
        planned = {s: _later(last, ends[s].last_id) for s, last in start["next"].items()}
        self._check_kept(start["next"], planned, ends, start["added"])
        return {"end": 0, "next": planned, "added": _added(planned, ends)}

    def splits(self, start: Offset, end: Offset) -> List[Any]:
        out: List[Any] = []  # (index, stream, lo, hi) splits, then END_SPLIT
        for stream in sorted(end["next"]):
            lo, hi = start["next"][stream], end["next"][stream]
            if parse_id(hi) > parse_id(lo):
                out.append((len(out), stream, lo, hi))
        if end["end"] and not start["end"]:
            out.append(END_SPLIT)
        return out

    def _check_streams(self, start: Offset) -> None:
        """A job restarted from its checkpoint reads the streams it read before."""
        if sorted(start["next"]) != sorted(self.config.streams):
            raise ValueError(
                f"the Redis streams of a job restarted from its checkpoint "
                f"cannot change: the checkpoint reads {sorted(start['next'])}, "
                f"the job {sorted(self.config.streams)}"
            )

    def _stream_ends(self) -> Dict[str, StreamEnd]:
        """{stream: its StreamEnd}, in one round trip for all streams."""
        url = self.config.url
        with redis_clients.server_errors(url):
            pipe = redis_clients.client(url).pipeline(transaction=False)
            for stream in self.config.streams:
                pipe.type(stream)
                pipe.xinfo_stream(stream)
            answers = pipe.execute(raise_on_error=False)
        ends = {}
        for stream, kind, info in zip(self.config.streams, answers[::2], answers[1::2]):
            kind = _text(kind)
            if kind not in ("none", "stream"):
                raise ValueError(
                    f"Redis key '{stream}' at {redis_clients.address(url)} "
                    f"is a {kind}, not a stream"
                )
            ends[stream] = _stream_end(info) if kind == "stream" else StreamEnd()
        return ends

    def _check_kept(
        self,
        start: Dict[str, str],
        planned: Dict[str, str],
        ends: Dict[str, StreamEnd],
        added: Dict[str, int],
    ) -> None:
        """Entries after a stream's last read id that were deleted before being read fail
        the job (`added`: entries ever added up to the last read ids, where known)."""
        for stream, last in start.items():
            lost = _lost(last, planned[stream], ends[stream], added.get(stream))
            if lost:
                raise ValueError(
                    f"Redis stream '{stream}' at {redis_clients.address(self.config.url)}: "
                    f"entries after {last} ({lost}) were deleted or trimmed before this "
                    f"source read them"
                )

    # -- tasks: entries -----------------------------------------------------------------
    def split_chunks(self, split: Tuple[int, str, str, str], chunk: int) -> Iterator[Columns]:
        _, stream, lo, hi = split
        return _read_range(self.config, stream, lo, hi, chunk)


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _stream_end(info: Dict[str, Any]) -> StreamEnd:  # (XINFO STREAM's answer)
    first = info.get("first-entry")
    return StreamEnd(
        _text(info["last-generated-id"]),
        _text(info.get("max-deleted-entry-id", BEFORE_ALL)),
        info.get("entries-added"),
        first and _text(first[0]),
        info["length"],
    )


def _added(ids: Dict[str, str], ends: Dict[str, StreamEnd]) -> Dict[str, int]:
    """{stream: entries ever added up to its id in `ids`}, where that id is the newest
    and the server counts entries."""
    return {
        s: cast(int, ends[s].added)
        for s, i in ids.items()  # (None left out)
        if i == ends[s].last_id and ends[s].added is not None
    }


def _lost(last: str, planned: str, end: StreamEnd, added: Optional[int]) -> Optional[str]:
    """Which entries after `last` and up to `planned` were deleted unread, or None.
    XDEL records the newest id it deleted; trimming deletes the oldest entries, so if no
    entry up to `last` is left, the entries after it still kept are all the entries added
    after it unless some were lost. From "0-0" without a count (reading from the earliest
    entry) whatever is kept is the start."""
    if last != BEFORE_ALL and parse_id(last) < parse_id(end.deleted_id) <= parse_id(planned):
        return f"up to {end.deleted_id}"
    if added is None or end.added is None:
        return None
    if end.first_id is None or parse_id(end.first_id) > parse_id(last):
        missing = end.added - added - end.length
        if missing > 0:
            return f"{missing} of them"
    return None


def _read_range(
    config: RedisStreamConfig, stream: str, lo: str, hi: str, chunk: int
) -> Iterator[Columns]:
    """(values, timestamps) of the entries of `stream` after id `lo` up to id `hi`, in
    pages of `chunk` entries."""
    client = redis_clients.client(config.url)
    after = lo
    while after != hi:
        with redis_clients.server_errors(config.url):
            page = client.xrange(stream, f"({after}", hi, count=chunk)
        if not page:
            return
        values, stamps = _columns(config, stream, page)
        if values:
            yield values, stamps
        after = page[-1][0].decode()
        if len(page) < chunk:
            return


def _columns(config: RedisStreamConfig, stream: str, page: Page) -> Columns:
    """The records and event times of a page of entries; an entry the deserializer or
    the timestamp cannot take fails with its stream, id and fields (or, with a
    dead-letter output, becomes a DeadLetter at the id's time)."""
    values: List[Any]
    stamps: List[Optional[int]]
    values, stamps = [], []
    for raw_id, raw_fields in page:
        entry_id = raw_id.decode()
        try:
            fields = _decoded(raw_fields, config.encoding)
            value = _deserialized(config.deserializer, fields)
            stamp = _timestamp(config.timestamp_field, entry_id, fields)
        except Exception as exc:
            if config.dead_letter_tag is not None:
                values.append(
                    DeadLetter(
                        f"{stream}/{entry_id}", f"{type(exc).__name__}: {exc}", dict(raw_fields)
                    )
                )
                stamps.append(int(entry_id.partition("-")[0]))
                continue
            shown = repr(raw_fields)
            if len(shown) > SHOWN_ENTRY_CHARS:
                shown = shown[:SHOWN_ENTRY_CHARS] + "..."
            raise ValueError(
                f"Redis stream entry {stream}/{entry_id} at "
                f"{redis_clients.address(config.url)} cannot be read: "
                f"{type(exc).__name__}: {exc}; entry: {shown}"
            ) from exc
        if value is not None:  # the deserializer skips it, as Flink's schemas may
            values.append(value)
            stamps.append(stamp)
    return values, stamps


def _decoded(raw_fields: Dict[bytes, bytes], encoding: Optional[str]) -> Fields:
    """Field names as text; values as text in `encoding`, or bytes if it is None."""
    if encoding is None:
        return {name.decode(): value for name, value in raw_fields.items()}
    return {name.decode(): value.decode(encoding) for name, value in raw_fields.items()}


def _deserialized(deserializer: Optional[Callable[[Fields], Any]], fields: Fields) -> Any:
    if deserializer is None:
        return row_of(shared_field_names(tuple(fields)), fields.values())
    return deserializer(fields)


def _timestamp(field: Optional[str], entry_id: str, fields: Fields) -> int:
    """The entry's event time: its id's milliseconds, or the integer milliseconds of
    `field`."""
    if field is None:
        return int(entry_id.partition("-")[0])
    if field not in fields:
        raise ValueError(f"no timestamp field '{field}'")
    value = fields[field]
    try:
        return int(value)
    except (TypeError, ValueError):
        raise ValueError(
            f"timestamp field '{field}' is not integer milliseconds: {value!r}"
        ) from None
