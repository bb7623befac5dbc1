"""Windowed sensor statistics (book chapter 6: window operators, late data).

* average temperature per sensor in 5 s tumbling event-time windows (`aggregate`);
* min and max temperature per window with a ProcessWindowFunction (all readings kept);
* the same min/max computed incrementally (`reduce`) and finished by a ProcessWindowFunction
  that adds the window end (one value per window kept);
* late readings redirected to a side output;
* allowed lateness: a window fires again, marked as an update, for each late reading.

Run: `.venv/bin/python examples/windowed_temperatures.py [number of readings]`
"""

import sys

from sensors import sensor_source, sensor_watermarks

from weir.common import Time, Types
from weir.datastream import (
    AggregateFunction,
    OutputTag,
    ProcessWindowFunction,
    StreamExecutionEnvironment,
)
from weir.datastream.state import ValueStateDescriptor
from weir.datastream.window import TumblingEventTimeWindows

WINDOW = Time.seconds(5)
LATE_READINGS = OutputTag("late-readings")


def sensor_id(reading):
    return reading.id


class AverageTemperature(AggregateFunction):
    """(sum, count) accumulator; the result is (sensor id, average)."""

    def create_accumulator(self):
        return (None, 0.0, 0)

    def add(self, reading, accumulator):
        return (reading.id, accumulator[1] + reading.temperature, accumulator[2] + 1)

    def get_result(self, accumulator):
        return (accumulator[0], round(accumulator[1] / accumulator[2], 2))

    def merge(self, a, b):
        return (a[0] or b[0], a[1] + b[1], a[2] + b[2])


class HighAndLowTemperature(ProcessWindowFunction):
    """(id, min, max, window end) from all the window's readings."""

    def process(self, key, context, readings):
        temperatures = [r.temperature for r in readings]
        yield (key, min(temperatures), max(temperatures), context.window().end)


def to_min_max(reading):
    return (reading.id, reading.temperature, reading.temperature)


def min_max(a, b):
    return (a[0], min(a[1], b[1]), max(a[2], b[2]))


class AssignWindowEnd(ProcessWindowFunction):
    """Finishes the incremental min/max: (id, min, max, window end)."""

    def process(self, key, context, min_maxes):
        ((sensor, low, high),) = min_maxes
        yield (sensor, low, high, context.window().end)


class UpdatingWindowCount(ProcessWindowFunction):
    """Counts a window's readings; later firings (late readings) are marked as updates."""

    def process(self, key, context, readings):
        fired = context.window_state().get_state(ValueStateDescriptor("fired", Types.BOOLEAN()))
        kind = "update" if fired.value() else "first"
        fired.update(True)
        yield (key, context.window().end, len(list(readings)), kind)

    def clear(self, context):
        context.window_state().get_state(ValueStateDescriptor("fired", Types.BOOLEAN())).clear()


def first_field(value):
    return value[0]


def tumbling(stream, key=sensor_id):
    return stream.key_by(key).window(TumblingEventTimeWindows.of(WINDOW))


def average_temperatures(readings):
    return tumbling(readings).aggregate(AverageTemperature())


def min_max_with_process(readings):
    return tumbling(readings).process(HighAndLowTemperature())


def min_max_incremental(readings):
    return tumbling(readings.map(to_min_max), first_field).reduce(
        min_max, window_function=AssignWindowEnd()
    )


def counts_with_late_data(readings, allowed_lateness_ms=0):
    """Window counts; late readings (beyond the lateness) go to LATE_READINGS."""
    return (
        tumbling(readings)
        .allowed_lateness(allowed_lateness_ms)
        .side_output_late_data(LATE_READINGS)
        .process(UpdatingWindowCount())
    )


def main(count: int = 2000, env=None):
    if env is None:
        env = StreamExecutionEnvironment.get_execution_environment()
    readings = env.from_source(sensor_source(count), sensor_watermarks(), "sensors")
    average_temperatures(readings).print("avg")
    min_max_incremental(readings).print("min/max")
    return env.execute("windowed temperatures")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
