"""End-to-end tests of the book examples in examples/ (chapters 6 and 7).

Every expected result is recomputed here in plain Python from the same generated readings
(`sensors.sensor_reading(i)`), never read back from weir. Across keys the order of a
stream's records is not defined, so results are compared per sensor (in order) or sorted.
Spark runs: 4 (jump alerts, the jump alert main job, the clean-up timers, the freezing
monitor); everything else uses the in-process runner.
"""

import os
import re
import sys
from collections import defaultdict

import pytest

EXAMPLES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "examples")
sys.path.insert(0, os.path.abspath(EXAMPLES_DIR))

import freezing_monitor  # noqa: E402
import sensors  # noqa: E402
import temperature_increase_alert  # noqa: E402
import temperature_jump_alert  # noqa: E402
from sensors import (  # noqa: E402
    BASE_TIMESTAMP,
    SENSOR_READING_TYPE,
    SensorReading,
    sensor_reading,
    sensor_source,
)

from weir.common import Row  # noqa: E402
from weir.datastream import SinkFunction  # noqa: E402
from weir.datastream.connectors import DataGeneratorSource  # noqa: E402

HOUR_MS = 3600 * 1000
THRESHOLD = 5.0


# -- plain-Python references ---------------------------------------------------------------


def readings(count, num_sensors=10):
    return [sensor_reading(i, num_sensors) for i in range(count)]


def per_sensor(values, key=lambda v: v[0]):
    """{sensor id: [values in stream order]}: the order within one key is defined."""
    grouped = defaultdict(list)
    for value in values:
        grouped[key(value)].append(value)
    return dict(grouped)


def expected_jump_alerts(rows, threshold):
    """Alerts of SelfCleaningTemperatureAlertFunction, for readings spanning < 1 hour."""
    assert rows[-1].timestamp - rows[0].timestamp < HOUR_MS, "clean-up timers would fire"
    last, alerts = {}, []
    for r in rows:
        if r.id in last and abs(r.temperature - last[r.id]) > threshold:
            alerts.append((r.id, r.temperature, round(abs(r.temperature - last[r.id]), 2)))
        last[r.id] = r.temperature
    return alerts


def increase_message(sensor):
    return f"Temperature of sensor {sensor} monotonically increased for 1 second."


def expected_increase_alerts(batches, delete_timers=True):
    """TempIncreaseAlertFunction over micro-batches [(processing time, readings)].

    At each batch, due processing-time timers fire first, then the batch's readings are
    processed with the batch's processing time (weir's order within a key group).
    """
    last, timer, alerts = {}, {}, []
    for processing_time, batch in batches:
        for sensor, due in sorted(timer.items()):
            if due <= processing_time:
                alerts.append(increase_message(sensor))
                del timer[sensor]
        for r in batch:
            prev = last.get(r.id)
            last[r.id] = r.temperature
            if prev is None:
                continue
            if r.temperature < prev:
                if delete_timers:
                    timer.pop(r.id, None)
            elif r.temperature > prev and r.id not in timer:
                timer[r.id] = processing_time + 1000
    return sorted(alerts)


class ListSink(SinkFunction):
    """Collects a stream on the driver (sinks run there on both engines)."""

    def __init__(self):
        self.values = []

    def invoke(self, value, context):
        self.values.append(value)


# -- the generator -------------------------------------------------------------------------


def test_sensor_readings_are_a_pure_function_of_their_index():
    assert sensor_reading(0) == SensorReading("sensor_0", BASE_TIMESTAMP, 43.75)
    assert sensor_reading(1) == Row(id="sensor_1", timestamp=BASE_TIMESTAMP, temperature=64.3)
    assert sensor_reading(1234) == SensorReading("sensor_4", BASE_TIMESTAMP + 12300, 25.65)
    assert sensor_reading(7, num_sensors=3) == SensorReading(
        "sensor_1", BASE_TIMESTAMP + 200, 64.83
    )
    rows = readings(2000)
    assert rows == readings(2000)
    for i, r in enumerate(rows):
        SENSOR_READING_TYPE.validate(r)
        assert r.id == f"sensor_{i % 10}" and r.timestamp == BASE_TIMESTAMP + (i // 10) * 100
        assert r.as_dict() == {"id": r.id, "timestamp": r.timestamp, "temperature": r.temperature}
    temperatures = [r.temperature for r in rows]
    assert 10.0 < min(temperatures) < 32.0 < 70.0 < max(temperatures) < 90.0
    with pytest.raises(ValueError):
        sensor_reading(-1)


def test_sensor_source_and_watermarks(local_env):
    source = sensor_source(35, num_sensors=4, max_records_per_batch=10)
    assert source.type_info is SENSOR_READING_TYPE
    out = list(
        local_env.from_source(source, sensors.sensor_watermarks(), "sensors").execute_and_collect()
    )
    assert sorted(out, key=lambda r: (r.timestamp, r.id)) == readings(35, 4)
    strategy = sensors.sensor_watermarks()
    assert strategy.out_of_orderness_ms == 5000
    assert strategy.extract_timestamp(sensor_reading(42), -1) == BASE_TIMESTAMP + 400


# -- temperature jump alerts (chapter 7, SelfCleaningTemperatureAlertFunction) ------------


def exercised_threshold(rows, threshold):
    """The alerts at `threshold`, checked to differ from those a little above or below."""
    expected = expected_jump_alerts(rows, threshold)
    assert (
        len(expected_jump_alerts(rows, threshold - 0.25))
        > len(expected)
        > len(expected_jump_alerts(rows, threshold + 0.25))
        > 10
    )
    return expected


@pytest.mark.spark
def test_jump_alerts_match_plain_python(any_env):
    count, threshold = 2000, 7.5
    expected = exercised_threshold(readings(count), threshold)
    out = list(
        temperature_jump_alert.build(
            any_env, sensor_source(count, max_records_per_batch=1000), threshold
        ).execute_and_collect()
    )
    assert per_sensor(out) == per_sensor(expected)
    assert len(out) == len(expected)


@pytest.mark.parametrize("records_per_batch", [None, 10, 333])
def test_jump_alerts_do_not_depend_on_batching(local_env, records_per_batch):
    count, threshold = 1500, 8.0
    expected = exercised_threshold(readings(count), threshold)
    out = list(
        temperature_jump_alert.build(
            local_env, sensor_source(count, max_records_per_batch=records_per_batch), threshold
        ).execute_and_collect()
    )
    assert per_sensor(out) == per_sensor(expected)


@pytest.mark.spark
def test_jump_alert_main_job_prints_the_alerts(spark_env, capsys):
    count = 1000
    result = temperature_jump_alert.main(count, env=spark_env)
    # at parallelism 2 each line starts with its subtask, as Flink's print()
    printed = [re.sub(r"^[12]> ", "", line) for line in capsys.readouterr().out.splitlines()]
    printed = [line for line in printed if line.startswith("(sensor_")]
    # a typed tuple prints as Flink prints a Tuple3: (sensor_1,50.69,6.94)
    alerts = [
        (name, float(temp), float(diff))
        for name, temp, diff in (line[1:-1].split(",") for line in printed)
    ]
    expected = expected_jump_alerts(readings(count), THRESHOLD)
    assert len(expected) > 20
    assert per_sensor(alerts) == per_sensor(expected)
    assert result.get_job_id()


# Readings crafted around the one-hour clean-up timers. One reading per micro-batch: the
# watermark of a batch is (largest timestamp of the earlier batches) - 5 s - 1 ms.
T0 = BASE_TIMESTAMP
CLEAN_UP_READINGS = [
    SensorReading("sensor_1", T0, 50.0),
    SensorReading("sensor_3", T0, 50.0),
    SensorReading("sensor_1", T0 + 100, 57.0),  # alert; clean-up at T0+1h+100
    SensorReading("sensor_3", T0 + HOUR_MS * 9 // 10, 50.5),  # clean-up T0+1h -> T0+1.9h
    SensorReading("sensor_2", T0 + HOUR_MS * 3 // 2, 50.0),
    SensorReading("sensor_2", T0 + HOUR_MS * 3 // 2 + 100, 52.0),  # watermark > T0+1h+100
    SensorReading("sensor_3", T0 + HOUR_MS * 3 // 2 + 200, 60.0),  # alert: state kept
    SensorReading("sensor_1", T0 + HOUR_MS * 3 // 2 + 300, 70.0),  # no alert: cleaned up
    SensorReading("sensor_1", T0 + HOUR_MS * 3 // 2 + 400, 60.0),  # alert
]


class Crafted:
    def __init__(self, rows):
        self.rows = rows

    def __call__(self, index):
        return self.rows[index]


@pytest.mark.spark
def test_clean_up_timers_forget_silent_sensors(any_env):
    source = DataGeneratorSource(
        Crafted(CLEAN_UP_READINGS),
        count=len(CLEAN_UP_READINGS),
        type_info=SENSOR_READING_TYPE,
        max_records_per_batch=1,
    )
    out = list(temperature_jump_alert.build(any_env, source, THRESHOLD).execute_and_collect())
    assert per_sensor(out) == {
        "sensor_1": [("sensor_1", 57.0, 7.0), ("sensor_1", 60.0, 10.0)],
        "sensor_3": [("sensor_3", 60.0, 9.5)],
    }


# -- temperature increase alerts (chapter 6, TempIncreaseAlertFunction) --------------------

START_MS = 1_800_000_000_000


class ReadingClock:
    """A processing-time clock that advances 100 ms per step of 10 generated readings."""

    def __init__(self):
        self.generated = 0

    def see(self, index):
        self.generated = max(self.generated, index + 1)

    def now_ms(self):
        return START_MS + 100 * (self.generated // 10)


class ClockedReadings:
    def __init__(self, clock):
        self.clock = clock

    def __call__(self, index):
        self.clock.see(index)
        return sensor_reading(index)


def test_increase_alerts_on_a_driven_processing_time_clock(local_env):
    """The in-process runner reads its processing time from its clock once per batch:
    here a clock injected that advances 100 ms per 10 readings, as the readings' own
    timestamps."""
    clock = ReadingClock()
    local_env.set_executor("local", clock=clock.now_ms)
    count = 2000
    source = DataGeneratorSource(
        ClockedReadings(clock), count=count, type_info=SENSOR_READING_TYPE, max_records_per_batch=10
    )
    out = sorted(temperature_increase_alert.build(local_env, source).execute_and_collect())

    rows = readings(count)
    batches = [(START_MS + 100 * b, rows[10 * b : 10 * b + 10]) for b in range(count // 10)]
    batches.append((START_MS + 100 * (count // 10), []))  # the end-of-input batches
    expected = expected_increase_alerts(batches)
    assert len(expected) > 10
    # The data exercise the deleting of timers on a decrease.
    assert expected != expected_increase_alerts(batches, delete_timers=False)
    assert out == expected


def test_increase_alert_function_in_the_operator_harness():
    from weir.testing.harness import KeyedOperatorHarness

    h = KeyedOperatorHarness(
        temperature_increase_alert.TempIncreaseAlertFunction(), temperature_increase_alert.sensor_id
    )

    def reading(sensor, temperature):
        return SensorReading(sensor, 0, temperature)

    h.set_processing_time(1000)
    h.process_element(reading("s1", 50.0))  # first reading: nothing to compare
    h.set_processing_time(1100)
    h.process_element(reading("s1", 51.0))  # increase: timer at 2100
    h.process_element(reading("s2", 40.0))
    h.set_processing_time(1500)
    h.process_element(reading("s1", 51.0))  # equal: the timer keeps running
    h.process_element(reading("s2", 41.0))  # s2: timer at 2500
    h.set_processing_time(2099)
    assert h.extract_values() == []
    h.set_processing_time(2100)
    assert h.extract_values() == [increase_message("s1")]
    h.process_element(reading("s1", 52.0))  # a new timer at 3100
    h.set_processing_time(2200)
    h.process_element(reading("s1", 49.0))  # decrease: timer deleted
    h.process_element(reading("s2", 39.0))  # decrease: timer deleted
    h.set_processing_time(10_000)
    assert h.extract_values() == []
    assert h.num_timers() == 0
    h.process_element(reading("s2", 39.5))  # timer at 11000
    h.set_processing_time(11_000)
    assert h.extract_values() == [increase_message("s2")]


# -- freezing monitor (chapter 6, side outputs) --------------------------------------------


@pytest.mark.spark
def test_freezing_monitor_side_output(any_env):
    count = 1200
    monitored = freezing_monitor.build(any_env, sensor_source(count, max_records_per_batch=500))
    alarms = ListSink()
    monitored.get_side_output(freezing_monitor.FREEZING_ALARMS).add_sink(alarms)
    passed = list(monitored.execute_and_collect())

    rows = readings(count)
    expected_alarms = [f"Freezing Alarm for {r.id}" for r in rows if r.temperature < 32.0]
    assert len(expected_alarms) > 100
    assert sorted(alarms.values) == sorted(expected_alarms)
    assert per_sensor(passed, key=lambda r: r.id) == per_sensor(rows, key=lambda r: r.id)


def test_freezing_monitor_main_prints_alarms(local_env, capsys):
    count = 300
    freezing_monitor.main(count, env=local_env)
    printed = capsys.readouterr().out.splitlines()
    expected = [f"Freezing Alarm for {r.id}" for r in readings(count) if r.temperature < 32.0]
    assert expected
    assert sorted(printed) == sorted(expected)
