"""Sensor readings of the book "Stream Processing with Apache Flink" (Hueske & Kalavri).

The book's examples read `SensorReading(id, timestamp, temperature)` records from a random
`SensorSource`. Here the readings are a pure function of their index, so that a job's
results can be recomputed exactly, in plain Python, by a test:

* reading `i` belongs to sensor `i % num_sensors` ("sensor_0", "sensor_1", ...);
* its timestamp is `BASE_TIMESTAMP + (i // num_sensors) * 100` ms: every sensor reports
  every 100 ms, and the readings of one step come one sensor after the other;
* its temperature (degrees Fahrenheit) is a slow sine wave per sensor, plus a small
  jitter and, now and then, a spike of 6 to 10 degrees, both from an integer hash of `i`
  (not Python's `hash()`, which is salted per process).
"""

import math

from weir.common import Duration, Row, Types, WatermarkStrategy
from weir.datastream.connectors import DataGeneratorSource

SensorReading = Row("id", "timestamp", "temperature")
SENSOR_READING_TYPE = Types.ROW_NAMED(
    ["id", "timestamp", "temperature"], [Types.STRING(), Types.LONG(), Types.DOUBLE()]
)

BASE_TIMESTAMP = 1_700_000_000_000  # 2023-11-14T22:13:20Z, in epoch milliseconds
STEP_MS = 100  # every sensor reports every 100 ms
PERIOD_STEPS = 300  # one sine period: 30 s of event time
SPIKE_EVERY = 61  # about one reading in 61 has a spike


def _mix32(x: int) -> int:
    """A 32-bit integer hash (Chris Wellons' lowbias32): the same on every machine."""
    x &= 0xFFFFFFFF
    x ^= x >> 16
    x = (x * 0x7FEB352D) & 0xFFFFFFFF
    x ^= x >> 15
    x = (x * 0x846CA68B) & 0xFFFFFFFF
    x ^= x >> 16
    return x


def sensor_reading(index: int, num_sensors: int = 10) -> Row:
    """Reading number `index` (0, 1, ...) of `num_sensors` sensors: a pure function."""
    if index < 0:
        raise ValueError(f"index must not be negative, got {index}")
    sensor = index % num_sensors
    step = index // num_sensors
    h = _mix32(index)
    smooth = 50.0 + 25.0 * math.sin(2.0 * math.pi * step / PERIOD_STEPS + 0.6 * sensor)
    jitter = ((h % 1001) / 1000.0 - 0.5) * 0.5  # -0.25 .. +0.25
    spike = 0.0
    if (h >> 8) % SPIKE_EVERY == 0:
        spike = (6 + (h >> 16) % 5) * (1 if (h >> 21) & 1 else -1)  # +-6 .. +-10
    temperature = round(smooth + jitter + spike, 2)
    return SensorReading(f"sensor_{sensor}", BASE_TIMESTAMP + step * STEP_MS, temperature)


class SensorGenerator:
    """The generator function of `sensor_source`: a picklable callable."""

    def __init__(self, num_sensors: int = 10):
        self.num_sensors = num_sensors

    def __call__(self, index: int) -> Row:
        return sensor_reading(index, self.num_sensors)


def sensor_source(
    count, num_sensors: int = 10, records_per_second=None, max_records_per_batch=None
) -> DataGeneratorSource:
    """`count` readings (None: unbounded) of `num_sensors` sensors."""
    return DataGeneratorSource(
        SensorGenerator(num_sensors),
        count=count,
        records_per_second=records_per_second,
        type_info=SENSOR_READING_TYPE,
        max_records_per_batch=max_records_per_batch,
    )


def _reading_timestamp(reading, record_timestamp):
    return reading.timestamp


def sensor_watermarks() -> WatermarkStrategy:
    """Timestamps from the readings; watermarks 5 seconds behind, as in the book."""
    return WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_seconds(5)
    ).with_timestamp_assigner(_reading_timestamp)
