"""The book's windowed examples (examples/windowed_temperatures.py), results recomputed in
plain Python from the same generated readings; late data driven step by step by TestStream."""

import os
import sys
from collections import defaultdict

import pytest

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "examples")))

import windowed_temperatures as wt  # noqa: E402
from sensors import SensorReading, sensor_reading, sensor_source, sensor_watermarks  # noqa

from weir.common import WatermarkStrategy  # noqa: E402
from weir.datastream.window import TimestampedValue  # noqa: E402
from weir.testing.test_stream import TestStream  # noqa: E402

COUNT = 1000  # 10 sensors, 100 steps of 100 ms: windows of 5 s hold 50 readings per sensor


def windows_of(readings):
    grouped = defaultdict(list)
    for r in readings:
        grouped[(r.id, r.timestamp - r.timestamp % 5000 + 5000)].append(r.temperature)
    return grouped


def expected_min_max():
    grouped = windows_of(sensor_reading(i) for i in range(COUNT))
    return sorted((s, min(t), max(t), end) for (s, end), t in grouped.items())


def expected_averages():
    grouped = windows_of(sensor_reading(i) for i in range(COUNT))
    return sorted((s, round(sum(t) / len(t), 2)) for (s, _), t in grouped.items())


def readings(env):
    return env.from_source(sensor_source(COUNT), sensor_watermarks(), "sensors")


def test_average_per_sensor_in_tumbling_windows(local_env):
    results = wt.average_temperatures(readings(local_env)).execute_and_collect()
    assert sorted(results) == expected_averages()


def test_min_max_with_a_process_window_function(local_env):
    results = wt.min_max_with_process(readings(local_env)).execute_and_collect()
    assert sorted(results) == expected_min_max()


def test_incremental_min_max_with_a_process_window_function(any_env):
    results = wt.min_max_incremental(readings(any_env)).execute_and_collect()
    assert sorted(results) == expected_min_max()


B = 1_700_000_000_000


def late_data_stream():
    def at(sensor, offset_ms):
        return TimestampedValue(SensorReading(sensor, B + offset_ms, 20.0), B + offset_ms)

    return (
        TestStream()
        .add_elements(at("s0", 1000), at("s0", 2000), at("s1", 3000))
        .advance_watermark_to(B + 5000)
        .add_elements(at("s0", 4000))  # late: within 2 s of lateness, or not
        .advance_watermark_to(B + 7000)
        .add_elements(at("s1", 1500))
    )  # late beyond any lateness here


def run_counts(env, lateness, late_output):
    source = env.from_source(late_data_stream(), WatermarkStrategy.no_watermarks(), "test")
    counts = wt.counts_with_late_data(source, lateness)
    stream = (
        counts.get_side_output(wt.LATE_READINGS).map(lambda r: (r.id, r.timestamp - B))
        if late_output
        else counts.map(lambda c: (c[0], c[1] - B, c[2], c[3]))
    )
    return sorted(stream.execute_and_collect())


@pytest.mark.parametrize(
    "lateness, counts, late",
    [
        (
            2000,
            [("s0", 5000, 2, "first"), ("s0", 5000, 3, "update"), ("s1", 5000, 1, "first")],
            [("s1", 1500)],
        ),
        (0, [("s0", 5000, 2, "first"), ("s1", 5000, 1, "first")], [("s0", 4000), ("s1", 1500)]),
    ],
)
def test_late_readings_update_the_window_or_go_to_the_side_output(any_env, lateness, counts, late):
    assert run_counts(any_env, lateness, late_output=False) == counts
    assert run_counts(any_env, lateness, late_output=True) == late


def test_ad_campaign_counts_equal_numpy(any_env, tmp_path):
    """The YSB job (examples/ad_campaign_counts.py, bench/ysb.py), counting with the
    built-in Count() a micro-batch at a time, against counts computed with numpy."""
    import ad_campaign_counts as ysb
    import numpy as np

    events, campaign_of_ad = ysb.generate_events(6_000, 30, span_s=50.0)
    directory = ysb.write_event_files(events, str(tmp_path / "events"), files=3)
    rows = list(
        ysb.build(any_env, ysb.event_source(directory), campaign_of_ad).execute_and_collect()
    )
    views = np.array(events.column("event_type").to_pylist()) == "view"
    campaigns = campaign_of_ad[events.column("ad_id").to_numpy()[views]]
    times = events.column("event_time").to_numpy()[views]
    starts = times - times % ysb.WINDOW_MS
    pairs, counts = np.unique(np.stack([campaigns, starts]), axis=1, return_counts=True)
    expected = sorted(
        (int(c), int(s), int(s) + ysb.WINDOW_MS, int(n)) for (c, s), n in zip(pairs.T, counts)
    )
    assert len(expected) > 100 and sum(c for *_, c in expected) == int(views.sum())
    assert sorted(rows) == expected
