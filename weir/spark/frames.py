"""The stream frame: how weir's records travel between Spark operators.

Records travel in bundles: one row carries a pickled list of (seq, value, timestamp)
records of one tag (main output, a side output) and, before a keyed operator, one key group.
Spark's per-row costs (shuffle, Arrow conversion, the row-by-row grouping of its Python
state worker) are then paid per bundle, not per record. `_ts` is the largest timestamp in
the bundle, all a watermark needs. The end of a bounded input is one row tagged END_TAG.
"""

import functools
import pickle
from collections import defaultdict

from weir.runtime.wire import END_OF_INPUT_TS

END_TAG = "\x00end"
TICK_TAG = "\x00tick"  # wakes a key group that has no input, for its processing-time timers
WM_TAG = "\x00wm"  # a scripted source's watermark for the next batch (in `_ts`)
CLOCK_TAG = "\x00clock"  # a scripted source's processing time for this batch (in `_ts`)
# The largest timestamp a source saw before its fused chain filtered records: what the
# watermark is computed from, as if the chain ran after the watermark node.
SEEN_TAG = "\x00seen"
STREAM_COLUMNS = ["_b", "_ts", "_tag"]
STREAM_SCHEMA_DDL = "_b binary, _ts long, _tag string"
KEYED_SCHEMA_DDL = STREAM_SCHEMA_DDL + ", _kg int"
MAX_BUNDLE_RECORDS = 20_000


@functools.lru_cache(maxsize=2)
def arrow_schema(keyed: bool):
    """The stream frame's Arrow schema (with `_kg` before a keyed operator). pyarrow is
    imported on first use: the driver-side process that Spark starts to plan a keyed
    operator's state imports this module, and needs no pyarrow."""
    import pyarrow as pa
    fields = [("_b", pa.binary()), ("_ts", pa.int64()), ("_tag", pa.string())]
    return pa.schema(fields + [("_kg", pa.int32())] if keyed else fields)


def is_control(tag) -> bool:
    """Control rows (end, ticks, clocks, watermarks, metrics) have tags starting with NUL."""
    return tag is not None and tag.startswith("\x00")


def dumps(value) -> bytes:
    return pickle.dumps(value, protocol=5)


loads = pickle.loads


def _max_ts(records):
    timestamps = [r[2] for r in records if r[2] is not None]
    return max(timestamps) if timestamps else None


class Bundler:
    """Groups (seq, value, timestamp) records into bundles by tag and key group."""

    def __init__(self, keyed: bool = False):
        self.keyed = keyed
        self.open = defaultdict(list)
        self.done = []
        self.buffered = 0

    def add(self, tag, key_group, record) -> None:
        bundle = self.open[(tag, key_group)]
        bundle.append(record)
        self.buffered += 1
        if len(bundle) >= MAX_BUNDLE_RECORDS:
            self.done.append((tag, key_group, bundle))
            self.open[(tag, key_group)] = []

    def add_all(self, tag, key_groups, records) -> None:
        """Adds records, each to its key group (key_groups None: all to key group 0)."""
        if key_groups is None:
            for start in range(0, len(records), MAX_BUNDLE_RECORDS):
                self.done.append((tag, 0, records[start:start + MAX_BUNDLE_RECORDS]))
        else:
            grouped = defaultdict(list)
            for key_group, record in zip(key_groups, records):
                grouped[key_group].append(record)
            self.done.extend((tag, kg, recs) for kg, recs in grouped.items())
        self.buffered += len(records)

    def add_end(self) -> None:
        self.done.append((END_TAG, 0, END_OF_INPUT_TS))

    def add_ticks(self, key_groups: int, clock=None) -> None:
        """A tick for every key group; `clock` is a scripted processing time, if any."""
        self.done.extend((TICK_TAG, key_group, clock) for key_group in range(key_groups))

    def add_control(self, tag: str, timestamp: int) -> None:
        self.done.append((tag, 0, timestamp))

    def to_batch(self):
        """Everything added so far, as one Arrow batch; the bundler is then empty."""
        import pyarrow as pa
        blobs, timestamps, tags, groups = self.to_columns()
        arrays = [pa.array(blobs, pa.binary()), pa.array(timestamps, pa.int64()),
                  pa.array(tags, pa.string())]
        if self.keyed:
            arrays.append(pa.array(groups, pa.int32()))
        return pa.RecordBatch.from_arrays(arrays, schema=arrow_schema(self.keyed))

    def to_columns(self) -> tuple:
        """Everything added so far as lists (blobs, timestamps, tags, key groups), a row
        per bundle or control row; the bundler is then empty."""
        bundles = self.done + [(t, kg, r) for (t, kg), r in self.open.items() if r]
        self.done, self.open, self.buffered = [], defaultdict(list), 0
        blobs, timestamps, tags, groups = [], [], [], []
        for tag, key_group, payload in bundles:
            if is_control(tag):  # the payload of a control row is its timestamp
                blobs.append(None)
                timestamps.append(payload)
            else:
                blobs.append(dumps(payload))
                timestamps.append(_max_ts(payload))
            tags.append(tag)
            groups.append(key_group)
        return blobs, timestamps, tags, groups

