"""Window aggregation straight over TUMBLE, HOP or CUMULATE, as Flink's slicing window
operator computes it: per group key (the GROUP BY keys other than window_start and
window_end), rows accumulate into slices (the greatest common divisor of the window's
size and step); when the watermark passes a window's end, the window's row is its slices
merged in time order. A HOP row then costs one accumulation, not one per window it is in
(weir.table.window_tvf's general plan repeats it per window).

Taken where the aggregation reads the window table function directly, groups by
window_start and window_end (and other columns), and its aggregates are built-in ones
(they merge). Late rows (every window of theirs has fired) are dropped, as in Flink.
"""

import math

from weir.common.typeinfo import Types
from weir.datastream.functions import KeyedProcessFunction
from weir.datastream.state import ValueStateDescriptor
from weir.table.changelog import INSERT
from weir.table.windowing import to_datetime, to_millis

WINDOW_COLUMNS = ("window_start", "window_end", "window_time")


class Windows:
    """The windows of a TUMBLE, HOP or CUMULATE (sizes in ms) and their slices."""

    def __init__(self, kind, size, step):
        self.kind, self.size = kind, size
        self.step = size if kind == "tumble" else step
        self.slice = self.step if kind == "cumulate" else math.gcd(size, self.step)

    def ends(self, slice_start):
        """The ends of the windows a slice is in."""
        slice_end = slice_start + self.slice
        if self.kind == "cumulate":
            start = slice_start - slice_start % self.size
            return range(slice_end, start + self.size + 1, self.step)
        first = -(-slice_end // self.step) * self.step
        return range(first, slice_start + self.size + 1, self.step)

    def start_of(self, end):
        if self.kind == "cumulate":
            return (end - 1) - (end - 1) % self.size
        return end - self.size

    def kept_after(self, end):
        """The first slice start a window ending after `end` may still need."""
        if self.kind == "cumulate":
            return end if end % self.size == 0 else self.start_of(end)
        return end + self.step - self.size


def sliceable(node, tvf) -> bool:
    """Whether the window aggregate `node` over the window table function `tvf` can
    slice: its own input is the function, whose size is a whole number of steps, the
    window columns appear only as plain keys, and every aggregate is built-in."""
    if node.input is not tvf or tvf.kind not in ("tumble", "hop", "cumulate"):
        return False
    if tvf.kind != "tumble" and tvf.size % tvf.step:
        return False  # (windows that are no whole number of steps: one row per window)
    keys = [k for k in node.keys if not (k.op == "col" and k.args[0] in WINDOW_COLUMNS)]
    if any(_names_window(k) for k in keys) or any(
        not isinstance(name, str) or _names_window(args) for name, args in node.calls
    ):
        return False
    return True


def _names_window(expr) -> bool:
    if isinstance(expr, (list, tuple)):
        return any(_names_window(e) for e in expr)
    if not hasattr(expr, "op"):
        return False
    if expr.op == "col":
        return expr.args[0] in WINDOW_COLUMNS
    return any(_names_window(a) for a in expr.args)


class SlicedWindowAggregate(KeyedProcessFunction):
    """One group key's slices; emits each window's row (the keys in the GROUP BY's
    order, window_start/window_end/window_time filled in, then the aggregates)."""

    def __init__(self, windows: Windows, time_index, key_parts, accumulators):
        self.windows, self.time_index = windows, time_index
        self.key_parts = key_parts  # per GROUP BY key: a function of the row, or a column
        self.accumulators = accumulators

    def open(self, runtime_context):
        self.state = runtime_context.get_state(
            ValueStateDescriptor("slices", Types.PICKLED_BYTE_ARRAY())
        )

    def process_element(self, record, ctx):
        _, values = record
        timestamp = to_millis(values[self.time_index])
        start = timestamp - timestamp % self.windows.slice
        ends = self.windows.ends(start)
        timers = ctx.timer_service()
        if ends[-1] - 1 <= timers.current_watermark():
            return  # every window of the row has fired: a late row
        stored = self.state.value()
        if stored is None:
            stored = (tuple(p(values) for p in self.key_parts if callable(p)), {})
        slices = stored[1]
        accs = slices.get(start)
        if accs is None:
            accs = [a.create() for a in self.accumulators]
            for end in ends:
                if end - 1 > timers.current_watermark():
                    timers.register_event_time_timer(end - 1)
        slices[start] = [a.accumulate(acc, values) for a, acc in zip(self.accumulators, accs)]
        self.state.update(stored)

    def on_timer(self, timestamp, ctx):
        stored = self.state.value()
        if stored is None:
            return
        keys, slices = stored
        end = timestamp + 1
        start = self.windows.start_of(end)
        inside = sorted(s for s in slices if start <= s < end)
        if inside:
            accs = [a.create() for a in self.accumulators]
            for index in inside:
                accs = [
                    a.merge(acc, part)
                    for a, acc, part in zip(self.accumulators, accs, slices[index])
                ]
            yield (
                INSERT,
                self._keys(keys, start, end)
                + tuple(a.value(acc) for a, acc in zip(self.accumulators, accs)),
            )
        kept = self.windows.kept_after(end)
        for index in [s for s in slices if s < kept]:
            del slices[index]
        if slices:
            self.state.update(stored)
        else:
            self.state.clear()

    def _keys(self, keys, start, end):
        window = {
            "window_start": to_datetime(start),
            "window_end": to_datetime(end),
            "window_time": to_datetime(end - 1),
        }
        given = iter(keys)
        return tuple(next(given) if callable(part) else window[part] for part in self.key_parts)


def plan_sliced(planner, node, tvf):
    from weir.table.aggregates import accumulators_of
    from weir.table.evaluate import compile_expression
    from weir.table.planner import KeyOf

    columns = tvf.columns  # (the input's columns, then the window columns)
    parts = [
        k.args[0]
        if k.op == "col" and k.args[0] in WINDOW_COLUMNS
        else compile_expression(k, columns).function
        for k in node.keys
    ]
    group = [p for p in parts if callable(p)]
    accumulators = accumulators_of(node.calls, columns)
    time_index = [c.name for c in tvf.input.columns].index(tvf.time_column)
    windows = Windows(tvf.kind, tvf.size, tvf.step)
    return (
        planner.stream(tvf.input)
        .key_by(KeyOf(group))
        .process(SlicedWindowAggregate(windows, time_index, parts, accumulators))
        .name("SlicingWindowAggregate")
    )
