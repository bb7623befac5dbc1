"""The execution core: every operator computes each record once, whatever the shape of the
job; operators of two inputs see each record with its input label; metrics count once."""

import os

import pytest

from weir.common import Duration, Types, WatermarkStrategy
from weir.datastream import KeyedProcessFunction, MapFunction
from weir.datastream.connectors import DataGeneratorSource
from weir.datastream.connectors.file_system import FileSource
from weir.datastream.state import ValueStateDescriptor
from weir.plan import graph as g
from weir.runtime import adapters
from weir.runtime.key_groups import assign_to_key_group, operator_index
from weir.runtime.output_tag import OutputTag
from weir.runtime.sinks import CollectSink
from tests.e2e.shared import wait_until

ODD = OutputTag("odd")


class CallLog:
    """Appends a line per call to a file: calls made in Spark's workers are seen too."""

    def __init__(self, path):
        self.path = path

    def write(self, line):
        with open(self.path, "a", encoding="utf-8") as handle:
            handle.write(line + "\n")

    def lines(self):
        with open(self.path, encoding="utf-8") as handle:
            return handle.read().splitlines()


class CountingEcho(KeyedProcessFunction):
    """Counts per key in state and logs every call; odd counts also go to a side output."""

    def __init__(self, log):
        self.log = log

    def open(self, runtime_context):
        self.count = runtime_context.get_state(ValueStateDescriptor("count", Types.LONG()))

    def process_element(self, value, ctx):
        count = (self.count.value() or 0) + 1
        self.count.update(count)
        self.log.write(f"{value[0]},{count}")
        yield value[0], count
        if count % 2:
            yield ODD, (value[0], count)


def _collect(stream):
    sink = CollectSink()
    stream._sink(sink, "Collect")
    return sink


def _fan_out_job(env, source, log):
    echoed = source.key_by(lambda r: r[0]).process(CountingEcho(log)).uid("echo")
    doubled = echoed.map(lambda r: (r[0], r[1] * 2))
    sinks = [
        _collect(echoed),
        _collect(doubled),
        _collect(echoed.get_side_output(ODD)),
        _collect(echoed.union(echoed.get_side_output(ODD))),
    ]
    return sinks


def test_fan_out_runs_the_user_function_once_per_record(any_env, tmp_path):
    records = [(f"k{i % 7}", i) for i in range(200)]
    log = CallLog(str(tmp_path / "calls.log"))
    sinks = _fan_out_job(any_env, any_env.from_collection(records), log)
    any_env.execute("fan-out")

    calls = log.lines()
    assert len(calls) == 200
    assert len(set(calls)) == 200  # one state per key: no count is produced twice
    expected = sorted(
        (f"k{k}", n)
        for k in range(7)
        for n in range(1, sum(1 for i in range(200) if i % 7 == k) + 1)
    )
    assert sorted(sinks[0].results) == expected
    assert sorted(sinks[1].results) == sorted((k, 2 * n) for k, n in expected)
    assert sorted(sinks[2].results) == [(k, n) for k, n in expected if n % 2]
    assert sorted(sinks[3].results) == sorted(expected + [(k, n) for k, n in expected if n % 2])


def _write_json_lines(path, records):
    with open(path, "w", encoding="utf-8") as handle:
        for key, number in records:
            handle.write(f'{{"key": "{key}", "n": {number}}}\n')


def _batch_ids(directory):
    return (
        sorted(int(n) for n in os.listdir(directory) if n.isdigit())
        if os.path.isdir(directory)
        else []
    )


def _all_batches_committed(checkpoint):
    """Spark writes a batch's sink output before its commit: a job cancelled in between
    runs that batch again when restarted, and calls its functions again, as Flink does
    after a restart from the checkpoint before."""
    started = _batch_ids(os.path.join(checkpoint, "offsets"))
    return bool(started) and _batch_ids(os.path.join(checkpoint, "commits"))[-1:] == started[-1:]


@pytest.mark.spark
def test_fan_out_keeps_one_state_across_a_restart_from_checkpoint(spark_env, tmp_path):
    """A monitored directory, stopped after its first file and restarted from the
    checkpoint with a second file: the counts go on from the stored state, computed once."""
    data, checkpoint = tmp_path / "in", str(tmp_path / "checkpoint")
    data.mkdir()
    log = CallLog(str(tmp_path / "calls.log"))
    spark_env.enable_checkpointing(100)
    spark_env.get_checkpoint_config().set_checkpoint_storage_dir(checkpoint)
    runs = []
    for part in range(2):
        _write_json_lines(
            str(data / f"part{part}.json"),
            [(f"k{i % 3}", i) for i in range(part * 30, part * 30 + 30)],
        )
        source = spark_env.from_source(
            FileSource.for_json_lines(str(data))
            .monitor_continuously(Duration.of_millis(100))
            .build(),
            WatermarkStrategy.no_watermarks(),
            "numbers",
        ).map(lambda row: (row.key, row.n))
        runs.append(_fan_out_job(spark_env, source, log))
        client = spark_env.execute_async(f"restarted-{part}")
        wait_until(
            lambda: len(runs[-1][3].results) >= 45,  # 30 records, 15 of them odd
            f"run {part}'s 45 union results",
            120,
            state=lambda: len(runs[-1][3].results),
        )
        wait_until(
            lambda: _all_batches_committed(checkpoint), f"run {part}'s micro-batches committed", 120
        )
        client.cancel()

    calls = log.lines()
    assert len(calls) == 60 and len(set(calls)) == 60
    second = sorted(runs[1][0].results)  # the restarted job's counts continue at 11
    assert second == sorted((f"k{k}", n) for k in range(3) for n in range(11, 21))
    assert sorted(runs[1][2].results) == [(k, n) for k, n in second if n % 2]


@pytest.mark.spark
def test_a_checkpoint_restores_only_at_its_max_parallelism(spark_env, tmp_path):
    """Keyed state lives in max-parallelism key groups: another max parallelism is
    refused before the job starts, as Flink refuses it."""
    spark_env.get_checkpoint_config().set_checkpoint_storage_dir(str(tmp_path / "cp"))
    counts = _collect(
        spark_env.from_collection([("a", 1), ("b", 2), ("a", 3)]).key_by(lambda r: r[0]).sum(1)
    )
    spark_env.execute("written")
    assert sorted(counts.results) == [("a", 1), ("a", 4), ("b", 2)]

    spark_env.set_max_parallelism(64)
    _collect(spark_env.from_collection([("a", 5)]).key_by(lambda r: r[0]).sum(1))
    with pytest.raises(
        ValueError,
        match="written with max parallelism 128 and cannot be restored with max parallelism 64",
    ):
        spark_env.execute("restored")


class Pairing:
    """A keyed operator of two inputs: remembers each side's latest value per key."""

    def __init__(self):
        self.left = self.right = None

    def open(self, runtime_context):
        self.left = runtime_context.get_state(ValueStateDescriptor("left"))
        self.right = runtime_context.get_state(ValueStateDescriptor("right"))

    def process_element1(self, value, ctx):
        self.left.update(value[1])
        yield "first", ctx.get_current_key(), value[1], self.right.value()

    def process_element2(self, value, ctx):
        self.right.update(value["v"])
        yield "second", ctx.get_current_key(), value["v"], self.left.value()


def _two_input_job(env, left_records, right_records):
    left = env.from_collection(left_records)
    right = env.from_collection(right_records).map(lambda r: {"id": r[0], "v": r[1]})
    node = env._graph.add(
        g.KEYED,
        "Pairing",
        (left._node_id, right._node_id),
        key_selectors=(lambda r: r[0], lambda r: r["id"]),
        function=adapters.KeyedCoProcess(Pairing()),
    )
    from weir.datastream.data_stream import DataStream

    return _collect(DataStream(env, node.id))


def test_two_input_operator_sees_each_record_with_its_input(any_env):
    sink = _two_input_job(any_env, [("a", 1), ("b", 2), ("a", 3)], [("a", 10), ("c", 30)])
    any_env.execute("two inputs")
    out = sorted(sink.results, key=repr)
    firsts = [r for r in out if r[0] == "first"]
    seconds = [r for r in out if r[0] == "second"]
    assert sorted(r[1:3] for r in firsts) == [("a", 1), ("a", 3), ("b", 2)]
    assert sorted(r[1:3] for r in seconds) == [("a", 10), ("c", 30)]
    # Each side reads the other side's state of the same key, never another key's.
    assert {r[3] for r in firsts if r[1] == "b"} == {None}
    assert {r[3] for r in seconds if r[1] == "c"} == {None}
    assert all(r[3] in (None, 10) for r in firsts if r[1] == "a")
    assert all(r[3] in (None, 1, 3) for r in seconds if r[1] == "a")


class LateCounter(KeyedProcessFunction):
    """Counts records behind the watermark in a metric, as the window operator does."""

    def open(self, runtime_context):
        self.late = runtime_context.get_metrics_group().counter("late")

    def process_element(self, value, ctx):
        if ctx.timestamp() <= ctx.timer_service().current_watermark():
            self.late.inc()
        yield value


def _records(env, strategy):
    """Six (key, timestamp) records, two per micro-batch, some behind the watermark."""
    records = [("a", 5000), ("a", 1000), ("b", 9000), ("b", 2000), ("a", 3000), ("b", 1)]
    batched = DataGeneratorSource(records.__getitem__, count=len(records), max_records_per_batch=2)
    return env.from_source(batched, strategy, "records")


def _late_job(env):
    source = _records(
        env,
        WatermarkStrategy.for_bounded_out_of_orderness(
            Duration.of_millis(0)
        ).with_timestamp_assigner(lambda r, ts: r[1]),
    )
    _collect(source.key_by(lambda r: r[0]).process(LateCounter()).uid("late"))


@pytest.mark.spark
def test_metrics_count_a_replayed_batch_once(spark_env, monkeypatch):
    from weir.spark.executor import SparkJob

    _late_job(spark_env)
    plain = spark_env.execute("plain").get_metrics()
    assert plain == {"late.late": 3, "source-0.numRecordsOut": 6, "sink-0.numRecordsIn": 6}

    write = SparkJob._write_batch

    def write_twice(self, frame, batch_id):  # foreachBatch run again for the same batch
        write(self, frame, batch_id)
        write(self, frame, batch_id)

    monkeypatch.setattr(SparkJob, "_write_batch", write_twice)
    _late_job(spark_env)
    assert spark_env.execute("replayed").get_metrics() == plain


def test_metrics_of_a_local_job(local_env):
    _late_job(local_env)
    assert local_env.execute("local").get_metrics() == {
        "late.late": 3,
        "source-0.numRecordsOut": 6,
        "sink-0.numRecordsIn": 6,
    }


class Timestamps(MapFunction):
    """Counts and distributes the records' timestamps in metrics of a sub group."""

    def open(self, runtime_context):
        group = runtime_context.get_metrics_group()
        self.seen = group.add_group("by", "kind").counter("seen")
        self.timestamps = group.add_group("values").distribution("ts")

    def map(self, value):
        self.seen.inc()
        self.timestamps.update(value[1])
        return value


class Rates(KeyedProcessFunction):
    def open(self, runtime_context):
        metrics = runtime_context.get_metrics_group()
        self.records = metrics.meter("records", time_span_in_seconds=600)
        limit = runtime_context.get_max_number_of_parallel_subtasks()
        metrics.gauge("max_parallelism", lambda: limit)

    def process_element(self, value, ctx):
        self.records.mark_event()
        yield value


def _user_metrics_job(env):
    mapped = _records(env, WatermarkStrategy.no_watermarks()).map(Timestamps()).uid("timestamps")
    _collect(mapped.key_by(lambda r: r[0]).process(Rates()).uid("rates"))


USER_METRICS = {
    "timestamps.by.kind.seen": 6,
    "timestamps.values.ts.count": 6,
    "timestamps.values.ts.sum": 20001,
    "timestamps.values.ts.min": 1,
    "timestamps.values.ts.max": 9000,
    "timestamps.values.ts.mean": 20001 / 6,
    "rates.records": 6 / 600,
    "rates.max_parallelism": 128,
    "source-0.numRecordsOut": 6,
    "sink-0.numRecordsIn": 6,
}


def test_counters_gauges_meters_and_distributions_of_a_local_job(local_env):
    _user_metrics_job(local_env)
    assert local_env.execute("local").get_metrics() == USER_METRICS


@pytest.mark.spark
def test_counters_gauges_meters_and_distributions_on_spark(spark_env):
    _user_metrics_job(spark_env)
    assert spark_env.execute("spark").get_metrics() == USER_METRICS


class SubtaskOfKey(KeyedProcessFunction):
    def open(self, runtime_context):
        self.index = runtime_context.get_index_of_this_subtask()
        self.parallelism = runtime_context.get_number_of_parallel_subtasks()

    def process_element(self, value, ctx):
        yield value, self.index, self.parallelism


def test_each_parallel_instance_of_a_keyed_operator_knows_its_subtask(any_env):
    """Each subtask of a keyed operator, and of a map fused behind it, opens its own copy
    of the function with its own index: the subtask owning the key's key group."""
    env = any_env.set_parallelism(3)

    class Tag(MapFunction):
        def open(self, runtime_context):
            self.index = runtime_context.get_index_of_this_subtask()

        def map(self, value):
            return (*value, self.index)

    keys = [f"key-{i}" for i in range(12)]
    tagged = env.from_collection(keys).key_by(lambda k: k).process(SubtaskOfKey()).map(Tag())
    results = sorted(tagged.execute_and_collect())
    owner = {k: operator_index(assign_to_key_group(k, 128), 128, 3) for k in keys}
    assert results == sorted((k, owner[k], 3, owner[k]) for k in keys)
    assert set(owner.values()) == {0, 1, 2}


class OpenLog(MapFunction):
    """Logs (what, process, subtask) when opened; passes records on."""

    def __init__(self, log, what):
        self.log, self.what = log, what

    def open(self, runtime_context):
        self.log.write(f"{self.what},{os.getpid()},{runtime_context.get_index_of_this_subtask()}")

    def map(self, value):
        return value


class KeyedOpenLog(KeyedProcessFunction):
    def __init__(self, log):
        self.log = log

    def open(self, runtime_context):
        self.log.write(f"keyed,{os.getpid()},{runtime_context.get_index_of_this_subtask()}")

    def process_element(self, value, ctx):
        yield value


def test_spark_workers_open_each_subtask_once_across_micro_batches(spark_env, tmp_path):
    """Flink opens one instance per subtask for the job; a Spark worker process keeps the
    instances it opened for the later micro-batches of the same run."""
    log = CallLog(str(tmp_path / "opens.log"))
    source = spark_env.from_source(
        DataGeneratorSource(lambda i: i, count=60, num_splits=2, max_records_per_batch=10),
        None,
        "numbers",
    )
    results = _collect(
        source.map(OpenLog(log, "source"))
        .key_by(lambda v: v % 7)
        .process(KeyedOpenLog(log))
        .map(OpenLog(log, "behind"))
    )
    spark_env.execute("opened once")
    assert sorted(results.results) == list(range(60))
    opens = log.lines()
    assert len(opens) == len(set(opens))  # no (function, process, subtask) opened twice
    for what in ("source", "keyed", "behind"):
        assert {line.split(",")[2] for line in opens if line.startswith(what)} == {"0", "1"}
