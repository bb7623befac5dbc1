"""Group windows and over windows of the Table API on weir's event-time machinery.

A group window aggregation (`window(Tumble...).group_by(keys, w).select(...)`) is a
DataStream window of weir's (tumbling, sliding or session, on event time or, over a
PROCTIME() attribute, on processing time) whose function aggregates the window's rows:
one +I row per key and window, with the window's start, end and rowtime (end - 1 ms) as
TIMESTAMP(3), or, in processing time, its proctime (when it fired, a TIMESTAMP_LTZ(3)).
An over aggregation (`over_window(Over...).select(agg.over(w))`) buffers each
partition's rows until the watermark passes them, then emits them in time order with the
aggregates over their preceding rows or range (late rows are dropped, as in Flink).
"""

import datetime
import math
from typing import Any

from weir.common.time import Time
from weir.common.typeinfo import Types
from weir.datastream.functions import KeyedProcessFunction, ProcessWindowFunction
from weir.datastream.state import ValueStateDescriptor
from weir.datastream.window import (
    EventTimeSessionWindows,
    ProcessingTimeSessionWindows,
    SlidingEventTimeWindows,
    SlidingProcessingTimeWindows,
    TumblingEventTimeWindows,
    TumblingProcessingTimeWindows,
)
from weir.table import logical
from weir.table.aggregates import accumulators_of
from weir.table.changelog import INSERT

EPOCH = datetime.datetime(1970, 1, 1)


def to_datetime(millis: int) -> datetime.datetime:
    """A TIMESTAMP(3) value from epoch milliseconds (Flink keeps TIMESTAMP as UTC wall
    clock)."""
    return EPOCH + datetime.timedelta(milliseconds=millis)


def to_instant(millis: int) -> datetime.datetime:
    """A TIMESTAMP_LTZ(3) value (an instant, as PROCTIME() gives) from epoch ms."""
    return datetime.datetime.fromtimestamp(millis / 1000, datetime.timezone.utc)


def to_millis(value) -> int:
    """Epoch milliseconds of a TIMESTAMP (its wall clock as UTC) or a TIMESTAMP_LTZ."""
    if value.tzinfo is not None:
        value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
    delta = value - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


class WindowAggregate(logical.UnaryNode):
    """Keys, then one column per aggregate call, then the window's start, end, rowtime."""

    def __init__(self, columns, input, window, keys, calls):
        super().__init__(columns, input)
        self.window, self.keys, self.calls = window, keys, calls

    @property
    def changelog(self):
        return False

    def describe(self):
        return (
            f"GroupWindowAggregate(window=[{self.window.kind}], "
            f"select=[{', '.join(c.name for c in self.columns)}])"
        )


class OverAggregate(logical.UnaryNode):
    """The input's columns, then one column per aggregate call over the window."""

    def __init__(self, columns, input, window, keys, calls):
        super().__init__(columns, input)
        self.window, self.keys, self.calls = window, keys, calls

    def describe(self):
        kind, size = self.window.bound()
        return (
            f"OverAggregate(partitionBy=[...], {kind}=[{size}], "
            f"select=[{', '.join(c.name for c in self.columns)}])"
        )


def assigner_of(window, processing_time=False):
    """The window assigner of a group window, in event or processing time."""
    size = Time.milliseconds(window.size)
    kind: Any  # (the assigner class of the window's kind and time)
    if window.kind == "tumble":
        kind = TumblingProcessingTimeWindows if processing_time else TumblingEventTimeWindows
        return kind.of(size)
    if window.kind == "slide":
        kind = SlidingProcessingTimeWindows if processing_time else SlidingEventTimeWindows
        return kind.of(size, Time.milliseconds(window.slide))
    kind = ProcessingTimeSessionWindows if processing_time else EventTimeSessionWindows
    return kind.with_gap(size)


class WindowAggregateFunction(ProcessWindowFunction):
    """A window's aggregates. Sliding windows aggregate as Flink slices them: each slice
    (the greatest common divisor of size and slide) in arrival order, then the slices
    merged in time order (which decides a FLOAT sum's rounding)."""

    def __init__(self, accumulators, slice_ms=None, time_index=None, processing_time=False):
        self.accumulators = accumulators
        self.slice_ms, self.time_index = slice_ms, time_index
        self.processing_time = processing_time  # (the window's time: when it fires)

    def _accumulate(self, rows):
        accs = [a.create() for a in self.accumulators]
        for values in rows:
            accs = [a.accumulate(acc, values) for a, acc in zip(self.accumulators, accs)]
        return accs

    def process(self, key, context, elements):
        rows = [values for _, values in elements]
        if self.slice_ms is None:
            accs = self._accumulate(rows)
        else:
            slices: dict = {}
            for values in rows:
                slices.setdefault(to_millis(values[self.time_index]) // self.slice_ms, []).append(
                    values
                )
            accs = [a.create() for a in self.accumulators]
            for index in sorted(slices):
                accs = [
                    a.merge(acc, part)
                    for a, acc, part in zip(
                        self.accumulators, accs, self._accumulate(slices[index])
                    )
                ]
        window = context.window()
        time = (
            to_instant(context.current_processing_time())
            if self.processing_time
            else to_datetime(window.max_timestamp())
        )
        times = (to_datetime(window.start), to_datetime(window.end), time)
        yield (
            INSERT,
            tuple(key) + tuple(a.value(acc) for a, acc in zip(self.accumulators, accs)) + times,
        )


def aggregated(accumulators, window) -> tuple:
    """The aggregates of an over window's (time, values) rows."""
    accs = [a.create() for a in accumulators]
    for _, values in window:
        accs = [a.accumulate(acc, values) for a, acc in zip(accumulators, accs)]
    return tuple(a.value(acc) for a, acc in zip(accumulators, accs))


class OverFunction(KeyedProcessFunction):
    """Flink's row-time over aggregation: rows wait for the watermark, then are emitted in
    time order; `bound` is ('rows', n) or ('range', ms), with None for unbounded."""

    def __init__(self, accumulators, bound):
        self.accumulators = accumulators
        self.kind, self.size = bound

    def open(self, runtime_context):
        def state(name):
            return runtime_context.get_state(ValueStateDescriptor(name, Types.PICKLED_BYTE_ARRAY()))

        self.pending, self.kept = state("pending"), state("kept")

    def process_element(self, record, ctx):
        timestamp = ctx.timestamp()
        if timestamp <= ctx.timer_service().current_watermark():
            return  # late: dropped, as Flink's over aggregation does
        pending = self.pending.value() or {}
        pending.setdefault(timestamp, []).append(record[1])
        self.pending.update(pending)
        ctx.timer_service().register_event_time_timer(timestamp)

    def on_timer(self, timestamp, ctx):
        pending = self.pending.value() or {}
        rows = pending.pop(timestamp, [])
        self.pending.update(pending) if pending else self.pending.clear()
        kept = self.kept.value() or []
        if self.kind == "rows":
            for values in rows:
                kept.append((timestamp, values))
                window = kept if self.size is None else kept[-(self.size + 1) :]
                yield INSERT, values + self._aggregate(window)
                if self.size is not None:
                    kept = kept[-self.size :]
        else:
            kept.extend((timestamp, values) for values in rows)
            if self.size is not None:
                kept = [(t, v) for t, v in kept if t >= timestamp - self.size]
            results = self._aggregate(kept)
            for values in rows:
                yield INSERT, values + results
        self.kept.update(kept)

    def _aggregate(self, window) -> tuple:
        return aggregated(self.accumulators, window)


def plan_window_aggregate(planner, node: WindowAggregate):
    from weir.table.evaluate import compile_expression
    from weir.table.planner import KeyOf

    columns = node.input.columns
    keys = [compile_expression(k, columns).function for k in node.keys]
    accumulators = accumulators_of(node.calls, columns)
    window = node.window
    slice_ms = math.gcd(window.size, window.slide) if window.kind == "slide" else None
    time_index = [c.name for c in columns].index(window.time_field.args[0])
    proctime = columns[time_index].proctime
    return (
        planner.stream(node.input)
        .key_by(KeyOf(keys))
        .window(assigner_of(window, proctime))
        .process(WindowAggregateFunction(accumulators, slice_ms, time_index, proctime))
        .name("GroupWindowAggregate")
    )


class ProcTimeOverFunction(KeyedProcessFunction):
    """Flink's processing-time over aggregation: each row is emitted when it comes, with
    the aggregates over its partition's rows so far (unbounded), its last n rows and
    itself (ROWS), or the rows of the interval before the current processing time and
    itself (RANGE; Flink aggregates the rows of one millisecond together)."""

    def __init__(self, accumulators, bound):
        self.accumulators = accumulators
        self.kind, self.size = bound

    def open(self, runtime_context):
        self.kept = runtime_context.get_state(
            ValueStateDescriptor("kept", Types.PICKLED_BYTE_ARRAY())
        )

    def process_element(self, record, ctx):
        values = record[1]
        kept = self.kept.value()
        if self.size is None:  # (unbounded: the accumulators, kept)
            accs = kept if kept is not None else [a.create() for a in self.accumulators]
            accs = [a.accumulate(acc, values) for a, acc in zip(self.accumulators, accs)]
            self.kept.update(accs)
            yield INSERT, values + tuple(a.value(acc) for a, acc in zip(self.accumulators, accs))
            return
        now = ctx.timer_service().current_processing_time()
        kept = (kept or []) + [(now, values)]
        if self.kind == "rows":
            kept = kept[-(self.size + 1) :]
        else:
            kept = [(t, v) for t, v in kept if t >= now - self.size]
        yield INSERT, values + self._aggregate(kept)
        kept = kept[1:] if self.kind == "rows" and len(kept) > self.size else kept
        self.kept.update(kept) if kept else self.kept.clear()

    def _aggregate(self, window) -> tuple:
        return aggregated(self.accumulators, window)


def plan_over_aggregate(planner, node: OverAggregate):
    from weir.table.evaluate import compile_expression
    from weir.table.planner import KeyOf

    columns = node.input.columns
    keys = [compile_expression(k, columns).function for k in node.keys]
    accumulators = accumulators_of(node.calls, columns)
    order = node.window.order_field
    proctime = any(c.proctime for c in columns if order.op == "col" and c.name == order.args[0])
    function = ProcTimeOverFunction if proctime else OverFunction
    return (
        planner.stream(node.input)
        .key_by(KeyOf(keys))
        .process(function(accumulators, node.window.bound()))
        .name("OverAggregate")
    )
