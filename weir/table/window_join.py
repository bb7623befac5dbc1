"""Flink's window join: a join whose condition equates both inputs' `window_start` and
`window_end`, each the bounds of a window table function's (or a window aggregation's)
windows, both inputs insert-only. Each window's rows of each side wait, by join key,
until the watermark passes the window's end; then the window's pairs that meet the rest
of the condition are inserted, and for an outer join each row of the outer side(s)
that met none, padded with NULLs (insert-only, where a regular outer join retracts its
padded rows). A row whose window has ended is late and dropped.

Output order per key and window, as Flink's: each left row's pairs in the right rows'
order (a LEFT join's unmatched left row in its place), then a RIGHT or FULL join's
unmatched right rows.
"""

from weir.common.typeinfo import Types
from weir.datastream.functions import KeyedCoProcessFunction
from weir.datastream.state import ValueStateDescriptor
from weir.table.changelog import INSERT
from weir.table.windowing import to_millis


def window_join_ends(join, left_keys, right_keys):
    """The position in the join's equality keys (`left_keys`, `right_keys`: paired
    column names) of the windows' ends, where the keys pair both inputs' window_start
    and window_end and both inputs are insert-only; else None."""
    from weir.table.window_tvf import window_bound

    if join.left.changelog or join.right.changelog:
        return None
    pairs = [
        (window_bound(join.left, a, tvf=True), window_bound(join.right, b, tvf=True))
        for a, b in zip(left_keys, right_keys)
    ]
    if ("window_start", "window_start") not in pairs or ("window_end", "window_end") not in pairs:
        return None
    return pairs.index(("window_end", "window_end"))


class WindowJoin(KeyedCoProcessFunction):
    """One join key's rows of one window, both sides, joined when the window ends."""

    def __init__(self, ends, condition, widths, kind="inner"):
        self.ends, self.condition = ends, condition  # (each side's window end function)
        self.widths, self.kind = widths, kind

    def open(self, runtime_context):
        self.state = runtime_context.get_state(
            ValueStateDescriptor("window-sides", Types.PICKLED_BYTE_ARRAY())
        )

    def process_element1(self, record, ctx):
        self._keep(0, record[1], ctx)
        return ()

    def process_element2(self, record, ctx):
        self._keep(1, record[1], ctx)
        return ()

    def _keep(self, side, values, ctx):
        fires = to_millis(self.ends[side](values)) - 1
        if fires <= ctx.timer_service().current_watermark():
            return  # its window has ended: a late row
        sides = self.state.value()
        if sides is None:
            sides = ([], [])
            ctx.timer_service().register_event_time_timer(fires)
        sides[side].append(values)
        self.state.update(sides)

    def on_timer(self, timestamp, ctx):
        sides = self.state.value()
        if sides is None:
            return
        self.state.clear()
        lefts, rights = sides
        matched = [False] * len(rights)
        for left in lefts:
            paired = False
            for index, right in enumerate(rights):
                joined = left + right
                if self.condition is None or self.condition(joined) is True:
                    paired = matched[index] = True
                    yield INSERT, joined
            if not paired and self.kind in ("left", "full"):
                yield INSERT, left + (None,) * self.widths[1]
        if self.kind in ("right", "full"):
            for right, was_matched in zip(rights, matched):
                if not was_matched:
                    yield INSERT, (None,) * self.widths[0] + right
