"""Flink's window Top-N and window deduplication: a Top-N (`ROW_NUMBER() OVER (PARTITION
BY window_start, window_end, ... ORDER BY ...)` kept where it is at most N) whose
partition has both bounds of a window table function's windows, over that function's
rows or over a window aggregation's. Each window's rows wait until the watermark passes
the window's end; then its best N are inserted once, ranked (insert-only, where a Top-N
over other partitions gives a changelog).

Ties keep arrival order (Flink's TopNBuffer), but a deduplication keeping the last row
(ORDER BY the time attribute DESC, N = 1) keeps the last of equal times to arrive, as
Flink's window deduplication does. A row whose window has ended is late and dropped.
"""

import functools

from weir.common.typeinfo import Types
from weir.datastream.functions import KeyedProcessFunction
from weir.datastream.state import ValueStateDescriptor
from weir.table.changelog import INSERT
from weir.table.sort import compare
from weir.table.windowing import to_millis


def window_end_of(rank):
    """The position in `rank.partition` (a Rank's) of its window's end, where the
    partition has both bounds of one window table function's (or window aggregation's)
    windows; else None."""
    from weir.table.window_tvf import window_bound

    bounds = [
        window_bound(rank.input, p.args[0], tvf=True) if p.op == "col" else None
        for p in rank.partition
    ]
    if "window_start" in bounds and "window_end" in bounds:
        return bounds.index("window_end")
    return None


class WindowTopN(KeyedProcessFunction):
    """One partition of one window: its rows (the best `rank_end` kept as it grows), then,
    when the watermark passes the window's end, its best ranked and inserted."""

    def __init__(
        self,
        end_function,
        sort_functions,
        directions,
        rank_end,
        output_rank,
        ties_last=False,
        rank_start=1,
    ):
        self.end_function, self.sort_functions = end_function, sort_functions
        self.directions, self.rank_end = directions, rank_end
        self.output_rank, self.ties_last = output_rank, ties_last
        self.rank_start = rank_start

    def open(self, runtime_context):
        self.state = runtime_context.get_state(
            ValueStateDescriptor("window-rows", Types.PICKLED_BYTE_ARRAY())
        )

    def process_element(self, record, ctx):
        values = record[1]
        fires = to_millis(self.end_function(values)) - 1
        if fires <= ctx.timer_service().current_watermark():
            return  # its window has ended: a late row
        arrival, rows = self.state.value() or (0, [])
        rows.append((tuple(f(values) for f in self.sort_functions), arrival, values))  # type: ignore[arg-type]  # (mypy: [] is list[Never])
        if len(rows) > 2 * self.rank_end:  # (the rest can never rank)
            rows = self._best(rows)
        self.state.update((arrival + 1, rows))
        if arrival == 0:
            ctx.timer_service().register_event_time_timer(fires)

    def on_timer(self, timestamp, ctx):
        stored = self.state.value()
        if stored is None:
            return
        self.state.clear()
        best = self._best(stored[1])[self.rank_start - 1 :]
        for rank, (_, _, values) in enumerate(best, self.rank_start):
            yield INSERT, values + ((rank,) if self.output_rank else ())

    def _best(self, rows):
        return sorted(rows, key=functools.cmp_to_key(self._compare))[: self.rank_end]

    def _compare(self, a, b):
        order = compare(a[0], b[0], self.directions)
        if order:
            return order
        return (b[1] - a[1]) if self.ties_last else (a[1] - b[1])


def plan_window_rank(planner, node, end_position: int):
    from weir.table.deduplicate import deduplication
    from weir.table.evaluate import compile_expression
    from weir.table.planner import KeyOf

    columns = node.input.columns
    partition = [compile_expression(p, columns).function for p in node.partition]
    order = [compile_expression(e, columns).function for e, _ in node.order]
    directions = [descending for _, descending in node.order]
    return (
        planner.stream(node.input)
        .key_by(KeyOf(partition))
        .process(
            WindowTopN(
                partition[end_position],
                order,
                directions,
                node.rank_end,
                node.output_rank,
                ties_last=deduplication(node) == "last",
                rank_start=node.rank_start,
            )
        )
        .name("WindowRank")
    )
