"""Broadcast state: (Keyed)BroadcastProcessFunction on both engines."""

import pytest

from weir.common import Types
from weir.datastream import BroadcastProcessFunction, KeyedBroadcastProcessFunction, OutputTag
from weir.datastream.connectors import DataGeneratorSource
from weir.datastream.state import MapStateDescriptor, ValueStateDescriptor
from weir.runtime.broadcast import BroadcastSpec
from tests.streams import collect
from weir.runtime.wire import BROADCAST_PAGE, MAX_WATERMARK

FACTORS = MapStateDescriptor("factors", Types.STRING(), Types.INT())


class Scale(BroadcastProcessFunction):
    """Multiplies numbers by the factor named "x" (broadcast), 1 before any."""

    def process_broadcast_element(self, value, ctx):
        ctx.get_broadcast_state(FACTORS).put(value[0], value[1])

    def process_element(self, value, ctx):
        factor = ctx.get_broadcast_state(FACTORS).get("x")
        yield value * (factor if factor is not None else 1)


def test_non_keyed_broadcast_applies_the_batchs_rules_first(any_env):
    env = any_env
    numbers = env.from_collection([1, 2, 3])
    factors = env.from_collection([("x", 10), ("y", 5)])
    sink = collect(numbers.connect(factors.broadcast(FACTORS)).process(Scale()))
    env.execute("scale")
    assert sink.results == [10, 20, 30]  # one micro-batch: its broadcast elements first


class ScaleAndTell(Scale):
    """Scale; each parallel instance reports each broadcast element once."""

    def process_broadcast_element(self, value, ctx):
        super().process_broadcast_element(value, ctx)
        yield "learned", value[0]


def test_non_keyed_broadcast_runs_an_instance_per_subtask(any_env):
    env = any_env.set_parallelism(2)
    numbers = env.from_source(
        DataGeneratorSource(lambda i: i, count=8, num_splits=2), None, "numbers"
    )
    factors = env.from_collection([("x", 10)])
    sink = collect(numbers.connect(factors.broadcast(FACTORS)).process(ScaleAndTell()))
    env.execute("scale in parallel")
    # One batch in two splits: 0..3 read by instance 0, 4..7 by instance 1.
    assert sorted(sink.results, key=str) == sorted(
        [("learned", "x")] * 2 + [i * 10 for i in range(8)], key=str
    )


class Count(KeyedBroadcastProcessFunction):
    """Counts per key; a broadcast "reset" clears every key's count (apply_to_keyed_state)
    and a broadcast "report" makes each instance report its keys' counts."""

    def open(self, runtime_context):
        self.count = runtime_context.get_state(ValueStateDescriptor("count", Types.INT()))

    def process_element(self, value, ctx):
        self.count.update((self.count.value() or 0) + 1)
        if self.count.value() == 1:
            ctx.timer_service().register_event_time_timer(MAX_WATERMARK)

    def process_broadcast_element(self, value, ctx):
        ctx.get_broadcast_state(FACTORS).put(value, 1)
        if value == "reset":
            ctx.apply_to_keyed_state(
                ValueStateDescriptor("count", Types.INT()), lambda key, state: state.clear()
            )
        yield "seen", value

    def on_timer(self, timestamp, ctx):
        broadcast = sorted(ctx.get_broadcast_state(FACTORS).keys())
        yield ctx.get_current_key(), self.count.value(), broadcast


def test_apply_to_keyed_state_reaches_every_key(any_env):
    env = any_env
    env.set_parallelism(3)
    words = env.from_collection([f"k{i % 7}" for i in range(30)])
    control = env.from_collection(["reset"])
    sink = collect(words.key_by(lambda w: w).connect(control.broadcast(FACTORS)).process(Count()))
    env.execute("reset")
    # The reset came first in the batch: every key counts from 0 and sees the state.
    counts = sorted(r for r in sink.results if r[0] != "seen")
    assert counts == [(f"k{k}", len(range(k, 30, 7)), ["reset"]) for k in range(7)]
    # Each of the 3 parallel instances reports the element once, as Flink's do.
    assert [r for r in sink.results if r[0] == "seen"] == [("seen", "reset")] * 3


class Unpicklable:
    def __reduce__(self):
        raise TypeError("cannot pickle this rule")


def test_an_unpicklable_broadcast_element_fails_naming_the_input(any_env):
    env = any_env
    numbers = env.from_collection([1])
    rules = env.from_collection([1]).map(lambda v: Unpicklable())
    numbers.connect(rules.broadcast(FACTORS)).process(Scale()).uid("scale").add_sink(
        lambda v, c: None
    )
    with pytest.raises(
        Exception,
        match="operator 'scale' \\(broadcast input\\): a broadcast "
        "element cannot be pickled \\(element types: "
        "Unpicklable\\)",
    ):
        env.execute("unpicklable")


class ReadsUndeclared(BroadcastProcessFunction):
    def process_broadcast_element(self, value, ctx):
        ctx.get_broadcast_state(MapStateDescriptor("other", Types.STRING(), Types.INT()))

    def process_element(self, value, ctx):
        pass


def test_undeclared_broadcast_state_is_a_clear_error(local_env):
    numbers = local_env.from_collection([1])
    numbers.connect(numbers.broadcast(FACTORS)).process(ReadsUndeclared()).add_sink(
        lambda v, c: None
    )
    with pytest.raises(Exception, match="broadcast state 'other' was not declared"):
        local_env.execute("undeclared")


def test_broadcast_checks_its_arguments(local_env):
    numbers = local_env.from_collection([1])
    with pytest.raises(TypeError, match="expects MapStateDescriptors"):
        numbers.broadcast(ValueStateDescriptor("v", Types.INT()))
    with pytest.raises(TypeError, match="needs a keyed stream"):
        numbers.connect(numbers.broadcast(FACTORS)).process(Count())
    with pytest.raises(TypeError, match="got OutputTag without process_element"):
        numbers.connect(numbers.broadcast(FACTORS)).process(OutputTag("x"))


def test_every_key_group_keeps_the_same_broadcast_state():
    from weir.testing.harness import KeyedOperatorHarness

    harness = KeyedOperatorHarness(
        BroadcastSpec(Scale(), (FACTORS,)), (lambda v: v, lambda v: None)
    )
    harness.broadcast_element(("x", 3))
    harness.process_element1(2).process_element1(5)
    assert harness.extract_values() == [6, 15]
    pages = {kg: store.pages for kg, store in harness.stores.items()}
    assert len(pages) == harness.max_parallelism
    copies = {blob for p in pages.values() for pid, blob in p.items() if pid == BROADCAST_PAGE}
    assert len(copies) == 1
