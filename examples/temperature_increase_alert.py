"""Monotonic temperature increase alerts with processing-time timers (book chapter 6).

The book's `TempIncreaseAlertFunction`: per sensor, the first increase of the temperature
registers a processing-time timer one second later; a decrease deletes it. If the timer
fires, the temperature has not decreased for one second and an alert is emitted.

In weir, processing time is the clock of the micro-batches: a processing-time timer fires
in the first micro-batch of its key group that starts at or after the timer's time. The
readings are therefore produced at a limited rate (10 readings per second and sensor, the
pace of their event timestamps), so that one second of processing time spans ten readings.

Run: `.venv/bin/python examples/temperature_increase_alert.py [number of readings]`
"""

import sys

from sensors import sensor_source, sensor_watermarks

from weir.common import Types
from weir.datastream import KeyedProcessFunction, StreamExecutionEnvironment
from weir.datastream.state import ValueStateDescriptor

INTERVAL_MS = 1000


class TempIncreaseAlertFunction(KeyedProcessFunction):
    """Emits an alert when a sensor's temperature rises for a second without dropping."""

    def __init__(self):
        self.last_temp = None
        self.current_timer = None

    def open(self, runtime_context):
        self.last_temp = runtime_context.get_state(ValueStateDescriptor("lastTemp", Types.DOUBLE()))
        self.current_timer = runtime_context.get_state(ValueStateDescriptor("timer", Types.LONG()))

    def process_element(self, reading, ctx):
        prev_temp = self.last_temp.value()
        self.last_temp.update(reading.temperature)
        current_timer = self.current_timer.value()
        if prev_temp is None:
            # The sensor's first reading: nothing to compare it with.
            pass
        elif reading.temperature < prev_temp:
            # The temperature decreased: the running timer, if any, is void.
            if current_timer is not None:
                ctx.timer_service().delete_processing_time_timer(current_timer)
            self.current_timer.clear()
        elif reading.temperature > prev_temp and current_timer is None:
            # The temperature increased and no timer runs yet: alert in one second.
            timer_ts = ctx.timer_service().current_processing_time() + INTERVAL_MS
            ctx.timer_service().register_processing_time_timer(timer_ts)
            self.current_timer.update(timer_ts)

    def on_timer(self, timestamp, ctx):
        yield (
            f"Temperature of sensor {ctx.get_current_key()} monotonically increased for 1 second."
        )
        self.current_timer.clear()


def sensor_id(reading):
    return reading.id


def build(env, source):
    """The alert stream of `source`'s sensor readings."""
    readings = env.from_source(source, sensor_watermarks(), "sensors")
    return (
        readings.key_by(sensor_id)
        .process(TempIncreaseAlertFunction(), output_type=Types.STRING())
        .name("temperature increase alerts")
    )


def main(count: int = 600, env=None, records_per_second: int = 100):
    if env is None:
        env = StreamExecutionEnvironment.get_execution_environment()
    build(env, sensor_source(count, records_per_second=records_per_second)).print()
    return env.execute("temperature increase alert")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 600)
