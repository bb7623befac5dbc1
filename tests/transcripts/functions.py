"""Window functions, triggers and evictors the window transcripts use."""

from weir.datastream import (
    AggregateFunction,
    ProcessFunction,
    ProcessWindowFunction,
    WindowFunction,
)
from weir.datastream.state import ReducingStateDescriptor
from weir.datastream.window import Trigger, TriggerResult


def key_of(record):
    return record[0]


def add_values(a, b):
    return (a[0], a[1] + b[1])


class WindowList(ProcessWindowFunction):
    """(key, start, end, sorted values) per firing."""

    def process(self, key, context, elements):
        window = context.window()
        return [(key, window.start, window.end, sorted(v for _, v in elements))]


class ArrivalList(ProcessWindowFunction):
    """(key, values in arrival order) per firing: for windows without bounds (count)."""

    def process(self, key, context, elements):
        return [(key, [v for _, v in elements])]


class WithWindow(ProcessWindowFunction):
    """After reduce/aggregate: (key, start, end, the single pre-aggregated result)."""

    def process(self, key, context, elements):
        (result,) = list(elements)
        window = context.window()
        return [(key, window.start, window.end, result[1] if isinstance(result, tuple) else result)]


class CountApply(WindowFunction):
    def apply(self, key, window, inputs):
        return [(key, window.start, window.end, len(list(inputs)))]


class Average(AggregateFunction):
    def create_accumulator(self):
        return (0, 0)

    def add(self, value, accumulator):
        return (accumulator[0] + value[1], accumulator[1] + 1)

    def get_result(self, accumulator):
        return accumulator[0] / accumulator[1]

    def merge(self, a, b):
        return (a[0] + b[0], a[1] + b[1])


class EveryTwoAndAtEnd(Trigger):
    """Fires every second element and once more when the watermark passes the window."""

    def __init__(self):
        self.count = ReducingStateDescriptor("every-two", lambda a, b: a + b)

    def on_element(self, element, timestamp, window, ctx):
        ctx.register_event_time_timer(window.max_timestamp())
        state = ctx.get_partitioned_state(self.count)
        state.add(1)
        return TriggerResult.FIRE if state.get() % 2 == 0 else TriggerResult.CONTINUE

    def on_event_time(self, time, window, ctx):
        return TriggerResult.FIRE if time == window.max_timestamp() else TriggerResult.CONTINUE

    def on_processing_time(self, time, window, ctx):
        return TriggerResult.CONTINUE

    def clear(self, window, ctx):
        ctx.delete_event_time_timer(window.max_timestamp())
        ctx.get_partitioned_state(self.count).clear()


def value_delta(a, b):
    return abs(a[1] - b[1])


def zero_gap(element):
    return 0 if element[1] < 0 else 5


class WithTimestamp(ProcessFunction):
    """(value, its timestamp): lets a sink see output timestamps."""

    def process_element(self, value, ctx):
        yield (value, ctx.timestamp())
