"""The DataStream API end to end, each program on both engines (in-process and Spark)."""

import time

import pytest

from weir.common import Duration, Row, Types, WatermarkStrategy
from weir.datastream import (
    KeyedProcessFunction,
    MapFunction,
    OutputTag,
    ProcessFunction,
    RuntimeExecutionMode,
)
from weir.datastream.connectors import DataGeneratorSource
from weir.datastream.state import MapStateDescriptor, ValueStateDescriptor
from weir.common.job import JobExecutionError
from weir.runtime.key_groups import assign_to_key_group

pytestmark = pytest.mark.spark


def batched_source(records, per_batch):
    """A bounded source giving `per_batch` records per micro-batch, in order."""
    return DataGeneratorSource(
        records.__getitem__, count=len(records), max_records_per_batch=per_batch
    )


def by_timestamp(bound_ms=0):
    return WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_millis(bound_ms)
    ).with_timestamp_assigner(lambda r, ts: r[1])


class Bucket(ProcessFunction):
    def process_element(self, value, ctx):
        if value % 3 == 0:
            yield OutputTag("threes"), f"three:{value}"
        else:
            yield value


def test_stateless_operators_union_and_side_outputs(any_env):
    env = any_env
    numbers = env.from_collection(list(range(1, 11)))
    processed = numbers.flat_map(lambda x: [x, x + 100]).filter(lambda x: x < 100).process(Bucket())
    more = env.from_collection([1000, 2000]).map(lambda x: x // 1000)
    merged = processed.union(more).map(lambda x: x * 2, output_type=Types.INT())
    threes = processed.get_side_output(OutputTag("threes"))
    main_sink, side_sink = [], []
    merged.add_sink(lambda v, ctx: main_sink.append(v))
    threes.add_sink(lambda v, ctx: side_sink.append(v))
    env.execute("stateless")
    assert sorted(main_sink) == [2, 2, 4, 4, 8, 10, 14, 16, 20]
    assert sorted(side_sink) == ["three:3", "three:6", "three:9"]


class RunningCount(MapFunction):
    def open(self, runtime_context):
        self.count = runtime_context.get_state(ValueStateDescriptor("count", Types.LONG()))

    def map(self, value):
        count = (self.count.value() or 0) + 1
        self.count.update(count)
        return value[0], count


def test_keyed_map_reduce_and_rolling_aggregations_keep_per_key_order(any_env):
    env = any_env
    records = [("a", 3), ("b", 1), ("a", 1), ("a", 7), ("b", 5), ("a", 2)]
    source = env.from_source(
        batched_source(records, 2), WatermarkStrategy.no_watermarks(), "records"
    )
    keyed = source.key_by(lambda r: r[0])
    results = {name: [] for name in ("count", "reduce", "sum", "min", "max_by")}
    keyed.map(RunningCount()).add_sink(lambda v, c: results["count"].append(v))
    keyed.reduce(lambda a, b: (a[0], a[1] * b[1])).add_sink(
        lambda v, c: results["reduce"].append(v)
    )
    keyed.sum(1).add_sink(lambda v, c: results["sum"].append(v))
    keyed.min(1).add_sink(lambda v, c: results["min"].append(v))
    keyed.max_by(1).add_sink(lambda v, c: results["max_by"].append(v))
    env.execute("keyed")

    def per_key(values, k):
        return [v for v in values if v[0] == k]

    assert per_key(results["count"], "a") == [("a", 1), ("a", 2), ("a", 3), ("a", 4)]
    assert per_key(results["reduce"], "a") == [("a", 3), ("a", 3), ("a", 21), ("a", 42)]
    assert per_key(results["sum"], "a") == [("a", 3), ("a", 4), ("a", 11), ("a", 13)]
    assert per_key(results["sum"], "b") == [("b", 1), ("b", 6)]
    assert per_key(results["min"], "a") == [("a", 3), ("a", 1), ("a", 1), ("a", 1)]
    assert per_key(results["max_by"], "b") == [("b", 1), ("b", 5)]


class LateAware(KeyedProcessFunction):
    """Emits each record with the watermark it saw; counts per key at end of input."""

    def open(self, runtime_context):
        self.count = runtime_context.get_state(ValueStateDescriptor("count"))

    def process_element(self, value, ctx):
        watermark = ctx.timer_service().current_watermark()
        kind = "late" if ctx.timestamp() <= watermark else "on-time"
        self.count.update((self.count.value() or 0) + 1)
        ctx.timer_service().register_event_time_timer(ctx.timestamp() + 1000)
        yield kind, value[0], ctx.timestamp()

    def on_timer(self, timestamp, ctx):
        yield "timer", ctx.get_current_key(), timestamp, self.count.value()


class FinalCount(KeyedProcessFunction):
    """Registers a timer far beyond any event time: only the end of input fires it."""

    def open(self, runtime_context):
        self.count = runtime_context.get_state(ValueStateDescriptor("count"))

    def process_element(self, value, ctx):
        self.count.update((self.count.value() or 0) + 1)
        ctx.timer_service().register_event_time_timer(2**62)

    def on_timer(self, timestamp, ctx):
        yield (
            ctx.get_current_key(),
            self.count.value(),
            timestamp,
            ctx.timer_service().current_watermark(),
        )


def test_end_of_input_fires_timers_at_any_timestamp(any_env):
    env = any_env
    records = [("a", 1000), ("b", 5000), ("a", 2000)]
    source = env.from_source(batched_source(records, 2), by_timestamp(0), "records")
    out = sorted(source.key_by(lambda r: r[0]).process(FinalCount()).execute_and_collect())
    assert out == [("a", 2, 2**62, 2**63 - 1), ("b", 1, 2**62, 2**63 - 1)]


def test_event_time_late_records_and_end_of_input_timers(any_env):
    env = any_env
    records = [("a", 1000), ("b", 5000), ("a", 2000), ("b", 4000), ("a", 9000), ("b", 100)]
    source = env.from_source(batched_source(records, 2), by_timestamp(1000), "records")
    out = list(source.key_by(lambda r: r[0]).process(LateAware()).execute_and_collect())
    # batch 0 sees the initial watermark; batch 1 sees 5000-1000-1; batch 2 sees 3999 too
    # (max seen 5000 still); the end of input fires every remaining timer.
    assert sorted(o for o in out if o[0] != "timer") == sorted(
        [
            ("on-time", "a", 1000),
            ("on-time", "b", 5000),
            ("late", "a", 2000),
            ("on-time", "b", 4000),
            ("on-time", "a", 9000),
            ("late", "b", 100),
        ]
    )
    timers = sorted(o for o in out if o[0] == "timer")
    assert timers == [
        ("timer", "a", 2000, 1),
        ("timer", "a", 3000, 2),
        ("timer", "a", 10000, 3),
        ("timer", "b", 1100, 3),
        ("timer", "b", 5000, 3),
        ("timer", "b", 6000, 3),
    ]


class SumUntilTimer(KeyedProcessFunction):
    """Sums per key and 10 s bucket; emits a bucket's sum when the watermark passes it."""

    def open(self, runtime_context):
        self.totals = runtime_context.get_map_state(MapStateDescriptor("totals"))

    def process_element(self, value, ctx):
        end = (ctx.timestamp() // 10_000 + 1) * 10_000
        self.totals.put(end, (self.totals.get(end) or 0) + value[2])
        ctx.timer_service().register_event_time_timer(end)

    def on_timer(self, timestamp, ctx):
        yield Row(
            region=ctx.get_current_key()[0],
            sensor=ctx.get_current_key(),
            total=self.totals.get(timestamp),
            end=timestamp,
        )
        self.totals.remove(timestamp)


class RegionMax(KeyedProcessFunction):
    def open(self, runtime_context):
        self.best = runtime_context.get_state(ValueStateDescriptor("best"))

    def process_element(self, value, ctx):
        best = self.best.value()
        if best is None or value.total > best:
            self.best.update(value.total)
        ctx.timer_service().register_event_time_timer(ctx.timestamp())

    def on_timer(self, timestamp, ctx):
        yield ctx.get_current_key(), timestamp, self.best.value()


@pytest.mark.parametrize("between", ["nothing", "map"])
def test_chained_keyed_operators_keep_event_time(any_env, between):
    env = any_env
    records = [
        ("x1", 1000, 5),
        ("x2", 2000, 7),
        ("y1", 3000, 1),
        ("x1", 12000, 2),
        ("y1", 15000, 4),
        ("x2", 25000, 9),
        ("z1", 26000, 0),
    ]
    source = env.from_source(batched_source(records, 2), by_timestamp(0), "readings")
    sums = source.key_by(lambda r: r[0]).process(SumUntilTimer())
    if between == "map":  # a stateless step between keyed operators keeps each phase
        sums = sums.map(lambda r: Row(region=r.region, sensor=r.sensor, total=r.total, end=r.end))
    out = list(sums.key_by(lambda r: r.region).process(RegionMax()).execute_and_collect())
    # Bucket 20000 closes at watermark 24999 (batch 3), before x2's 9 arrives downstream.
    assert sorted(out) == [
        ("x", 10000, 7),
        ("x", 20000, 7),
        ("x", 30000, 9),
        ("y", 10000, 1),
        ("y", 20000, 4),
        ("z", 30000, 0),
    ]


def test_batch_mode_has_no_late_records_and_fires_timers_at_the_end(any_env):
    env = any_env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    records = [("a", 1000), ("b", 5000), ("a", 2000), ("b", 4000), ("a", 9000), ("b", 100)]
    source = env.from_source(batched_source(records, 2), by_timestamp(1000), "records")
    out = sorted(source.key_by(lambda r: r[0]).process(LateAware()).execute_and_collect())
    assert out == sorted(
        [("on-time", k, ts) for k, ts in records]
        + [
            ("timer", "a", 2000, 3),
            ("timer", "a", 3000, 3),
            ("timer", "a", 10000, 3),
            ("timer", "b", 1100, 3),
            ("timer", "b", 5000, 3),
            ("timer", "b", 6000, 3),
        ]
    )


def test_batch_mode_rejects_unbounded_sources(local_env):
    env = local_env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    env.from_source(DataGeneratorSource(lambda i: i), None, "endless").print()
    with pytest.raises(ValueError, match="BATCH mode needs bounded sources"):
        env.execute("endless")


def test_batch_and_streaming_modes_agree(any_env):
    def run(mode):
        env = any_env
        env.set_runtime_mode(mode)
        records = [("a", 1000), ("b", 5000), ("a", 2000), ("b", 4000), ("a", 9000)]
        source = env.from_source(batched_source(records, 5), by_timestamp(1000), "records")
        result = sorted(source.key_by(lambda r: r[0]).process(LateAware()).execute_and_collect())
        env.set_runtime_mode(RuntimeExecutionMode.STREAMING)
        return result

    batch = run(RuntimeExecutionMode.BATCH)
    assert batch == run(RuntimeExecutionMode.STREAMING)
    assert [r for r in batch if r[0] == "timer"] == [
        ("timer", "a", 2000, 3),
        ("timer", "a", 3000, 3),
        ("timer", "a", 10000, 3),
        ("timer", "b", 5000, 2),
        ("timer", "b", 6000, 2),
    ]


class Explode(KeyedProcessFunction):
    def process_element(self, value, ctx):
        if value == 3:
            raise RuntimeError("bad reading 3")
        yield value


def test_user_function_errors_name_operator_and_line(any_env):
    env = any_env
    out = env.from_collection([1, 2, 3]).key_by(lambda x: x % 2).process(Explode()).uid("exploder")
    out.add_sink(lambda v, c: None)
    with pytest.raises(Exception) as info:
        env.execute("failing")
    message = str(info.value)
    assert "operator 'exploder'" in message
    assert f"{__file__}:" in message
    assert "bad reading 3" in message
    if env.executor == "spark":
        assert isinstance(info.value, JobExecutionError)


def test_declared_output_type_mismatch_names_the_field(any_env):
    env = any_env
    row_type = Types.ROW_NAMED(["id", "temperature"], [Types.STRING(), Types.DOUBLE()])
    out = (
        env.from_collection(["a"])
        .map(lambda s: Row(id=s, temperature="hot"), output_type=row_type)
        .name("to-row")
    )
    out.add_sink(lambda v, c: None)
    with pytest.raises(Exception, match="field 'temperature'.*expected DOUBLE"):
        env.execute("typed")


def test_each_execute_runs_the_sinks_added_since_the_previous_one(any_env, capsys):
    env = any_env
    env.from_collection(["first"]).print()
    env.execute("one")
    env.from_collection(["second"]).print()
    env.execute("two")
    prefix = "1> " if env.get_parallelism() > 1 else ""  # Flink's subtask prefix
    assert capsys.readouterr().out.splitlines() == [prefix + "first", prefix + "second"]


def slow_events(index):
    if index >= 2:
        time.sleep(0.4)  # batches 1.. take a while: processing time moves on
    return ("a", index) if index < 2 else ("b", index)


class ProcessingTimeout(KeyedProcessFunction):
    def process_element(self, value, ctx):
        if value == ("a", 0):
            now = ctx.timer_service().current_processing_time()
            ctx.timer_service().register_processing_time_timer(now + 1000)
        yield f"element {value}"

    def on_timer(self, timestamp, ctx):
        yield f"timer of {ctx.get_current_key()}"


def test_processing_time_timer_fires_for_a_key_without_further_input(any_env):
    assert assign_to_key_group("a", 128) != assign_to_key_group("b", 128)
    source = DataGeneratorSource(slow_events, count=8, max_records_per_batch=2)
    out = (
        any_env.from_source(source, WatermarkStrategy.no_watermarks(), "slow")
        .key_by(lambda v: v[0])
        .process(ProcessingTimeout())
        .execute_and_collect()
    )
    assert sorted(out) == sorted(
        [f"element {e}" for e in [("a", 0), ("a", 1)]]
        + [f"element {('b', i)}" for i in range(2, 8)]
        + ["timer of a"]
    )
