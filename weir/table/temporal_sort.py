"""Flink's temporal sort: a streaming `ORDER BY` whose first key is the event-time
attribute, ascending (then any other keys), and the Table API's `order_by` likewise.
Rows wait in state by their time; when the watermark passes a time, its rows come out
(insert-only), ordered by the other keys (ties in arrival order). A row whose time is not
after the last time that came out is late and dropped (Flink 2.3's RowTimeSortOperator).
All rows go through one key, as Flink's operator runs at parallelism 1. A streaming
`ORDER BY` of anything else is refused with Flink's error (weir.table.sort)."""

from weir.common.typeinfo import Types
from weir.datastream.functions import KeyedProcessFunction
from weir.datastream.state import MapStateDescriptor, ValueStateDescriptor
from weir.table import logical
from weir.table.changelog import INSERT
from weir.table.sort import STREAMING_SORT, in_order
from weir.table.windowing import to_millis


class TemporalSort(logical.UnaryNode):
    """The input's rows in `order` ([(expression, descending)]): its first key the
    event-time column `time_index`, ascending."""

    def __init__(self, columns, input, time_index, order, nulls_high=False):
        super().__init__(columns, input)
        self.time_index, self.order, self.nulls_high = time_index, list(order), nulls_high

    @property
    def changelog(self):
        return False

    def describe(self):
        keys = ", ".join(f"{e!r} {'DESC' if d else 'ASC'}" for e, d in self.order)
        return f"TemporalSort(orderBy=[{keys}])"


def temporal_sort(node, order, nulls_high=False):
    """A TemporalSort of `node`'s rows in `order`, or Flink's error where the order's
    first key is not `node`'s event-time attribute, ascending."""
    from weir.table.evaluate import not_supported

    first, descending = order[0] if order else (None, False)
    times = [i for i, c in enumerate(node.columns) if c.time_attribute and not c.proctime]
    if (
        first is None
        or first.op != "col"
        or descending
        or not any(node.columns[i].name == first.args[0] for i in times)
    ):
        raise ValueError(STREAMING_SORT)
    if node.changelog:
        not_supported("ORDER BY a time attribute over a changelog (an aggregation's updates)")
    index = next(i for i in times if node.columns[i].name == first.args[0])
    return TemporalSort(list(node.columns), node, index, order, nulls_high)


class RowTimeSort(KeyedProcessFunction):
    """Rows by time until the watermark passes it; then that time's rows, sorted by the
    other keys."""

    def __init__(self, time_index, sort_functions, directions, nulls_high):
        self.time_index, self.nulls_high = time_index, nulls_high
        self.sort_functions, self.directions = sort_functions, directions

    def open(self, runtime_context):
        self.rows = runtime_context.get_map_state(
            MapStateDescriptor("rows", Types.LONG(), Types.PICKLED_BYTE_ARRAY())
        )
        self.last_out = runtime_context.get_state(ValueStateDescriptor("last-out", Types.LONG()))

    def process_element(self, record, ctx):
        values = record[1]
        millis = to_millis(values[self.time_index])
        last_out = self.last_out.value()
        if last_out is not None and millis <= last_out:
            return  # (late: its time has come out)
        waiting = self.rows.get(millis)
        if waiting is None:
            ctx.timer_service().register_event_time_timer(millis)
        self.rows.put(millis, (waiting or []) + [values])

    def on_timer(self, timestamp, ctx):
        rows = self.rows.get(timestamp) or []
        self.rows.remove(timestamp)
        self.last_out.update(timestamp)
        if self.sort_functions:
            rows = in_order(rows, self.sort_functions, self.directions, self.nulls_high)
        for values in rows:
            yield INSERT, values


def plan_temporal_sort(planner, node: TemporalSort):
    from weir.table.evaluate import compile_expression
    from weir.table.planner import KeyOf

    columns = node.input.columns
    rest = node.order[1:]
    order = [compile_expression(e, columns).function for e, _ in rest]
    return (
        planner.stream(node.input)
        .key_by(KeyOf([]))
        .process(RowTimeSort(node.time_index, order, [d for _, d in rest], node.nulls_high))
        .name("TemporalSort")
    )
