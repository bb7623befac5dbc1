"""Interval joins (Flink's Java API in snake_case), on both engines and in the harness."""

import pytest

from weir.common import Duration
from weir.common.time import Time
from weir.datastream import OutputTag, ProcessFunction, ProcessJoinFunction
from weir.runtime.interval_join import IntervalJoinSpec
from tests.streams import collect, stamped
from weir.testing.harness import KeyedOperatorHarness

# (key, timestamp ms)
LEFT = [("a", 1000), ("b", 2000), ("a", 5000), ("a", 9000), ("c", 9500)]
RIGHT = [
    ("a", 0),
    ("a", 1500),
    ("a", 2000),
    ("b", 3500),
    ("a", 4000),
    ("a", 6000),
    ("c", 7500),
    ("a", 10500),
]


class Pair(ProcessJoinFunction):
    def process_element(self, left, right, ctx):
        assert ctx.get_timestamp() == max(ctx.get_left_timestamp(), ctx.get_right_timestamp())
        yield left[0], left[1], right[1]


class WithTimestamp(ProcessFunction):
    def process_element(self, value, ctx):
        yield value + (ctx.timestamp(),)


def _reference(lower, upper, left=LEFT, right=RIGHT):
    return sorted(
        (k, t, u, max(t, u))
        for k, t in left
        for j, u in right
        if k == j and t + lower <= u <= t + upper
    )


def _join(env, lower, upper, exclusive=()):
    joined = (
        stamped(env, LEFT)
        .key_by(lambda r: r[0])
        .interval_join(stamped(env, RIGHT).key_by(lambda r: r[0]))
        .between(lower, upper)
    )
    for bound in exclusive:
        joined = getattr(joined, f"{bound}_bound_exclusive")()
    return collect(joined.process(Pair()).process(WithTimestamp()))


def test_interval_join_pairs_records_within_the_bounds(any_env):
    sink = _join(any_env, Time.seconds(-2), Time.seconds(1))
    any_env.execute("interval join")
    assert sorted(sink.results) == [
        ("a", 1000, 0, 1000),
        ("a", 1000, 1500, 1500),
        ("a", 1000, 2000, 2000),
        ("a", 5000, 4000, 5000),
        ("a", 5000, 6000, 6000),
        ("c", 9500, 7500, 9500),
    ]
    assert sorted(sink.results) == _reference(-2000, 1000)


def test_exclusive_bounds_leave_out_the_edges(any_env):
    sink = _join(any_env, Duration.of_millis(-1000), Duration.of_millis(1000), ("lower", "upper"))
    any_env.execute("exclusive")
    assert sorted(sink.results) == _reference(-999, 999)
    assert ("a", 1000, 2000, 2000) not in sink.results  # exactly at the upper bound


def test_late_records_go_to_their_sides_late_output(any_env):
    env = any_env
    late_left, late_right = OutputTag("late-left"), OutputTag("late-right")
    # Batches of two: after the first, the watermark is at 9.999 s, so (a, 3 s) on the left
    # and (a, 2 s) on the right come late; (a, 12 s) is on time.
    left = [("a", 1000), ("a", 10000), ("a", 3000), ("a", 12000)]
    right = [("a", 1500), ("z", 9000), ("a", 2000), ("a", 12500)]
    joined = (
        stamped(env, left, 2)
        .key_by(lambda r: r[0])
        .interval_join(stamped(env, right, 2).key_by(lambda r: r[0]))
        .between(Time.seconds(0), Time.seconds(1))
        .side_output_left_late_data(late_left)
        .side_output_right_late_data(late_right)
        .process(Pair())
    )
    pairs, lefts, rights = (
        collect(joined),
        collect(joined.get_side_output(late_left)),
        collect(joined.get_side_output(late_right)),
    )
    env.execute("late")
    assert sorted(pairs.results) == [("a", 1000, 1500), ("a", 12000, 12500)]
    assert lefts.results == [("a", 3000)] and rights.results == [("a", 2000)]


def test_late_records_without_a_side_output_are_counted(any_env):
    env = any_env
    left = [("a", 1000), ("a", 10000), ("a", 3000)]
    joined = (
        stamped(env, left, 2)
        .key_by(lambda r: r[0])
        .interval_join(stamped(env, [("a", 1000)], 2).key_by(lambda r: r[0]))
        .between(0, 0)
        .process(Pair())
        .uid("join")
    )
    sink = collect(joined)
    metrics = env.execute("dropped").get_metrics()
    assert sink.results == [("a", 1000, 1000)]
    assert metrics["join.numLateRecordsDropped"] == 1


def test_records_without_timestamps_fail_clearly(any_env):
    env = any_env
    joined = (
        env.from_collection([("a", 1)])
        .key_by(lambda r: r[0])
        .interval_join(env.from_collection([("a", 1)]).key_by(lambda r: r[0]))
        .between(0, 1)
        .process(Pair())
    )
    collect(joined)
    with pytest.raises(Exception, match="need event-time timestamps"):
        env.execute("no timestamps")


def test_bounds_are_checked(local_env):
    keyed = local_env.from_collection([1]).key_by(lambda v: v)
    with pytest.raises(ValueError, match="lower bound \\(5 ms\\) must not be above"):
        keyed.interval_join(keyed).between(5, 1)
    with pytest.raises(TypeError, match="two keyed streams"):
        keyed.interval_join(local_env.from_collection([1]))


def test_buffers_and_timers_are_cleaned_up_as_the_watermark_passes():
    harness = KeyedOperatorHarness(
        IntervalJoinSpec(-2000, 1000, Pair()), (lambda r: r[0], lambda r: r[0])
    )
    for key, ts in LEFT:
        harness.process_element1((key, ts), ts)
    for key, ts in RIGHT:
        harness.process_element2((key, ts), ts)
    assert sorted(harness.extract_values()) == [r[:3] for r in _reference(-2000, 1000)]
    assert harness.num_keyed_state_entries() > 0 and harness.num_timers() > 0
    # Left records wait for right ones up to 1 s later, right ones for left ones up to 2 s
    # later: at 10 s, (c, 9.5 s) on the left and (a, 10.5 s) on the right still wait.
    harness.process_watermark(10000)
    assert harness.num_timers() == 2
    harness.process_watermark(12499)
    assert harness.num_keyed_state_entries() == 1 and harness.num_timers() == 1
    harness.process_watermark(12500)
    assert harness.num_keyed_state_entries() == 0 and harness.num_timers() == 0
