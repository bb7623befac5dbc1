"""Flink SQL's window table functions and window aggregation:
`TABLE(TUMBLE(TABLE t, DESCRIPTOR(ts), size))`, `HOP(..., slide, size)` and
`CUMULATE(..., step, size)` add `window_start`, `window_end` and `window_time` to each
row (a row of HOP or CUMULATE is repeated for each of its windows); a GROUP BY over
`window_start, window_end` then emits each group once, when the watermark passes the
window's end (rows coming after that are late and dropped, as in Flink). Over a
PROCTIME() attribute, windows are by the rows' processing time and each group is emitted
when the processing time passes the window's end (a bounded input that ends first
emits none, as Flink's)."""

from weir.common.typeinfo import Types
from weir.datastream.functions import FlatMapFunction, KeyedProcessFunction
from weir.datastream.state import ValueStateDescriptor
from weir.table import logical
from weir.table.changelog import INSERT
from weir.table.evaluate import Column
from weir.table.types import DataTypes
from weir.table.windowing import to_datetime, to_instant, to_millis

WINDOW_COLUMNS = ("window_start", "window_end", "window_time")


class WindowTvf(logical.UnaryNode):
    """The input's columns and the three window columns; `kind` tumble, hop or cumulate;
    sizes in milliseconds (`step`: HOP's slide or CUMULATE's step)."""

    def __init__(
        self,
        columns,
        input,
        kind,
        time_column,
        size,
        step=None,
        partition=(),
        processing_time=False,
    ):
        super().__init__(columns, input)
        self.kind, self.time_column = kind, time_column
        self.size, self.step = size, step
        self.partition = list(partition)  # SESSION's partition keys (column names)
        self.processing_time = processing_time  # (over a PROCTIME() attribute)

    def describe(self):
        return (
            f"WindowTableFunction(window=[{self.kind.upper()}(time_col="
            f"[{self.time_column}], size=[{self.size} ms])])"
        )


def window_tvf(node, kind, time_column, size, step=None, partition=()) -> WindowTvf:
    names = [c.name for c in node.columns]
    for key in partition:
        if key not in names:
            raise ValueError(
                f"SESSION's PARTITION BY names no column of its table: '{key}' "
                f"(columns: {', '.join(names)})"
            )
    column = next((c for c in node.columns if c.name == time_column), None)
    if column is None or not (column.time_attribute or column.proctime):
        raise ValueError(
            f"{kind.upper()}'s DESCRIPTOR must name a time attribute of the "
            f"table (a column with a WATERMARK, or PROCTIME()), got "
            f"'{time_column}'"
        )
    if node.changelog:
        raise ValueError(f"{kind.upper()} takes an insert-only table")
    kept = [Column(c.name, c.data_type) for c in node.columns]  # the rowtime is window_time
    windows = [
        Column("window_start", DataTypes.TIMESTAMP(3, False)),
        Column("window_end", DataTypes.TIMESTAMP(3, False)),
        Column("window_time", DataTypes.TIMESTAMP_LTZ(3, False), False, True)
        if column.proctime
        else Column("window_time", DataTypes.TIMESTAMP(3, False), True),
    ]
    return WindowTvf(
        kept + windows, node, kind, time_column, size, step, partition, column.proctime
    )


def windows_of(kind, timestamp, size, step):
    """(start, end) of each window of a row at `timestamp` ms."""
    if kind == "tumble":
        start = timestamp - timestamp % size
        return [(start, start + size)]
    if kind == "hop":
        last = timestamp - timestamp % step
        first = last - ((size - 1) // step) * step
        return [(s, s + size) for s in range(first, last + 1, step) if s <= timestamp < s + size]
    start = timestamp - timestamp % size
    first_end = start + step * (1 + (timestamp - start) // step)
    return [(start, end) for end in range(first_end, start + size + 1, step)]


class WindowRows(FlatMapFunction):
    """A row with each of its windows' start, end and time (end - 1 ms; in processing
    time, that instant as a TIMESTAMP_LTZ)."""

    def __init__(self, kind, time_index, size, step, processing_time=False):
        self.kind, self.time_index, self.size, self.step = kind, time_index, size, step
        self.time_of = to_instant if processing_time else to_datetime

    def flat_map(self, record):
        kind, values = record
        timestamp = to_millis(values[self.time_index])
        for start, end in windows_of(self.kind, timestamp, self.size, self.step):
            yield kind, values + (to_datetime(start), to_datetime(end), self.time_of(end - 1))


def plan_window_tvf(planner, node: WindowTvf):
    index = [c.name for c in node.input.columns].index(node.time_column)
    if node.kind == "session":
        if node.processing_time:
            from weir.table.evaluate import not_supported

            not_supported(
                "a SESSION window table function's rows over a processing-time "
                "attribute (its window aggregation runs)"
            )
        from weir.table.session_rows import plan_session_rows

        return plan_session_rows(planner, node, index)
    return (
        planner.stream(node.input)
        .flat_map(WindowRows(node.kind, index, node.size, node.step, node.processing_time))
        .name("WindowTableFunction")
    )


class WindowAggregate(logical.UnaryNode):
    """GROUP BY window_start, window_end (and keys) over a window table function: the
    keys, then one column per aggregate call; insert-only."""

    def __init__(self, columns, input, keys, calls, end_index):
        super().__init__(columns, input)
        self.keys, self.calls, self.end_index = keys, calls, end_index

    @property
    def changelog(self):
        return False

    def describe(self):
        return f"WindowAggregate(select=[{', '.join(c.name for c in self.columns)}])"


def tvf_below(node):
    """The window table function `node` is, or is over through projections and
    filters, else None."""
    while isinstance(node, logical.Calc):
        node = node.input
    return node if isinstance(node, WindowTvf) else None


def reads_window_tvf(node) -> bool:
    """Whether `node`'s window_start/window_end come from a window table function."""
    return tvf_below(node) is not None


def window_bound(node, name, tvf=False):
    """'window_start' or 'window_end' where column `name` of `node` is a window
    aggregation's window_start or window_end passed on unchanged (`tvf`: or a window
    table function's), else None."""
    while type(node) is logical.Calc:
        names = [c.name for c in node.columns]
        expr = node.projections[names.index(name)] if name in names else None
        while expr is not None and expr.op == "alias":
            expr = expr.args[0]
        if expr is None or expr.op != "col":
            return None
        node, name = node.input, expr.args[0]
    if tvf and isinstance(node, WindowTvf):
        return name if name in ("window_start", "window_end") else None
    if not isinstance(node, WindowAggregate):
        return None
    index = [c.name for c in node.columns].index(name)
    key = node.keys[index] if index < len(node.keys) else None
    while key is not None and key.op == "alias":
        key = key.args[0]
    if key is None or key.op != "col" or key.args[0] not in ("window_start", "window_end"):
        return None
    return key.args[0]


class WindowAggregateFunction(KeyedProcessFunction):
    """One group of one window: accumulates its rows until the watermark passes the
    window's end, then emits the group's row once."""

    def __init__(self, key_functions, accumulators, end_index, processing_time=False):
        self.key_functions, self.accumulators = key_functions, accumulators
        self.end_index, self.processing_time = end_index, processing_time

    def open(self, runtime_context):
        self.state = runtime_context.get_state(
            ValueStateDescriptor("window", Types.PICKLED_BYTE_ARRAY())
        )

    def process_element(self, record, ctx):
        kind, values = record
        keys = tuple(f(values) for f in self.key_functions)
        fires = to_millis(keys[self.end_index]) - 1
        timers = ctx.timer_service()
        if not self.processing_time and fires <= timers.current_watermark():
            return  # the window has fired: a late row
        stored = self.state.value()
        accs = stored[1] if stored else [a.create() for a in self.accumulators]
        accs = [a.accumulate(acc, values) for a, acc in zip(self.accumulators, accs)]
        self.state.update((keys, accs))
        if stored is None and self.processing_time:
            timers.register_processing_time_timer(fires)
        elif stored is None:
            timers.register_event_time_timer(fires)

    def on_timer(self, timestamp, ctx):
        stored = self.state.value()
        if stored is None:
            return
        keys, accs = stored
        self.state.clear()
        yield INSERT, keys + tuple(a.value(acc) for a, acc in zip(self.accumulators, accs))


def plan_window_aggregate(planner, node: WindowAggregate):
    from weir.table.aggregates import accumulators_of
    from weir.table.evaluate import compile_expression
    from weir.table.planner import KeyOf
    from weir.table.window_slicing import plan_sliced, sliceable

    processing_time = in_processing_time(node)
    if isinstance(node.input, WindowTvf) and not processing_time and sliceable(node, node.input):
        return plan_sliced(planner, node, node.input)
    columns = node.input.columns
    keys = [compile_expression(k, columns).function for k in node.keys]
    accumulators = accumulators_of(node.calls, columns)
    return (
        planner.stream(node.input)
        .key_by(KeyOf(keys))
        .process(WindowAggregateFunction(keys, accumulators, node.end_index, processing_time))
        .name("WindowAggregate")
    )


def in_processing_time(node) -> bool:
    """Whether a window aggregation's windows are a processing-time window table
    function's (through projections and filters)."""
    below = tvf_below(node.input)
    return below is not None and below.processing_time
