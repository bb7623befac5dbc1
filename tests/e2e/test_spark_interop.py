"""Spark's sources and sinks one call away: env.from_spark(dataframe), stream.to_spark()
and SparkSink, on the shared session."""

import glob
import os

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from weir.common import Duration, Row, Time, Types, WatermarkStrategy
from weir.common.job import JobStatus
from weir.datastream import StreamExecutionEnvironment
from weir.datastream.connectors import DataGeneratorSource
from weir.datastream.connectors.spark import SparkSink
from weir.datastream.window import TumblingEventTimeWindows
from tests.e2e.shared import RunningCount, wait_until, wait_until_at_rest

pytestmark = pytest.mark.spark

EVENTS = [
    ("a", 1_000, 1),
    ("b", 2_000, 10),
    ("a", 4_000, 2),
    ("b", 6_000, 20),
    ("a", 7_000, 3),
    ("a", 9_500, 4),
]
LATER = [("b", 8_000, 30), ("a", 30_000, 0)]  # the second moves the watermark past 10 s


def _write_parquet(path, events):
    pq.write_table(
        pa.table(
            {
                "key": [e[0] for e in events],
                "ts": [e[1] for e in events],
                "amount": [e[2] for e in events],
            }
        ),
        str(path),
    )


def test_a_streaming_parquet_dataframe_feeds_an_event_time_window(spark, spark_env, tmp_path):
    source_dir = tmp_path / "events"
    source_dir.mkdir()
    _write_parquet(source_dir / "1.parquet", EVENTS)
    frame = (
        spark.readStream.schema("key string, ts long, amount long")
        .option("maxFilesPerTrigger", 1)
        .parquet(str(source_dir))
    )
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_seconds(1)
    ).with_timestamp_assigner(lambda row, ts: row.ts)
    stream = spark_env.from_spark(frame, strategy)
    assert stream.get_type() == Types.ROW_NAMED(
        ["key", "ts", "amount"], [Types.STRING(), Types.LONG(), Types.LONG()]
    )
    sums = []
    (
        stream.map(lambda row: (row.key, row.amount), Types.TUPLE([Types.STRING(), Types.LONG()]))
        .key_by(lambda pair: pair[0])
        .window(TumblingEventTimeWindows.of(Time.seconds(5)))
        .reduce(lambda a, b: (a[0], a[1] + b[1]))
        .add_sink(lambda value, context: sums.append(value))
    )
    spark_env.enable_checkpointing(100)
    client = spark_env.execute_async("parquet windows")
    try:
        # the first file's windows before 8 s: [0, 5) of a and b
        wait_until(lambda: len(sums) >= 2, "the windows [0, 5)", 180, state=lambda: sums)
        _write_parquet(source_dir / "2.parquet", LATER)
        wait_until(lambda: len(sums) >= 4, "the windows [5, 10)", 180, state=lambda: sums)
        # nothing more fires: the windows from 30 s stay open, whatever micro-batches run
        # (the query runs every one there is, for the input and the watermark, until a
        # trigger finds nothing more to do)
        wait_until_at_rest(client.query, "the query at rest after the second file")
        assert client.get_job_status() == JobStatus.RUNNING
    finally:
        client.cancel()
    assert sorted(sums) == [("a", 3), ("a", 7), ("b", 10), ("b", 50)]


def test_a_batch_dataframe_is_a_bounded_source(spark, spark_env):
    frame = spark.createDataFrame(
        [("a", 1), ("b", 2), ("a", 3), ("c", 4), ("a", 5)], "word string, n int"
    )
    stream = spark_env.from_spark(frame)
    counted = stream.key_by(lambda row: row.word).reduce(lambda a, b: Row(word=a.word, n=a.n + b.n))
    finals = sorted(tuple(row) for row in counted.execute_and_collect())
    assert finals == [("a", 1), ("a", 4), ("a", 9), ("b", 2), ("c", 4)]


COUNT = Types.ROW_NAMED(["key", "ts", "n"], [Types.STRING(), Types.INT(), Types.INT()])


def _counts(env, events):
    source = DataGeneratorSource(
        lambda i: (f"k{i % 3}", i * 10), count=events, max_records_per_batch=10
    )
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(
        lambda event, ts: event[1]
    )
    return (
        env.from_source(source, strategy, "events")
        .key_by(lambda event: event[0])
        .process(RunningCount(), COUNT)
        .uid("running-count")
    )


def _expected_counts(events):
    return sorted(
        [(f"k{i % 3}", i * 10, i // 3 + 1) for i in range(events)]
        + [(f"k{k}", -1, events // 3) for k in range(3)]
    )


def test_to_spark_gives_a_streaming_dataframe_the_user_writes(spark, spark_env, tmp_path):
    frame = _counts(spark_env, 30).to_spark()
    assert frame.isStreaming
    assert frame.columns == ["key", "ts", "n"]
    query = (
        frame.writeStream.format("memory")
        .queryName("weir_to_spark_counts")
        .option("checkpointLocation", str(tmp_path / "checkpoint"))
        .trigger(availableNow=True)
        .start()
    )
    query.awaitTermination(300)
    rows = spark.table("weir_to_spark_counts").collect()
    assert sorted(tuple(row) for row in rows) == _expected_counts(30)


def _spark_sink_job(spark, checkpoint, out, events):
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_spark_session(spark).set_parallelism(2)
    env.enable_checkpointing(200)
    env.get_checkpoint_config().set_checkpoint_storage_dir(str(checkpoint))
    _counts(env, events).sink_to(SparkSink("parquet", {"path": str(out)})).uid("parquet")
    return env


def test_a_parquet_spark_sink_writes_nothing_twice_when_a_batch_replays(spark, tmp_path):
    events, checkpoint, out = 45, tmp_path / "checkpoint", tmp_path / "out"
    _spark_sink_job(spark, checkpoint, out, events).execute("counts")

    def written():
        return sorted(tuple(row) for row in spark.read.parquet(str(out)).collect())

    assert written() == _expected_counts(events)
    files = sorted(os.listdir(out))
    assert len(os.listdir(out / "_weir_commits")) > 3  # one record per batch with records
    commits = sorted(
        glob.glob(str(checkpoint / "commits" / "[0-9]*")),
        key=lambda path: int(os.path.basename(path)),
    )
    assert len(commits) > 3
    os.remove(commits[-1])  # the crash: Spark did not record its last batch
    replayed = _spark_sink_job(spark, checkpoint, out, events).execute("again")
    assert replayed.batches >= 1  # the batch ran again
    assert written() == _expected_counts(events)
    assert sorted(os.listdir(out)) == files  # the replayed batch found its record
    assert not (out / "_weir_staging").exists()  # (removed once empty)


def test_from_spark_on_the_local_executor_is_refused(spark, local_env):
    with pytest.raises(RuntimeError, match="runs on the Spark executor only"):
        local_env.from_spark(spark.range(3))


def test_a_dataframe_of_another_session_is_refused(spark, spark_env):
    with pytest.raises(ValueError, match="another SparkSession"):
        spark_env.from_spark(spark.newSession().range(3))


def test_a_spark_sink_on_the_local_executor_fails_clearly(local_env, tmp_path):
    local_env.from_collection([("a", 1)], Types.TUPLE([Types.STRING(), Types.INT()])).sink_to(
        SparkSink("parquet", {"path": str(tmp_path / "out")})
    )
    with pytest.raises(Exception, match="SparkSink runs on the Spark executor only"):
        local_env.execute("local")


def test_spark_sink_arguments_are_checked():
    with pytest.raises(ValueError, match="needs a 'path' option"):
        SparkSink("parquet")
    with pytest.raises(ValueError, match="mode 'append'"):
        SparkSink("json", {"path": "/tmp/x"}, mode="overwrite")


def test_a_batch_cut_short_before_its_record_replaces_its_own_files(spark, tmp_path):
    """A crash after the files moved into the path but before the batch's record: the
    replay removes the files of its earlier attempt before moving its own."""
    from weir.spark.frame_sinks import COMMITS_DIR, FileBatchCommit

    out = tmp_path / "out"
    sink = SparkSink("json", {"path": str(out)})
    records = spark.createDataFrame([("a", 1), ("b", 2)], "key string, n int")
    FileBatchCommit(sink, "sink-0", 7, "job").write(records)
    os.remove(out / COMMITS_DIR / "job-sink-0-7")
    FileBatchCommit(sink, "sink-0", 7, "job").write(records.repartition(3))
    rows = spark.read.schema("key string, n int").json(str(out)).collect()
    assert sorted(tuple(row) for row in rows) == [("a", 1), ("b", 2)]
    assert os.listdir(out / COMMITS_DIR) == ["job-sink-0-7"]


def test_batch_mode_reads_a_batch_dataframe_and_writes_a_spark_sink(spark, spark_env, tmp_path):
    from weir.datastream import RuntimeExecutionMode

    spark_env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    frame = spark.createDataFrame([("a", 1), ("b", 2), ("a", 3)], "word string, n int")
    total = Types.ROW_NAMED(["word", "n"], [Types.STRING(), Types.INT()])
    (
        spark_env.from_spark(frame)
        .key_by(lambda row: row.word)
        .reduce(lambda a, b: Row(word=a.word, n=a.n + b.n))
        .map(lambda row: row, total)
        .sink_to(SparkSink("json", {"path": str(tmp_path / "out")}))
    )
    spark_env.execute("batch totals")
    rows = spark.read.schema("word string, n int").json(str(tmp_path / "out")).collect()
    assert sorted(tuple(row) for row in rows) == [("a", 4), ("b", 2)]


def test_tables_from_and_to_spark_dataframes(spark, tmp_path):
    """t_env.from_spark(dataframe) is a table of the DataFrame's columns; an insert-only
    table's to_spark() is a DataFrame, batch over a batch DataFrame as here (weir's
    additions to the Table API)."""
    from weir.table import EnvironmentSettings, TableEnvironment
    from weir.table.expressions import col

    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    frame = spark.createDataFrame([(1, "a"), (2, "b"), (3, "a"), (4, "c")], "id long, k string")
    table = t_env.from_spark(frame)
    assert [c.name for c in table.get_schema().columns] == ["id", "k"]
    final = {}
    for row in (
        table.group_by(col("k")).select(col("k"), col("id").sum.alias("s")).execute().collect()
    ):
        final[row[0]] = row[1]
    assert final == {"a": 4, "b": 2, "c": 4}
    out = table.where(col("id") > 1).select(col("k"), (col("id") * 10).alias("x")).to_spark()
    assert not out.isStreaming and out.columns == ["k", "x"]  # (of a batch DataFrame)
    assert sorted(tuple(r) for r in out.collect()) == [("a", 30), ("b", 20), ("c", 40)]
