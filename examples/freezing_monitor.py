"""Freezing alarms through a side output (book chapter 6).

The book's `FreezingMonitor`, a (non-keyed) ProcessFunction: every reading passes through
on the main output, and readings below 32 degrees Fahrenheit also emit an alarm on the
side output "freezing-alarms".

Run: `.venv/bin/python examples/freezing_monitor.py [number of readings]`
"""

import sys

from sensors import SENSOR_READING_TYPE, sensor_source, sensor_watermarks

from weir.common import Types
from weir.datastream import OutputTag, ProcessFunction, StreamExecutionEnvironment

FREEZING_ALARMS = OutputTag("freezing-alarms", Types.STRING())
FREEZING_POINT = 32.0


class FreezingMonitor(ProcessFunction):
    """Passes readings through; readings below freezing also raise a side-output alarm."""

    def process_element(self, reading, ctx):
        if reading.temperature < FREEZING_POINT:
            yield FREEZING_ALARMS, f"Freezing Alarm for {reading.id}"
        yield reading


def build(env, source):
    """The monitored readings of `source`; their side output FREEZING_ALARMS has alarms."""
    readings = env.from_source(source, sensor_watermarks(), "sensors")
    return readings.process(FreezingMonitor(), output_type=SENSOR_READING_TYPE).name(
        "freezing monitor"
    )


def main(count: int = 2000, env=None):
    if env is None:
        env = StreamExecutionEnvironment.get_execution_environment()
    monitored = build(env, sensor_source(count))
    monitored.get_side_output(FREEZING_ALARMS).print()
    return env.execute("freezing monitor")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
