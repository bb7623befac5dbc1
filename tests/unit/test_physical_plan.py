"""The physical plan: stages, fused stateless nodes, targets with input labels; and an
operator of two inputs driven through the harness."""

import pytest

from weir.common import Duration, WatermarkStrategy
from weir.datastream import KeyedProcessFunction, StreamExecutionEnvironment
from weir.datastream.state import ValueStateDescriptor
from weir.plan import graph as g
from weir.plan.physical import Edge, compile_plan
from weir.control.watermarks import OwnWatermarks
from weir.runtime import adapters
from weir.runtime.output_tag import OutputTag
from weir.testing.harness import KeyedOperatorHarness

SIDE = OutputTag("side")


class Echo(KeyedProcessFunction):
    def process_element(self, value, ctx):
        yield value
        yield SIDE, value


def _plan(env):
    return compile_plan(env._graph.upstream_of(env._graph.sinks()), env)


def test_stateless_nodes_are_fused_behind_their_producer_and_routed_to_each_consumer():
    env = StreamExecutionEnvironment.get_execution_environment()
    source = env.from_collection([1, 2]).map(lambda x: x + 1)
    first = source.key_by(lambda x: x % 2).process(Echo()).uid("first")
    first.map(str).print()
    first.get_side_output(SIDE).key_by(lambda x: x).process(Echo()).uid("second").print()
    source.filter(bool).print()
    plan = _plan(env)

    assert [s.uid for s in plan.sources] == ["source-0"]
    assert [[t.uid for t in stage] for stage in plan.stages] == [["first"], ["second"]]
    fused = plan.sources[0].fused
    assert [h.node.kind for h in fused.hops] == ["stateless", "stateless"]  # map, filter
    assert sorted((t.uid, t.stage) for _, t in fused.targets) == [("first", 1), ("sink-2", 3)]
    behind_first = plan.keyed[0].fused
    assert [(h.node.kind, h.inputs) for h in behind_first.hops] == [
        ("stateless", [Edge(None)]),
        ("side_output", [Edge(None, "side")]),
    ]
    assert {t.uid: edge for edge, t in behind_first.targets} == {
        "sink-0": Edge(0),
        "second": Edge(1),
    }


def test_a_keyed_operator_runs_one_stage_after_its_latest_producer():
    env = StreamExecutionEnvironment.get_execution_environment()
    source = env.from_collection([1, 2])
    first = source.key_by(lambda x: x).process(Echo()).uid("first")
    first.union(source).key_by(lambda x: x).process(Echo()).uid("both").print()
    plan = _plan(env)
    assert {t.uid: t.stage for t in plan.keyed} == {"first": 1, "both": 2}
    direct = [t for _, t in plan.sources[0].fused.targets if t.uid == "both"]
    assert [(t.stage, t.input) for t in direct] == [(2, 0)]  # passes through stage 1


def test_inputs_of_a_two_input_operator_are_labelled_by_position():
    env = StreamExecutionEnvironment.get_execution_environment()
    left, right = env.from_collection([1]), env.from_collection(["a"])
    node = env._graph.add(
        g.KEYED,
        "Pair",
        (left._node_id, right._node_id),
        key_selectors=(lambda x: x, len),
        function=adapters.KeyedCoProcess(Pairing()),
    )
    env._graph.add(g.SINK, "Print", (node.id,), sink=None)
    plan = _plan(env)
    labels = {s.uid: [(t.uid, t.input) for _, t in s.fused.targets] for s in plan.sources}
    assert labels == {"source-0": [("keyed-0", 0)], "source-1": [("keyed-0", 1)]}


def test_an_operator_that_some_watermark_group_does_not_reach_gets_its_own():
    env = StreamExecutionEnvironment.get_execution_environment()
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(9))
    a = env.from_collection([1]).assign_timestamps_and_watermarks(strategy)
    b = env.from_collection([2]).assign_timestamps_and_watermarks(strategy)
    a.key_by(lambda x: x).process(Echo()).uid("a-only").print()
    a.union(b).key_by(lambda x: x).process(Echo()).uid("both").print()
    plan = _plan(env)
    assert [t.uid for t in plan.own_watermarks] == ["a-only"]
    own = OwnWatermarks(plan)
    a_group = next(iter(plan.own_watermarks[0].watermark_groups))
    b_group = 1 - a_group
    assert own.advance({b_group: 50}) == {}  # a has no timestamp yet: nothing to follow
    assert own.advance({a_group: 1010, b_group: 50}) == {"a-only": 1000}
    assert own.advance({a_group: 1005, b_group: 60}) == {}  # never goes back
    assert own.of("a-only", 40) == 1000 and own.of("both", 40) == 40


def test_an_idle_group_does_not_hold_an_operators_own_watermark():
    """An idle group's announced timestamps follow the whole job (here the slow `a`,
    which does not reach the operator): as in Flink, the operator leaves it out."""
    env = StreamExecutionEnvironment.get_execution_environment()
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(Duration.of_millis(9))
    a, b, c = (
        env.from_collection([i]).assign_timestamps_and_watermarks(strategy) for i in range(3)
    )
    a.map(str).print()
    b.union(c).key_by(lambda x: x).process(Echo()).uid("b-and-c").print()
    plan = _plan(env)
    group = {
        s.uid: i
        for i, grp in enumerate(plan.watermark_groups)
        for s in plan.sources
        if s.uid in grp.sources
    }
    ga, gb, gc = (group[s.uid] for s in plan.sources)
    own = OwnWatermarks(plan)
    assert own.advance({ga: 210, gb: 210, gc: 20010}, idle={gb}) == {"b-and-c": 20000}
    assert own.advance({ga: 300, gb: 300, gc: 20020}, idle={gb, gc}) == {}  # all idle


def test_one_source_with_two_watermark_strategies_is_refused_clearly():
    env = StreamExecutionEnvironment.get_execution_environment()
    source = env.from_collection([1])
    for bound in (1, 2):
        source.assign_timestamps_and_watermarks(
            WatermarkStrategy.for_bounded_out_of_orderness(
                Duration.of_millis(bound)
            ).with_timestamp_assigner(lambda x, ts: x)
        ).print()
    with pytest.raises(NotImplementedError, match="one watermark strategy per source"):
        _plan(env)


class Pairing:
    def open(self, runtime_context):
        self.left = runtime_context.get_state(ValueStateDescriptor("left"))
        self.right = runtime_context.get_state(ValueStateDescriptor("right"))

    def process_element1(self, value, ctx):
        self.left.update(value)
        ctx.timer_service().register_event_time_timer(ctx.timestamp() + 10)
        yield "first", ctx.get_current_key(), value, self.right.value()

    def process_element2(self, value, ctx):
        self.right.update(value)
        yield "second", ctx.get_current_key(), value, self.left.value()

    def on_timer(self, timestamp, ctx):
        yield "timer", ctx.get_current_key(), self.left.value(), self.right.value()


def test_two_input_operator_in_the_harness_shares_keyed_state_and_timers():
    h = KeyedOperatorHarness(Pairing(), (lambda v: v[0], lambda v: v["id"]))
    h.process_element1(("a", 1), 100)
    h.process_element2({"id": "a", "n": 2}, 105)
    h.process_element2({"id": "b", "n": 3}, 106)
    h.process_element1(("b", 4), 107)
    assert h.extract_values() == [
        ("first", "a", ("a", 1), None),
        ("second", "a", {"id": "a", "n": 2}, ("a", 1)),
        ("second", "b", {"id": "b", "n": 3}, None),
        ("first", "b", ("b", 4), {"id": "b", "n": 3}),
    ]
    snapshot = h.snapshot()
    h = KeyedOperatorHarness.restore(Pairing(), (lambda v: v[0], lambda v: v["id"]), snapshot)
    h.process_watermark(120)
    assert sorted(h.extract_outputs(), key=repr) == [
        (("timer", "a", ("a", 1), {"id": "a", "n": 2}), 110),
        (("timer", "b", ("b", 4), {"id": "b", "n": 3}), 117),
    ]
