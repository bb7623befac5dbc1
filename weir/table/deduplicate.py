"""Flink's deduplication: a Top-1 (`ROW_NUMBER() OVER (PARTITION BY k ORDER BY t) AS rn`
filtered on `rn = 1`) ordered by the event-time attribute `t` alone, which Flink plans
as its Deduplicate operator rather than a Rank, with other rules for ties and its own
changelog:

- keep the last row (`ORDER BY t DESC`): a row whose time is not before the kept row's
  replaces it (so of rows with equal times the later one wins); the first row of a key is
  +I, a replacement -U (the kept row) then +U (the new one);
- keep the first row (`ORDER BY t ASC`): insert-only. A key's row with the earliest time
  waits for the watermark to pass its time and is then emitted once (+I); a row behind
  the watermark when it arrives is late and dropped, and once a key's row is out, later
  rows are ignored.

(Flink 2.3's RowTimeDeduplicateFunction and RowTimeDeduplicateKeepFirstRowFunction,
checked with PyFlink 2.3. A Top-1 ordered by anything else stays a weir.table.rank.TopN.)
A key's rows of a micro-batch are taken together, with one read and one write of its
state: the changelog is the row-by-row one."""

from typing import Optional

from weir.common.typeinfo import Types
from weir.datastream.functions import KeyedProcessFunction
from weir.datastream.state import ValueStateDescriptor
from weir.table.changelog import INSERT, UPDATE_AFTER, UPDATE_BEFORE, Bundled
from weir.table.windowing import to_millis


def deduplication(node) -> Optional[str]:
    """'last' or 'first' where a Rank (weir.table.rank) is Flink's deduplication on event
    time, else None."""
    if node.rank_end != 1 or node.rank_start != 1 or len(node.order) != 1:
        return None
    expression, descending = node.order[0]
    if expression.op != "col":
        return None
    column = next((c for c in node.input.columns if c.name == expression.args[0]), None)
    if column is None or not column.time_attribute:
        return None
    return "last" if descending else "first"


def _state(name):
    return ValueStateDescriptor(name, Types.PICKLED_BYTE_ARRAY())


class KeepLastRow(Bundled, KeyedProcessFunction):
    """Per key, the row with the latest time (of equal times the last to arrive)."""

    def __init__(self, time_index: int, output_rank: bool):
        self.time_index, self.rank = time_index, (1,) if output_rank else ()

    def open(self, runtime_context):
        self.state = runtime_context.get_state(_state("last-row"))  # (time in ms, values)
        self._buffer = {}

    def _apply(self, records, ctx):
        kept = self.state.value()
        time, previous = (None, None) if kept is None else kept
        index, rank = self.time_index, self.rank
        for _, values in records:
            millis = to_millis(values[index])
            if previous is not None and millis < time:  # type: ignore[operator]  # (set with previous)
                continue
            if previous is None:
                yield INSERT, values + rank
            else:
                yield UPDATE_BEFORE, previous + rank
                yield UPDATE_AFTER, values + rank
            time, previous = millis, values
        self.state.update((time, previous))


class KeepFirstRow(KeyedProcessFunction):
    """Per key, the row with the earliest time, emitted once the watermark passes it."""

    def __init__(self, time_index: int, output_rank: bool):
        self.time_index, self.rank = time_index, (1,) if output_rank else ()

    def open(self, runtime_context):
        self.waiting = runtime_context.get_state(_state("waiting-row"))  # (ms, values)
        self.emitted = runtime_context.get_state(_state("emitted"))

    def process_element(self, record, ctx):
        values = record[1]
        millis = to_millis(values[self.time_index])
        timers = ctx.timer_service()
        if millis < timers.current_watermark() or self.emitted.value():
            return  # (late, or the key's row is out)
        waiting = self.waiting.value()
        if waiting is None or millis < waiting[0]:
            if waiting is not None:
                timers.delete_event_time_timer(waiting[0])
            timers.register_event_time_timer(millis)
            self.waiting.update((millis, values))

    def on_timer(self, timestamp, ctx):
        waiting = self.waiting.value()
        if waiting is None:
            return
        self.waiting.clear()
        self.emitted.update(True)
        yield INSERT, waiting[1] + self.rank
