"""Flink's State Processor API on Spark: a job's keyed state (ValueState, ListState,
MapState) in a savepoint, read back as a DataFrame and queried with Spark SQL, is exactly
the state of the records the job processed before it stopped."""

import os

import pytest

from tests.e2e.shared import read_part_files, wait_until
from weir.common import Duration, Types, WatermarkStrategy
from weir.common.job import JobStatus
from weir.datastream import KeyedProcessFunction, StreamExecutionEnvironment
from weir.datastream.connectors import DataGeneratorSource, FileSink
from weir.datastream.state import ListStateDescriptor, MapStateDescriptor, ValueStateDescriptor
from weir.state import read_keyed_state, read_keyed_state_rows

pytestmark = pytest.mark.spark

EVENTS, PER_BATCH, RATE = 20_000, 40, 200  # more than the job reads before it is stopped
UID = "keyed-state"


def event(index):
    return (f"k{index % 5}", index)


class KeepState(KeyedProcessFunction):
    """Per key: a count (untyped ValueState), every 3rd index seen (ListState) and how
    many even and odd indexes it saw (MapState); emits each record's key and index."""

    def open(self, runtime_context):
        self.count = runtime_context.get_state(ValueStateDescriptor("count"))
        self.thirds = runtime_context.get_list_state(ListStateDescriptor("thirds", Types.INT()))
        self.parity = runtime_context.get_map_state(
            MapStateDescriptor("parity", Types.STRING(), Types.LONG())
        )

    def process_element(self, value, ctx):
        key, index = value
        self.count.update((self.count.value() or 0) + 1)
        if index % 3 == 0:
            self.thirds.add(index)
        side = "even" if index % 2 == 0 else "odd"
        self.parity.put(side, (self.parity.get(side) or 0) + 1)
        yield {"key": key, "index": index}


def run_and_stop_with_savepoint(spark, tmp_path) -> tuple:
    """Runs the job until it wrote 100 records, stops it with a savepoint; returns the
    savepoint's path and the (key, index) pairs the job processed."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_spark_session(spark).set_parallelism(2)
    env.enable_checkpointing(100)
    env.get_checkpoint_config().set_checkpoint_storage_dir(str(tmp_path / "checkpoint"))
    source = DataGeneratorSource(
        event, count=EVENTS, records_per_second=RATE, max_records_per_batch=PER_BATCH
    )
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_millis(0)
    ).with_timestamp_assigner(lambda e, ts: e[1])
    env.from_source(source, strategy, "events").uid("events").key_by(lambda e: e[0]).process(
        KeepState()
    ).uid(UID).sink_to(FileSink.for_json_lines(str(tmp_path / "out")).build())
    client = env.execute_async("state to read")
    out = str(tmp_path / "out")
    wait_until(
        lambda: os.path.isdir(out) and len(read_part_files(out)) >= 100,
        "the job to write 100 records",
        timeout=120,
        interval=0.1,
    )
    path = client.stop_with_savepoint(False, str(tmp_path / "savepoints")).result()
    assert client.wait(60) == JobStatus.FINISHED
    processed = [(r["key"], r["index"]) for r in read_part_files(out)]
    assert 100 <= len(processed) < EVENTS
    return path, sorted(processed, key=lambda pair: pair[1])


@pytest.fixture(scope="module")
def stopped(spark, tmp_path_factory):
    return run_and_stop_with_savepoint(spark, tmp_path_factory.mktemp("state_reader"))


def per_key(processed, value_of) -> list:
    """(key, value_of(the key's indexes in order)) per key, in key order."""
    indexes = {}
    for key, index in processed:
        indexes.setdefault(key, []).append(index)
    return [(key, value_of(indexes[key])) for key in sorted(indexes)]


def test_value_state_is_each_keys_count_queried_with_spark_sql(spark, stopped):
    path, processed = stopped
    frame = read_keyed_state(spark, path, UID, ValueStateDescriptor("count"))
    assert frame.schema.simpleString() == "struct<key:string,value:bigint>"
    frame.createOrReplaceTempView("counts")
    rows = spark.sql("SELECT key, value FROM counts ORDER BY key").collect()
    assert [tuple(row) for row in rows] == per_key(processed, len)
    total = spark.sql("SELECT sum(value) AS total FROM counts").collect()[0].total
    assert total == len(processed)


def test_list_state_is_an_array_per_key(spark, stopped):
    path, processed = stopped
    frame = read_keyed_state(spark, path, UID, ListStateDescriptor("thirds", Types.INT()))
    assert frame.schema.simpleString() == "struct<key:string,value:array<int>>"
    rows = frame.orderBy("key").collect()
    expected = [
        (key, thirds)
        for key, thirds in per_key(processed, lambda indexes: [i for i in indexes if i % 3 == 0])
        if thirds
    ]  # a key that never saw a 3rd index holds no list
    assert [(row.key, row.value) for row in rows] == expected
    sizes = frame.selectExpr("key", "size(value) AS n").orderBy("key").collect()
    assert [(row.key, row.n) for row in sizes] == [(key, len(v)) for key, v in expected]


def test_map_state_is_a_map_per_key(spark, stopped):
    path, processed = stopped
    descriptor = MapStateDescriptor("parity", Types.STRING(), Types.LONG())
    frame = read_keyed_state(spark, path, UID, descriptor)
    assert frame.schema.simpleString() == "struct<key:string,value:map<string,bigint>>"
    frame.createOrReplaceTempView("parity")
    rows = spark.sql(
        "SELECT key, value['even'] AS even, value['odd'] AS odd FROM parity ORDER BY key"
    ).collect()

    def sides(indexes):
        even = sum(1 for i in indexes if i % 2 == 0)
        return (even or None, (len(indexes) - even) or None)

    assert [(row.key, row.even, row.odd) for row in rows] == [
        (key, *counts) for key, counts in per_key(processed, sides)
    ]


def test_a_state_never_written_is_an_empty_frame_of_its_type(spark, stopped):
    path, _ = stopped
    frame = read_keyed_state(spark, path, UID, ValueStateDescriptor("never", Types.STRING()))
    assert frame.schema.simpleString() == "struct<key:string,value:string>"
    assert frame.collect() == []
    assert read_keyed_state_rows(path, UID, "never") == []


def test_rows_in_pure_python_are_the_frames_rows(spark, stopped):
    path, _ = stopped
    frame = read_keyed_state(spark, path, UID, ValueStateDescriptor("count"))
    assert sorted(read_keyed_state_rows(path, UID, "count")) == [
        tuple(row) for row in frame.orderBy("key").collect()
    ]
