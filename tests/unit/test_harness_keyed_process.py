"""Keyed process operator through the harness: state, timers, snapshots, errors."""

import pytest

from weir.common import Duration, Row, Types
from weir.datastream import KeyedProcessFunction, OutputTag, TimeDomain
from weir.datastream.state import (
    AggregatingStateDescriptor,
    ListStateDescriptor,
    MapStateDescriptor,
    ReducingStateDescriptor,
    StateTtlConfig,
    ValueStateDescriptor,
)
from weir.runtime.errors import UserFunctionError
from weir.runtime.wire import MAX_WATERMARK
from weir.testing.harness import KeyedOperatorHarness

LATE = OutputTag("late")


class CountWithTimeout(KeyedProcessFunction):
    """Counts per key; 10 ms after the last element an event-time timer emits the count."""

    def open(self, runtime_context):
        self.count = runtime_context.get_state(ValueStateDescriptor("count"))
        self.timer = runtime_context.get_state(ValueStateDescriptor("timer"))

    def process_element(self, value, ctx):
        if ctx.timestamp() <= ctx.timer_service().current_watermark():
            yield LATE, value
            return
        self.count.update((self.count.value() or 0) + 1)
        if self.timer.value() is not None:
            ctx.timer_service().delete_event_time_timer(self.timer.value())
        self.timer.update(ctx.timestamp() + 10)
        ctx.timer_service().register_event_time_timer(ctx.timestamp() + 10)

    def on_timer(self, timestamp, ctx):
        yield (ctx.get_current_key(), self.count.value(), timestamp, ctx.time_domain())
        self.count.clear()
        self.timer.clear()


def key(value):
    return value[0]


def test_event_time_timers_fire_at_watermark_with_timer_timestamp():
    h = KeyedOperatorHarness(CountWithTimeout(), key)
    h.process_element(("a", 1), 1).process_element(("b", 1), 2).process_element(("a", 2), 5)
    h.process_watermark(12)
    assert h.extract_outputs() == [(("b", 1, 12, TimeDomain.EVENT_TIME), 12)]
    h.process_watermark(15)
    assert h.extract_outputs() == [(("a", 2, 15, TimeDomain.EVENT_TIME), 15)]
    assert h.num_keyed_state_entries() == 0
    assert h.num_timers() == 0


def test_late_elements_reach_the_function_and_go_to_a_side_output():
    h = KeyedOperatorHarness(CountWithTimeout(), key)
    h.process_watermark(100)
    h.process_element(("a", 1), 50)
    assert h.extract_outputs() == []
    assert h.side_output(LATE) == [(("a", 1), 50)]


def test_snapshot_and_restore_between_any_two_calls_gives_the_same_result():
    def run(split_at):
        h = KeyedOperatorHarness(CountWithTimeout(), key)
        steps = [
            lambda h: h.process_element(("a", 1), 1),
            lambda h: h.process_element(("b", 1), 3),
            lambda h: h.process_watermark(4),
            lambda h: h.process_element(("a", 1), 6),
            lambda h: h.process_watermark(13),
            lambda h: h.process_watermark(MAX_WATERMARK),
        ]
        outputs = []
        for index, step in enumerate(steps):
            if index == split_at:
                outputs += h.extract_outputs()
                h = KeyedOperatorHarness.restore(CountWithTimeout(), key, h.snapshot())
            step(h)
        return outputs + h.extract_outputs()

    expected = run(None)
    assert expected == [(("b", 1, 13, "event_time"), 13), (("a", 2, 16, "event_time"), 16)]
    for split_at in range(6):
        assert run(split_at) == expected


class ProcessingTimeEcho(KeyedProcessFunction):
    def process_element(self, value, ctx):
        now = ctx.timer_service().current_processing_time()
        ctx.timer_service().register_processing_time_timer(now + 100)
        ctx.timer_service().register_processing_time_timer(now + 100)  # one timer per ts
        yield value

    def on_timer(self, timestamp, ctx):
        yield ("fired", ctx.get_current_key(), timestamp, ctx.time_domain(), ctx.timestamp())


def test_processing_time_timers_are_deduplicated_and_outputs_have_no_timestamp():
    h = KeyedOperatorHarness(ProcessingTimeEcho(), key)
    h.set_processing_time(1000)
    h.process_element(("a", 1), 7)
    assert h.extract_outputs() == [(("a", 1), 7)]
    h.set_processing_time(1099)
    assert h.extract_outputs() == []
    h.set_processing_time(1100)
    assert h.extract_outputs() == [(("fired", "a", 1100, "processing_time", 1100), None)]
    assert h.num_timers() == 0


class Chained(KeyedProcessFunction):
    """A timer registers another one at the same time: both fire in one advance, as Flink."""

    def process_element(self, value, ctx):
        ctx.timer_service().register_event_time_timer(10)

    def on_timer(self, timestamp, ctx):
        yield timestamp
        if timestamp == 10:
            ctx.timer_service().register_event_time_timer(11)


def test_timers_registered_while_firing_fire_in_the_same_advance():
    h = KeyedOperatorHarness(Chained(), key)
    h.process_element(("a",), 1)
    h.process_watermark(20)
    assert h.extract_values() == [10, 11]


class AllStates(KeyedProcessFunction):
    def open(self, ctx):
        self.items = ctx.get_list_state(ListStateDescriptor("items"))
        self.seen = ctx.get_map_state(MapStateDescriptor("seen"))
        self.total = ctx.get_reducing_state(ReducingStateDescriptor("total", lambda a, b: a + b))
        self.avg = ctx.get_aggregating_state(AggregatingStateDescriptor("avg", Average()))

    def process_element(self, value, ctx):
        k, x = value
        self.items.add(x)
        self.seen.put(x, self.seen.get(x) + 1 if self.seen.contains(x) else 1)
        self.total.add(x)
        self.avg.add(x)
        yield (
            k,
            list(self.items.get()),
            sorted(self.seen.items()),
            self.total.get(),
            self.avg.get(),
        )


class Average:
    def create_accumulator(self):
        return (0, 0)

    def add(self, value, acc):
        return (acc[0] + value, acc[1] + 1)

    def get_result(self, acc):
        return acc[0] / acc[1]


def test_list_map_reducing_and_aggregating_state():
    h = KeyedOperatorHarness(AllStates(), key, pages_per_key_group=4)
    for x in (2, 4, 2):
        h.process_element(("k", x))
    h.process_element(("j", 9))
    assert h.extract_values() == [
        ("k", [2], [(2, 1)], 2, 2.0),
        ("k", [2, 4], [(2, 1), (4, 1)], 6, 3.0),
        ("k", [2, 4, 2], [(2, 2), (4, 1)], 8, 8 / 3),
        ("j", [9], [(9, 1)], 9, 9.0),
    ]


class TtlCounter(KeyedProcessFunction):
    def __init__(self, builder_step):
        self.builder_step = builder_step

    def open(self, ctx):
        descriptor = ValueStateDescriptor("count")
        builder = StateTtlConfig.new_builder(Duration.of_millis(100))
        descriptor.enable_time_to_live(self.builder_step(builder).build())
        self.count = ctx.get_state(descriptor)

    def process_element(self, value, ctx):
        if value[1] == "read":
            yield self.count.value()
        else:
            self.count.update((self.count.value() or 0) + 1)
            yield self.count.value()


def _ttl_run(builder_step, script):
    h = KeyedOperatorHarness(TtlCounter(builder_step), key)
    for time_ms, action in script:
        h.set_processing_time(time_ms)
        h.process_element(("a", action))
    return h.extract_values()


def test_ttl_expires_state_after_its_time_to_live():
    script = [(0, "inc"), (50, "inc"), (149, "read"), (150, "read"), (151, "inc")]
    assert _ttl_run(lambda b: b, script) == [1, 2, 2, None, 1]


def test_ttl_refreshed_on_read_keeps_state_alive():
    script = [(0, "inc"), (90, "read"), (180, "read"), (270, "inc"), (500, "read")]
    assert _ttl_run(lambda b: b.update_ttl_on_read_and_write(), script) == [1, 1, 1, 2, None]


def test_ttl_can_return_expired_state_not_yet_cleaned_up():
    script = [(0, "inc"), (500, "read")]
    assert _ttl_run(lambda b: b.return_expired_if_not_cleaned_up(), script) == [1, 1]


class Failing(KeyedProcessFunction):
    def process_element(self, value, ctx):
        if value[1] < 0:
            raise ValueError(f"negative reading {value[1]}")
        yield value


def test_user_errors_name_the_operator_and_the_users_line():
    h = KeyedOperatorHarness(Failing(), key, name="sensor-check")
    h.process_element(("a", 1))
    with pytest.raises(UserFunctionError) as info:
        h.process_element(("a", -1))
    message = str(info.value)
    assert "operator 'sensor-check'" in message
    assert "Failing.process_element" in message
    assert f"{__file__}:" in message
    assert "ValueError: negative reading -1" in message


class WrongKind(KeyedProcessFunction):
    def open(self, ctx):
        descriptor = ValueStateDescriptor("x", Types.INT())
        self.state = ctx.get_list_state(descriptor)

    def process_element(self, value, ctx):
        yield value


def test_state_kind_mismatch_is_a_clear_error():
    with pytest.raises(
        UserFunctionError, match="declared as value state, but was requested as list state"
    ):
        KeyedOperatorHarness(WrongKind(), key)


class MapAsValue(KeyedProcessFunction):
    """PyFlink's get_state takes any descriptor and gives a value state: a map
    descriptor's holds a whole dict."""

    def open(self, ctx):
        self.state = ctx.get_state(MapStateDescriptor("m", Types.STRING(), Types.INT()))

    def process_element(self, value, ctx):
        counts = self.state.value() or {}
        counts[value[0]] = counts.get(value[0], 0) + value[1]
        self.state.update(counts)
        yield dict(counts)


def test_get_state_of_a_map_descriptor_is_a_value_state_holding_a_dict():
    h = KeyedOperatorHarness(MapAsValue(), key)
    h.process_element(("a", 3), 1)
    h.process_element(("a", 4), 2)
    first = h.extract_values()
    h = KeyedOperatorHarness.restore(MapAsValue(), key, h.snapshot())
    h.process_element(("a", 5), 3)
    assert first + h.extract_values() == [{"a": 3}, {"a": 7}, {"a": 12}]


class SideOutputs(KeyedProcessFunction):
    def process_element(self, value, ctx):
        ctx.output(OutputTag("java-style"), value[1])
        yield OutputTag("python-style"), value[1] * 10
        yield Row(key=value[0], value=value[1])


def test_side_outputs_both_styles_and_row_outputs():
    h = KeyedOperatorHarness(SideOutputs(), key)
    h.process_element(("a", 3), 42)
    assert h.extract_outputs() == [(Row(key="a", value=3), 42)]
    assert h.side_output("java-style") == [(3, 42)]
    assert h.side_output(OutputTag("python-style")) == [(30, 42)]


class TimersBothWays(KeyedProcessFunction):
    """An event-time timer at the element's timestamp and a processing-time timer 100 ms
    after the current processing time; each timer registers one more of both kinds."""

    def process_element(self, value, ctx):
        ctx.timer_service().register_event_time_timer(ctx.timestamp())
        ctx.timer_service().register_processing_time_timer(
            ctx.timer_service().current_processing_time() + 100
        )

    def on_timer(self, timestamp, ctx):
        ctx.timer_service().register_event_time_timer(timestamp + 1)
        ctx.timer_service().register_processing_time_timer(timestamp + 1)
        yield ctx.get_current_key(), ctx.time_domain(), timestamp


def test_batch_execution_fires_timers_only_when_the_input_ends():
    """Flink's BatchExecutionInternalTimeService: neither processing time nor watermarks
    fire timers; at the end of a key's input its event-time timers fire, then its
    processing-time timers, and timers registered meanwhile are dropped."""
    h = KeyedOperatorHarness(TimersBothWays(), key, batch_execution=True)
    h.set_processing_time(1000)
    h.process_element(("a", 1), 5).process_element(("a", 2), 7)
    h.set_processing_time(5000).process_watermark(10)
    assert h.extract_values() == []
    h.end_input()
    assert h.extract_values() == [
        ("a", TimeDomain.EVENT_TIME, 5),
        ("a", TimeDomain.EVENT_TIME, 7),
        ("a", TimeDomain.PROCESSING_TIME, 1100),
    ]
    assert h.num_timers() == 0
    h.process_element(("a", 3), 9)  # registering works again after the end
    assert h.num_timers() == 2


def test_streaming_end_of_input_leaves_processing_time_timers_pending():
    h = KeyedOperatorHarness(ProcessingTimerAhead(), key)
    h.set_processing_time(1000)
    h.process_element(("b", 1), 5)
    h.end_input()
    assert h.extract_values() == [] and h.num_timers() == 1
    h.set_processing_time(1100)
    assert h.extract_values() == [("b", TimeDomain.PROCESSING_TIME, 1100)]


class ProcessingTimerAhead(KeyedProcessFunction):
    def process_element(self, value, ctx):
        ctx.timer_service().register_processing_time_timer(
            ctx.timer_service().current_processing_time() + 100
        )

    def on_timer(self, timestamp, ctx):
        yield ctx.get_current_key(), ctx.time_domain(), timestamp


def test_a_micro_batch_runs_records_before_the_watermark_then_timers_then_the_others():
    """The engines' order within a micro-batch: records produced upstream before the
    watermark's advance, then the timers it makes due, then the batch's other records."""
    h = KeyedOperatorHarness(CountWithTimeout(), key)
    h.process_micro_batch([(("a", 1), 1), (("b", 1), 2)], watermark=0)
    assert h.extract_outputs() == [] and h.num_timers() == 2
    # a's 11 comes before the watermark reaches 12: it counts, and moves a's timer past 12
    h.process_micro_batch([(("a", 3), 20)], watermark=12, before_watermark=[(("a", 2), 11)])
    assert h.extract_outputs() == [(("b", 1, 12, TimeDomain.EVENT_TIME), 12)]
    assert h.side_output(LATE) == []
    h.process_micro_batch([(("a", 4), 14)], watermark=15)  # after the watermark: late
    assert h.extract_outputs() == [] and h.side_output(LATE) == [(("a", 4), 14)]
    h.process_micro_batch([], watermark=MAX_WATERMARK)
    assert h.extract_outputs() == [(("a", 3, 30, TimeDomain.EVENT_TIME), 30)]


def test_a_micro_batch_gives_the_results_of_one_by_one_across_a_restore():
    elements = [((k, v), ts) for ts, (k, v) in enumerate(zip("abcab" * 6, range(30)))]
    elements.reverse()  # out of order: some are late
    batched = KeyedOperatorHarness(CountWithTimeout(), key, max_parallelism=8)
    single = KeyedOperatorHarness(CountWithTimeout(), key, max_parallelism=8)
    outputs, late = [], []
    for start in range(0, 30, 7):
        batch = elements[start : start + 7]
        batched.process_micro_batch(batch, watermark=start)
        single.process_watermark(start)
        for value, ts in batch:
            single.process_element(value, ts)
        if start == 14:
            outputs += batched.extract_outputs()
            late += batched.side_output(LATE)
            batched = KeyedOperatorHarness.restore(
                CountWithTimeout(), key, batched.snapshot(), max_parallelism=8
            )
    batched.process_micro_batch([], watermark=MAX_WATERMARK)
    single.process_watermark(MAX_WATERMARK)
    outputs += batched.extract_outputs()
    late += batched.side_output(LATE)
    assert len(late) > 3 and len(outputs) == 3
    assert sorted(map(repr, outputs)) == sorted(map(repr, single.extract_outputs()))
    assert sorted(map(repr, late)) == sorted(map(repr, single.side_output(LATE)))


class Pair:
    def process_element1(self, value, ctx):
        yield value

    def process_element2(self, value, ctx):
        yield value


def test_a_micro_batch_needs_an_operator_of_one_input():
    h = KeyedOperatorHarness(Pair(), (key, key))
    with pytest.raises(TypeError, match="one input"):
        h.process_micro_batch([(("a", 1), 1)])
