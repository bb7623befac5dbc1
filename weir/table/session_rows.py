"""SESSION's window table function on its own (`TABLE(SESSION(TABLE t [PARTITION BY
keys], DESCRIPTOR(ts), gap))` not right under a window aggregation by its partition
keys): each row with the `window_start`, `window_end` and `window_time` of its session,
emitted once the watermark passes the session's end.

Per partition (the whole table without PARTITION BY), a row at time t opens the window
[t, t + gap); windows that overlap or touch merge into one session (Flink's merging
session windows). A row whose merged session has ended by the watermark is late and
dropped, as in Flink's window operator. A session's rows come out in arrival order
(Flink's order among the rows of merged windows is its state's).
"""

from weir.common.typeinfo import Types
from weir.datastream.functions import KeyedProcessFunction
from weir.datastream.state import ValueStateDescriptor
from weir.table.changelog import INSERT
from weir.table.windowing import to_datetime, to_millis


class SessionRows(KeyedProcessFunction):
    """One partition's open sessions, [[start, end, [(arrival, values)]]] sorted by
    start, and the arrival number of its next row."""

    def __init__(self, time_index: int, gap: int):
        self.time_index, self.gap = time_index, gap

    def open(self, runtime_context):
        self.state = runtime_context.get_state(
            ValueStateDescriptor("sessions", Types.PICKLED_BYTE_ARRAY())
        )

    def process_element(self, record, ctx):
        _, values = record
        arrival, sessions = self.state.value() or (0, [])
        start = to_millis(values[self.time_index])
        session: list = [start, start + self.gap, [(arrival, values)]]
        kept = []
        for other in sessions:
            if other[0] <= session[1] and other[1] >= session[0]:  # (Flink's intersects)
                session = [
                    min(other[0], session[0]),
                    max(other[1], session[1]),
                    sorted(other[2] + session[2], key=lambda row: row[0]),
                ]
            else:
                kept.append(other)
        if session[1] - 1 <= ctx.timer_service().current_watermark():
            return  # late: its session has ended
        kept.append(session)
        self.state.update((arrival + 1, sorted(kept, key=lambda s: s[0])))
        ctx.timer_service().register_event_time_timer(session[1] - 1)

    def on_timer(self, timestamp, ctx):
        arrival, sessions = self.state.value() or (0, [])
        ended = [s for s in sessions if s[1] - 1 <= timestamp]
        if not ended:
            return  # (the timer of a session that has merged into a later one)
        open_ = [s for s in sessions if s[1] - 1 > timestamp]
        if open_:
            self.state.update((arrival, open_))
        else:
            self.state.clear()
        for start, end, rows in ended:
            bounds = (to_datetime(start), to_datetime(end), to_datetime(end - 1))
            for _, values in rows:
                yield INSERT, values + bounds


def plan_session_rows(planner, node, time_index: int):
    from weir.table.evaluate import compile_expression
    from weir.table.expressions import col
    from weir.table.planner import KeyOf

    columns = node.input.columns
    keys = [compile_expression(col(k), columns).function for k in node.partition]
    return (
        planner.stream(node.input)
        .key_by(KeyOf(keys))
        .process(SessionRows(time_index, node.size))
        .name("WindowTableFunction")
    )
