"""weir's wire protocol, the one place that defines it, for every engine.

Rows. Everything that moves between tasks is a row of six fields, in this order:

    to       uid of the operator or sink the row is for; WATERMARK for rows that only move
             the engine's watermark (in a job whose driver tracks watermark groups, for
             idleness or operators' own watermarks, they go on to the driver too,
             with kg = the watermark group's index, payload: see REPORT_SEPARATOR);
             METRICS for operator metrics, FINISHED for ends of
             input, OPERATOR_STATE for operator state snapshots, TIMERS for pending
             processing-time timers, COMMITS for what tasks that write sinks
             prepared for the driver's commit, SPLIT_WATERMARKS for the largest
             timestamps of a partitioned source's splits and PRINTED for what user
             functions printed (all for the driver)
    input    the target operator's input label (its position among the operator's inputs)
    kg       the target key group (keyed operators; 0 otherwise)
    control  None for a bundle of data records, else one of the control kinds below
    payload  a data row's records as a pickled bundle (seq, values, timestamps, keys): the
             order key of its first record, then three columns (timestamps None where no
             record has one; keys, for a keyed input, what its key selector gave each
             record where it was routed, else None); a metrics row's pickled
             {"<uid>.<metric>": count}; None for other controls
    ts       a data row's largest record timestamp; a control's number (see its kind)

Records are routed by their producer: it knows the consumers of each of its outputs (main
and side outputs), runs the stateless operators fused behind it, and sends each record to
each consuming operator or sink with that operator's key group, once.

Order keys. A record's `seq` = phase << PHASE_SHIFT | producer << PRODUCER_SHIFT | counter.
Phase 0 records were produced before the batch's watermark advance reached their producer
(timer firings), phase 1 after it (element processing). A consumer processes phase 0
records, then fires timers, then processes phase 1 records (the order Flink's channels
give); within a phase, records in seq order, so each key sees each producer's records in
the order they were produced.

A bundle's records come from one producer in one phase, in their order, and a producer's
bundles for one key group never interleave (it numbers each routing call's records after
the last call's), so a bundle needs one order key, its first record's: a consumer orders
bundles by it and reads each bundle's records in turn, which keeps every producer's order.
A record read from a bundle carries its bundle's key as its `seq` (only its phase is read
per record).

Pages. A key group's keyed state, timers and engine bookkeeping are pickled pages with int
ids; negative ids are reserved here. An engine stores a key group's pages as one versioned
blob (`encode_pages`).
"""

import pickle
from collections import defaultdict
from enum import StrEnum
from functools import partial
from itertools import repeat
from operator import is_not
from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Iterable,
    NamedTuple,
    Optional,
    Sequence,
    Union,
    cast,
)

from weir.common.row import pack_rows
from weir.runtime import pickling
from weir.runtime.errors import MARKER, UserFunctionError

if TYPE_CHECKING:
    from weir.runtime.metrics import Report


# -- rows ------------------------------------------------------------------------------
class Channel(StrEnum):
    """The `to` of a row for the driver (or, for WATERMARK, for the engine's watermark):
    what the driver does with it. Members are strs: they travel in Spark's string
    columns as they are."""

    WATERMARK = "\x00watermark"  # watermark rows: END, SEEN, ANNOUNCE, IDLE
    METRICS = "\x00metrics"  # METRIC rows
    FINISHED = "\x00finished"  # ENDED rows (kg: the source's number)
    OPERATOR_STATE = "\x00operator_state"  # SNAPSHOT rows: kept for a restart
    PRINTED = "\x00printed"  # PRINT rows, for the driver's standard output in a local run
    TIMERS = "\x00timers"  # DUE rows
    COMMITS = "\x00commits"  # {sink uid: committables} a task prepared for the driver
    SPLIT_WATERMARKS = "\x00split_watermarks"  # SEEN rows with a SplitMark payload


class Control(StrEnum):
    """A control row's kind (its `control` field), with what its `ts` and payload carry."""

    END = "end"  # the end of a bounded source (ts: END_OF_INPUT_TS), to WATERMARK
    SEEN = "seen"  # the largest timestamp a watermark assigner saw (ts), to WATERMARK; a
    #                split's (payload: SplitMark), to SPLIT_WATERMARKS
    ANNOUNCE = "wm"  # a scripted source's watermark for the next batch (ts), to WATERMARK
    IDLE = "idle"  # the largest timestamp announced for an idle watermark group (ts), to
    #                WATERMARK (weir.control.idleness)
    TICK = "tick"  # wakes a key group without input (ts: a scripted clock or None)
    OWN = "own"  # the operator's own watermark (ts), to every key group of an operator
    #              that some watermark group does not reach (weir.control.watermarks)
    METRIC = "metric"  # operator metric increments (payload {"<uid>.<metric>": n}), to METRICS
    ENDED = "ended"  # source number `kg` read its last record: to every key group of each
    #                  keyed operator downstream (ts: the source's number), and to FINISHED
    DUE = "due"  # a key group's earliest processing-time timer after the batch (payload:
    #              DueTimer), to TIMERS: a stream without input still gets a micro-batch
    #              when it is due
    PRINT = "print"  # printed text (payload), to PRINTED
    SNAPSHOT = "snapshot"  # an operator state snapshot (payload {(uid, instance index):
    #                        (checkpoints, snapshot)}), to OPERATOR_STATE


class DueTimer(NamedTuple):
    """A DUE row's payload: a key group's earliest processing-time timer (None: none)."""

    uid: str
    key_group: int
    earliest: Optional[int]


class SplitMark(NamedTuple):
    """A SEEN row's payload to SPLIT_WATERMARKS: the largest timestamp read from one
    split (partition) of a partitioned source (weir.runtime.split_watermarks)."""

    source_uid: str
    partition: str  # its key (e.g. "topic:partition")
    largest: int


COLUMNS = ("_to", "_in", "_kg", "_ctl", "_b", "_ts")
# A row as a producer builds it (see COLUMNS): to, input, kg, control, payload, ts.
WireRow = tuple[str, int, int, Optional[Control], Optional[bytes], Optional[int]]
# A source reads at most this many records at a time, and a bundle holds at most this many:
# a key group gets one bundle per chunk a source task reads, and Spark hands every bundle
# to the keyed stage as a row of its own, converted cell by cell (~27 rows per key group
# and micro-batch with 20,000 in bench/keyed_state.py; 3 with 100,000, ~6% faster there).
MAX_BUNDLE_RECORDS = 100_000

dumps = pickling.dumps  # any object (weir.runtime.pickling); pickle reads what it writes
loads = pickle.loads

# -- time --------------------------------------------------------------------------------
MIN_WATERMARK = -(2**63)  # Flink's Long.MIN_VALUE / Long.MAX_VALUE watermarks
MAX_WATERMARK = 2**63 - 1
# The end of a bounded input travels as a control with this event time: the largest
# millisecond value Spark's TimestampType holds comfortably. Any watermark at or above
# END_OF_INPUT_THRESHOLD is Flink's +infinity watermark.
END_OF_INPUT_TS = 9_000_000_000_000_000
END_OF_INPUT_THRESHOLD = 8_000_000_000_000_000


# A watermark row that reaches the driver carries "<control><REPORT_SEPARATOR><ts>" (UTF-8)
# as its payload; an engine builds it in its own terms (Spark: a column expression).
REPORT_SEPARATOR = ":"


def read_watermark_report(payload: bytes) -> tuple[str, int]:
    """(control, timestamp) of a watermark row's payload at the driver."""
    control, _, timestamp = payload.decode().rpartition(REPORT_SEPARATOR)
    return control, int(timestamp)


def engine_watermark_to_flink(watermark_ms: int) -> int:
    """Maps an engine watermark (0 before any event, huge at end of input) to Flink's."""
    if watermark_ms is None or watermark_ms <= 0:
        return MIN_WATERMARK
    if watermark_ms >= END_OF_INPUT_THRESHOLD:
        return MAX_WATERMARK
    return watermark_ms


# -- order keys --------------------------------------------------------------------------
PHASE_SHIFT = 62
PRODUCER_SHIFT = 40
COUNTER_MASK = (1 << PRODUCER_SHIFT) - 1
PRODUCER_MASK = (1 << (PHASE_SHIFT - PRODUCER_SHIFT)) - 1
BEFORE_WATERMARK = 0
AFTER_WATERMARK = 1


def make_seq(phase: int, producer: int, counter: int) -> int:
    return (
        (phase << PHASE_SHIFT)
        | ((producer & PRODUCER_MASK) << PRODUCER_SHIFT)
        | (counter & COUNTER_MASK)
    )


# -- pages -------------------------------------------------------------------------------
# 1: timers (timestamp, key); windows kept a timer index in keyed state.
# 2: timers (timestamp, key[, namespace]); window state in (window entry, window) slots.
PAGE_FORMAT_VERSION = 2
TIMER_PAGE = -1  # a key group's timers
WAKE_PAGE = -2  # in a savepoint: when Spark's timer wakes the key group (weir.spark.host)
TIMER_SUMMARY_PAGE = -3  # each time domain's earliest timer
CLOCK_PAGE = -4  # the last scripted processing time (TestStream) seen
ENDED_PAGE = -5  # the upstream sources whose input has ended (until all have)
BROADCAST_PAGE = -6  # the broadcast states of a broadcast process operator
OPERATOR_STATE_PAGE = -7  # a non-keyed instance's operator state (weir.runtime.non_keyed)
OWN_WATERMARK_PAGE = -8  # the operator's own watermark announced last (weir.control.watermarks)
TYPES_PAGE = -9  # the declared types of its keyed states (weir.runtime.state.evolution)


def encode_pages(pages: dict[int, bytes]) -> bytes:
    """All pages of a key group as one blob, tagged with the page format version."""
    return pickle.dumps((PAGE_FORMAT_VERSION, pages), protocol=5)


def decode_pages(blob: bytes) -> dict[int, bytes]:
    pages: dict[int, bytes]
    version, pages = pickle.loads(blob)
    if version != PAGE_FORMAT_VERSION:
        raise ValueError(
            f"state was written with page format {version}; this weir reads "
            f"format {PAGE_FORMAT_VERSION}"
        )
    return pages


# -- building rows ---------------------------------------------------------------------
def _bundle(
    seq: int,
    values: list[Any],
    stamps: Optional[list[Optional[int]]],
    keys: Optional[list[Any]] = None,
) -> tuple[bytes, Optional[int]]:
    """A data row's payload and largest timestamp (`stamps` None: no record has one).
    Columns pickle ~3x faster than a (seq, value, timestamp) tuple per record; named
    rows of one kind go as columns too (weir.common.row.pack_rows)."""
    packed = pack_rows(values) or values
    if stamps is None or stamps.count(None) == len(stamps):
        return pickling.dumps((seq, packed, None, keys)), None
    # (is_not None leaves ints: filter does not narrow through a partial)
    largest = max(filter(partial(is_not, None), stamps), default=None)  # type: ignore[type-var]
    return pickling.dumps((seq, packed, stamps, keys)), largest


class _Columns:
    """A bundle's records before pickling: the first one's order key, values, timestamps
    (None: no record has one) and keys (None: not a keyed input)."""

    __slots__ = ("seq", "values", "stamps", "keys")

    def __init__(
        self,
        seq: int,
        values: list[Any],
        stamps: Optional[list[Optional[int]]],
        keys: Optional[list[Any]] = None,
    ) -> None:
        self.seq, self.values, self.stamps, self.keys = seq, values, stamps, keys


class _Pickled:
    """A bundle's records already pickled (one blob for many key groups)."""

    __slots__ = ("blob", "ts")

    def __init__(self, blob: bytes, ts: Optional[int]) -> None:
        self.blob, self.ts = blob, ts


# What a Bundler collects: (to, input, kg, control, payload); the payload a bundle's
# records (_Columns, or _Pickled for many key groups) for data (control None), else a
# control's (extra payload, ts).
_Entry = tuple[
    str, int, int, Optional[Control], Union["_Columns", "_Pickled", tuple[Any, Optional[int]]]
]


class Bundler:
    """Collects records into bundles, one per (target, input, key group), and controls."""

    def __init__(self) -> None:
        self.done: list[_Entry] = []

    def add_all(
        self,
        to: str,
        input_label: int,
        key_groups: Optional[Sequence[int]],
        first_seq: int,
        values: list[Any],
        stamps: list[Optional[int]],
        key_group: int = 0,
        keys: Optional[list[Any]] = None,
    ) -> None:
        """Adds records for `to` (order keys from `first_seq` on, values and their
        timestamps), each to its key group (key_groups None: all to `key_group`; for a
        sink, the producing subtask); `keys`: each record's key, for a keyed input."""
        if key_groups is None:
            for start in range(0, len(values), MAX_BUNDLE_RECORDS):
                end = start + MAX_BUNDLE_RECORDS
                self.done.append(
                    (
                        to,
                        input_label,
                        key_group,
                        None,
                        _Columns(first_seq + start, values[start:end], stamps[start:end]),
                    )
                )
            return
        positions: defaultdict[int, list[int]] = defaultdict(list)
        for position, group in enumerate(key_groups):
            positions[group].append(position)
        value_at = values.__getitem__
        stamp_at = None if stamps.count(None) == len(stamps) else stamps.__getitem__
        key_at = None if keys is None else keys.__getitem__
        self.done.extend(
            (
                to,
                input_label,
                kg,
                None,
                _Columns(
                    first_seq + at[0],
                    list(map(value_at, at)),
                    None if stamp_at is None else list(map(stamp_at, at)),
                    None if key_at is None else list(map(key_at, at)),
                ),
            )
            for kg, at in positions.items()
        )

    def add_to_every_key_group(
        self,
        to: str,
        input_label: int,
        key_groups: int,
        first_seq: int,
        values: list[Any],
        stamps: list[Optional[int]],
    ) -> None:
        """Adds records for every key group of `to` (a broadcast input), pickled once."""
        for start in range(0, len(values), MAX_BUNDLE_RECORDS):
            end = min(start + MAX_BUNDLE_RECORDS, len(values))
            pickled = _Pickled(*_bundle(first_seq + start, values[start:end], stamps[start:end]))
            self.done.extend((to, input_label, kg, None, pickled) for kg in range(key_groups))

    def add_control(
        self, to: Channel, kind: Control, ts: Optional[int] = None, payload: Any = None
    ) -> None:
        self.done.append((to, 0, 0, kind, (payload, ts)))

    def add_ticks(self, uid: str, key_groups: int, clock: Optional[int] = None) -> None:
        """A tick for every key group of operator `uid`; `clock` a scripted time, if any."""
        self.done.extend((uid, 0, kg, Control.TICK, (None, clock)) for kg in range(key_groups))

    def add_ends(self, uid: str, key_groups: int, source: int) -> None:
        """Source number `source` ended: tells every key group of operator `uid`."""
        self.done.extend((uid, 0, kg, Control.ENDED, (None, source)) for kg in range(key_groups))

    def add_finished(self, source: int) -> None:
        """Tells the driver that source number `source` ended."""
        self.done.append((Channel.FINISHED, 0, source, Control.ENDED, (None, source)))

    def add_metrics(self, counts: dict[str, "Report"]) -> None:
        if counts:
            self.add_control(Channel.METRICS, Control.METRIC, payload=counts)

    def rows(self) -> list[WireRow]:
        """Everything added so far as rows (see COLUMNS); the bundler is then empty."""
        rows: list[WireRow]
        payload: Any  # by control: a _Pickled or _Columns (None) or (extra, ts) (see _Entry)
        done, self.done, rows = self.done, [], []
        for to, input_label, key_group, control, payload in done:
            if type(payload) is _Pickled:
                rows.append((to, input_label, key_group, None, payload.blob, payload.ts))
            elif control is None:
                rows.append((to, input_label, key_group, None, *_record_bundle(to, payload)))
            else:
                extra, ts = payload
                blob = None if extra is None else pickling.dumps(extra)
                rows.append((to, input_label, key_group, control, blob, ts))
        return rows


def _record_bundle(to: str, columns: _Columns) -> tuple[bytes, Optional[int]]:
    """A data row's payload and largest timestamp; records that cannot be pickled fail
    with one error naming the operator they were for and their types."""
    try:
        return _bundle(columns.seq, columns.values, columns.stamps, columns.keys)
    except pickling.NotSerializable as exc:
        raise UserFunctionError(
            f"{MARKER}: records for operator '{to}' cannot be serialized (record types: "
            f"{pickling.describe_types(columns.values)}): {exc}"
        ) from None


class RecordColumns:
    """A key group's records of one micro-batch in order, as columns: values, timestamps,
    keys (None where an input carries none) and input labels (None: an operator of one
    input); records before `first_after_watermark` are phase 0 (produced before the
    watermark's advance), the others phase 1."""

    __slots__ = ("values", "stamps", "keys", "inputs", "first_after_watermark")

    def __init__(
        self,
        values: list[Any],
        stamps: list[Optional[int]],
        keys: list[Any],
        inputs: Optional[list[int]] = None,
        first_after_watermark: int = 0,
    ) -> None:
        self.values, self.stamps, self.keys, self.inputs = values, stamps, keys, inputs
        self.first_after_watermark = first_after_watermark

    def __len__(self) -> int:
        return len(self.values)

    @classmethod
    def of(
        cls, records: Iterable[tuple[int, Any, Optional[int]]], key_selector: Callable[[Any], Any]
    ) -> "RecordColumns":
        """From (seq, value, timestamp) records of one input in order, their keys selected
        by `key_selector` (for tests: an engine's records carry their keys)."""
        records = list(records)
        split = next((i for i, r in enumerate(records) if r[0] >> PHASE_SHIFT), len(records))
        return cls(
            [r[1] for r in records],
            [r[2] for r in records],
            [key_selector(r[1]) for r in records],
            None,
            split,
        )


# A data row's bundle read (seq, values, timestamps, keys: see _bundle), with the input
# label of its row.
_LabelledBundle = tuple[
    tuple[int, list[Any], Optional[list[Optional[int]]], Optional[list[Any]]], int
]


class KeyGroupInput:
    """One key group's rows of a micro-batch, read: its records (RecordColumns, in seq
    order, with the keys they carried), the ticks' scripted clock (or None), the numbers
    of the sources whose end of input reached it and the operator's own watermark
    announced (or None). A bundle's columns are appended as they are: no record becomes
    a tuple of its own."""

    __slots__ = ("records", "clock", "ended", "own_watermark")

    def __init__(self, rows: Iterable[Sequence[Any]], labelled: bool) -> None:
        bundles: list[_LabelledBundle] = []
        clock: Optional[int] = None
        ended: tuple[int, ...] = ()
        own: Optional[int] = None
        for _, input_label, _, control, blob, ts in rows:
            if control is None:
                bundles.append((loads(blob), input_label))
            elif control == Control.TICK:
                if ts is not None:
                    clock = ts
            elif control == Control.ENDED:
                ended += (ts,)
            elif control == Control.OWN:
                own = ts if own is None else max(own, ts)
        bundles.sort(key=_bundle_seq)
        self.records = _record_columns(bundles, labelled)
        self.clock, self.ended, self.own_watermark = clock, frozenset(ended), own


def _record_columns(bundles: list[_LabelledBundle], labelled: bool) -> RecordColumns:
    """The records of `bundles` (sorted by order key) as one RecordColumns; the phase is
    a bundle's (its records are numbered in one phase)."""
    values: list[Any] = []
    stamps: list[Optional[int]] = []
    keys: list[Any] = []
    inputs: Optional[list[int]] = [] if labelled else None
    split = None
    for (seq, bundle_values, bundle_stamps, carried), input_label in bundles:
        if split is None and seq >> PHASE_SHIFT:
            split = len(values)
        count = len(bundle_values)
        values.extend(bundle_values)
        stamps.extend(repeat(None, count) if bundle_stamps is None else bundle_stamps)
        keys.extend(repeat(None, count) if carried is None else carried)
        if labelled:
            cast("list[int]", inputs).extend(repeat(input_label, count))
    return RecordColumns(values, stamps, keys, inputs, len(values) if split is None else split)


def bundle_values(blob: bytes) -> list[Any]:
    """The values of a data row's records, in order (a sink's rows)."""
    values: list[Any] = loads(blob)[1]
    return values


def bundle_columns(blob: bytes) -> tuple[list[Any], Optional[list[Optional[int]]]]:
    """(values, timestamps) of a data row's records, in order (timestamps None: no record
    has one)."""
    _, values, stamps, _ = loads(blob)
    return values, stamps


def _bundle_seq(bundle: _LabelledBundle) -> int:
    return bundle[0][0]
