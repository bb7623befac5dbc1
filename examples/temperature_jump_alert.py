"""Temperature jump alerts with self-cleaning keyed state (book chapter 7).

Per sensor, a ValueState keeps the last temperature; a reading whose temperature differs
from the last one by more than a threshold emits `(sensor id, temperature, difference)`,
the absolute difference rounded to 0.01.
As the book's `SelfCleaningTemperatureAlertFunction`, every reading (re)registers a
clean-up timer one hour after it (deleting the previous timer), and the timer clears the
sensor's state: a sensor that stays silent for an hour leaves no state behind. The book
uses a processing-time timer; here it is an event-time timer, so that a bounded input gives
the same result every run (at its end, the +infinity watermark fires every timer).

Run: `.venv/bin/python examples/temperature_jump_alert.py [number of readings]`
(on an embedded local Spark; it finishes by itself and prints the alerts).
"""

import sys

from sensors import sensor_source, sensor_watermarks

from weir.common import Types
from weir.datastream import KeyedProcessFunction, StreamExecutionEnvironment
from weir.datastream.state import ValueStateDescriptor

ALERT_TYPE = Types.TUPLE([Types.STRING(), Types.DOUBLE(), Types.DOUBLE()])
CLEAN_UP_AFTER_MS = 3600 * 1000  # one hour of event time
DEFAULT_THRESHOLD = 5.0


class SelfCleaningTemperatureAlertFunction(KeyedProcessFunction):
    """Emits (id, temperature, |difference|) when a sensor's temperature jumps."""

    def __init__(self, threshold: float):
        self.threshold = threshold
        self.last_temp = None
        self.last_timer = None

    def open(self, runtime_context):
        self.last_temp = runtime_context.get_state(ValueStateDescriptor("lastTemp", Types.DOUBLE()))
        self.last_timer = runtime_context.get_state(
            ValueStateDescriptor("timestampState", Types.LONG())
        )

    def process_element(self, reading, ctx):
        # A new clean-up timer one hour after this reading replaces the previous one.
        new_timer = ctx.timestamp() + CLEAN_UP_AFTER_MS
        current_timer = self.last_timer.value()
        if current_timer is not None:
            ctx.timer_service().delete_event_time_timer(current_timer)
        ctx.timer_service().register_event_time_timer(new_timer)
        self.last_timer.update(new_timer)

        last_temp = self.last_temp.value()
        if last_temp is not None:
            diff = abs(reading.temperature - last_temp)
            if diff > self.threshold:
                yield reading.id, reading.temperature, round(diff, 2)
        self.last_temp.update(reading.temperature)

    def on_timer(self, timestamp, ctx):
        # No reading for an hour: forget the sensor.
        self.last_temp.clear()
        self.last_timer.clear()


def sensor_id(reading):
    return reading.id


def build(env, source, threshold: float = DEFAULT_THRESHOLD):
    """The alert stream of `source`'s sensor readings."""
    readings = env.from_source(source, sensor_watermarks(), "sensors")
    return (
        readings.key_by(sensor_id)
        .process(SelfCleaningTemperatureAlertFunction(threshold), output_type=ALERT_TYPE)
        .name("temperature jump alerts")
    )


def main(count: int = 2000, env=None, threshold: float = DEFAULT_THRESHOLD):
    if env is None:
        env = StreamExecutionEnvironment.get_execution_environment()
    build(env, sensor_source(count), threshold).print()
    return env.execute("temperature jump alert")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
