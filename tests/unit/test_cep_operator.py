"""The CEP operator through the harness: matches by event time whatever the arrival
order, a snapshot at any point restored to the same matches, state that empties when
partial matches end, late events, and the patterns Flink's compiler refuses."""

import os
import sys

import pytest

from tests.cep.runner import LATE, TIMED_OUT, Recorder
from weir.cep import (
    AfterMatchSkipStrategy,
    CEP,
    Duration,
    MalformedPatternException,
    Pattern,
    PatternProcessFunction,
    WithinType,
)
from weir.cep.operator import CepOperator
from weir.testing.harness import KeyedOperatorHarness

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))

import fraud_detection  # noqa: E402
import overheating_alert  # noqa: E402


def card(record):
    return record[0]


def transactions():
    base = fraud_detection.BASE
    return [(t, base + t[2] * 1000) for t in fraud_detection.TRANSACTIONS]


def alerts_of(harness):
    return sorted(
        (value[1]["small"], value[1]["large"], ts) for value, ts in harness.extract_outputs()
    )


def ids(*events):
    return [e[2] for e in events]


def run_fraud(split=None, order=None, lag=150_000):
    """The fraud pattern's matches (each event named by its seconds), fed in `order`,
    snapshotted and restored after `split` events; the watermark `lag` ms behind."""
    operator = lambda: CepOperator(fraud_detection.fraud_pattern(), _Seconds())  # noqa: E731
    events = transactions() if order is None else order
    harness, outputs, watermark = KeyedOperatorHarness(operator(), card), [], 0
    for index, (event, timestamp) in enumerate(events):
        if index == split:
            outputs += harness.extract_outputs()
            harness = KeyedOperatorHarness.restore(operator(), card, harness.snapshot())
        harness.process_element(event, timestamp)
        watermark = max(watermark, timestamp - lag)
        harness.process_watermark(watermark)
    harness.process_watermark(2**63 - 1)
    return harness, sorted(v for v, _ in outputs + harness.extract_outputs())


class _Seconds(PatternProcessFunction):
    def process_match(self, match, ctx):
        yield match["small"][0][0], match["small"][0][2], match["large"][0][2], ctx.timestamp()


EXPECTED = [
    ("card-1", 12, 45, fraud_detection.BASE + 45_000),
    ("card-3", 90, 140, fraud_detection.BASE + 140_000),
    ("card-3", 100, 140, fraud_detection.BASE + 140_000),
]


def test_a_small_then_a_large_transaction_within_a_minute_per_card():
    harness, matches = run_fraud()
    assert matches == EXPECTED  # (stamped with the large transaction's time)
    assert harness.num_keyed_state_entries() == 0 and harness.num_timers() == 0


def test_events_out_of_order_are_matched_in_event_time():
    arrivals = transactions()
    arrivals = arrivals[1::2][::-1] + arrivals[0::2]  # (up to 140 s behind)
    harness, matches = run_fraud(order=arrivals)
    assert matches == EXPECTED and harness.metric("numLateRecordsDropped") == 0


@pytest.mark.parametrize("split", range(1, len(fraud_detection.TRANSACTIONS)))
def test_a_snapshot_restored_at_any_point_gives_the_same_matches(split):
    assert run_fraud(split=split, lag=1)[1] == EXPECTED  # (partial matches restored)
    assert run_fraud(split=split)[1] == EXPECTED  # (buffered events restored)


def test_timed_out_partial_matches_and_late_events():
    pattern = overheating_alert.overheating_pattern()
    harness = KeyedOperatorHarness(CepOperator(pattern, Recorder(), late_tag=LATE), card)
    for event in overheating_alert.READINGS:
        harness.process_element(event, event[2] * 1000)
    harness.process_watermark(24_000)
    harness.process_element(("sensor-2", 120.0, 23), 23_000)  # (behind the watermark)
    harness.process_watermark(2**63 - 1)
    assert sorted(v[1]["hot"] for v, _ in harness.extract_outputs()) == [
        [("sensor-1", 101.0, 0), ("sensor-1", 104.0, 5), ("sensor-1", 107.0, 8)],
        [("sensor-3", 110.0, 20), ("sensor-3", 111.0, 22), ("sensor-3", 112.0, 25)],
    ]
    assert sorted((v[1]["hot"][0][2], ts) for v, ts in harness.side_output(TIMED_OUT)) == [
        (1, 11_000),
        (12, 22_000),
        (27, 37_000),
    ]  # (stamped with the window's end)
    assert [v for v, _ in harness.side_output(LATE)] == [("sensor-2", 120.0, 23)]
    assert harness.num_keyed_state_entries() == 0 and harness.num_timers() == 0


def test_late_events_without_a_side_output_are_dropped_and_counted():
    pattern = Pattern.begin("a").where(lambda e: True)
    harness = KeyedOperatorHarness(CepOperator(pattern, Recorder()), card)
    harness.process_watermark(100)
    harness.process_element(("k", 1.0, 0), 50)
    harness.process_element(("k", 2.0, 0), 150)
    harness.process_watermark(200)
    assert [v[1]["a"] for v, _ in harness.extract_outputs()] == [[("k", 2.0, 0)]]
    assert harness.metric("numLateRecordsDropped") == 1


def test_events_without_timestamps_are_refused_in_event_time():
    harness = KeyedOperatorHarness(CepOperator(Pattern.begin("a"), Recorder()), card)
    with pytest.raises(Exception, match="needs each event's timestamp"):
        harness.process_element(("k", 1.0, 0))


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: Pattern.begin("a").followed_by("a"), "duplicate pattern name"),
        (lambda: Pattern.begin("a").not_followed_by("b"), "without within"),
        (lambda: Pattern.begin("a").where(bool).times(2).times(3), "set once"),
        (lambda: Pattern.begin("a").greedy(), "greedy applies to a looping"),
        (lambda: Pattern.begin("a").until(bool), "until applies to a looping"),
        (lambda: Pattern.begin("a").optional().not_next("b"), "optional pattern cannot"),
        (
            lambda: Pattern.begin("a", AfterMatchSkipStrategy.skip_to_first("x")).next("b"),
            "not a name of the pattern",
        ),
        (
            lambda: (
                Pattern.begin("a")
                .next("b")
                .within(Duration.of_seconds(10), WithinType.PREVIOUS_AND_CURRENT)
                .within(Duration.of_seconds(5))
            ),
            "cannot be longer",
        ),
        (lambda: Pattern.begin("a").times(0), "times must be"),
    ],
)
def test_patterns_flinks_compiler_refuses(build, message):
    with pytest.raises(MalformedPatternException, match=message):
        CepOperator(build(), Recorder())


def test_a_pattern_stream_needs_a_pattern_process_function():
    with pytest.raises(TypeError, match="expects a Pattern"):
        CEP.pattern(None, "a")


def test_processing_time_feeds_events_as_they_come_and_times_out_by_the_clock():
    pattern = (
        Pattern.begin("a")
        .where(lambda e: e[1] == "a")
        .followed_by("b")
        .where(lambda e: e[1] == "b")
        .within(Duration.of_millis(100))
    )
    harness = KeyedOperatorHarness(CepOperator(pattern, Recorder(), processing_time=True), card)
    harness.set_processing_time(10)
    harness.process_element(("k", "a", 1))
    harness.set_processing_time(50)
    harness.process_element(("k", "b", 2))  # (within 100 ms of the a: a match)
    harness.process_element(("k", "a", 3))
    harness.set_processing_time(200)  # (the second a's window passes: a timeout)
    assert [(v[1], ts) for v, ts in harness.extract_outputs()] == [
        ({"a": [("k", "a", 1)], "b": [("k", "b", 2)]}, 50)
    ]
    assert [(v[1], ts) for v, ts in harness.side_output(TIMED_OUT)] == [
        ({"a": [("k", "a", 3)]}, 150)
    ]
    assert harness.num_keyed_state_entries() == 0 and harness.num_timers() == 0


def test_processing_time_with_a_comparator_orders_events_of_one_millisecond():
    """As Flink's: with a comparator, an event waits for the processing-time timer a
    millisecond after it came; events of one time go to the NFA by the comparator."""
    pattern = Pattern.begin("a").where(lambda e: e[1] == "a").next("b").where(lambda e: e[1] == "b")
    by_id = lambda x, y: (x[2] > y[2]) - (x[2] < y[2])  # noqa: E731
    harness = KeyedOperatorHarness(
        CepOperator(pattern, Recorder(), comparator=by_id, processing_time=True), card
    )
    harness.set_processing_time(10)
    harness.process_element(("k", "b", 2))  # (comes first, ordered after the a)
    harness.process_element(("k", "a", 1))
    assert harness.extract_outputs() == [] and harness.num_keyed_state_entries() == 1
    harness.set_processing_time(11)
    assert [(v[1], ts) for v, ts in harness.extract_outputs()] == [
        ({"a": [("k", "a", 1)], "b": [("k", "b", 2)]}, 10)
    ]
    assert harness.num_keyed_state_entries() == 0 and harness.num_timers() == 0


def test_processing_time_events_waiting_at_the_end_of_input_are_fed():
    """Where the input ends before the processing-time timer, the final watermark feeds
    the waiting events (nothing is left behind)."""
    pattern = Pattern.begin("a").where(lambda e: e[1] == "a").next("b").where(lambda e: e[1] == "b")
    harness = KeyedOperatorHarness(
        CepOperator(pattern, Recorder(), comparator=lambda x, y: 0, processing_time=True), card
    )
    harness.set_processing_time(10)
    harness.process_element(("k", "a", 1))
    harness.process_element(("k", "b", 2))
    harness.process_watermark(2**63 - 1)
    assert [v[1] for v, _ in harness.extract_outputs()] == [
        {"a": [("k", "a", 1)], "b": [("k", "b", 2)]}
    ]
    assert harness.num_keyed_state_entries() == 0


def test_select_and_flat_select_with_a_timed_out_tag():
    from weir.datastream.output_tag import OutputTag
    from weir.datastream import StreamExecutionEnvironment
    from weir.common import WatermarkStrategy

    pattern = (
        Pattern.begin("a")
        .where(lambda e: e[1] == "a")
        .followed_by("b")
        .where(lambda e: e[1] == "b")
        .within(Duration.of_millis(100))
    )
    late = OutputTag("timed-out")
    events = [("k", "a", 0), ("k", "b", 50), ("k", "a", 200), ("j", "a", 10)]
    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    stream = env.from_collection(events).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(lambda e, ts: e[2])
    )
    selected = CEP.pattern(stream, pattern).select(  # (not keyed: the whole stream)
        late,
        lambda match, at: ("timed out", match["a"][0][2], at),
        lambda match: ("match", match["a"][0][2], match["b"][0][2]),
    )
    flat = CEP.pattern(stream.key_by(card), pattern).flat_select(
        lambda match: [("a", match["a"][0][2]), ("b", match["b"][0][2])]
    )
    got, timed_out, flat_got = [], [], []
    selected.add_sink(lambda v, ctx: got.append(v))
    selected.get_side_output(late).add_sink(lambda v, ctx: timed_out.append(v))
    flat.add_sink(lambda v, ctx: flat_got.append(v))
    env.execute("select")
    assert sorted(got) == [("match", 0, 50), ("match", 10, 50)]  # (k's and j's a)
    assert timed_out == [("timed out", 200, 300)]
    assert flat_got == [("a", 0), ("b", 50)]


def test_a_condition_reads_the_operators_processing_time():
    seen = []

    def at(event, ctx):
        seen.append(ctx.current_processing_time())
        return True

    harness = KeyedOperatorHarness(CepOperator(Pattern.begin("a").where(at), Recorder()), card)
    harness.set_processing_time(777)
    harness.process_element(("k", 1.0, 0), 5)
    harness.process_watermark(10)
    assert seen == [777] and len(harness.extract_outputs()) == 1
