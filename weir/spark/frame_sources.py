"""Spark DataFrames as weir sources (env.from_spark).

A streaming DataFrame joins the job's one streaming query: its rows pass through one
mapInArrow that runs the weir source task over them (the stateless operators fused behind
it, key groups, the largest timestamps for the watermark) and yields weir's wire rows
(weir.spark.frames), which are unioned with the other sources' before the watermark. So
Spark's own offsets for it are in the job's checkpoint, and a replayed micro-batch reads
the same rows. Such a source is unbounded: it never ends the job.

A batch DataFrame cannot join a streaming query (Spark refuses a union of a streaming and
a batch plan), so it is bounded: snapshotted once into the job's checkpoint directory as
Parquet and read from there as a file source, in STREAMING and in BATCH mode alike. A job
restarted from its checkpoint reads the same snapshot, whatever the DataFrame reads now.
"""

import dataclasses
import os
import uuid
from typing import Tuple

from pyspark import TaskContext
from pyspark.sql import types as T

from weir.common.row import rows_of_columns, shared_field_names
from weir.common.typeinfo import Types
from weir.task.source_runner import SourceRunner
from weir.runtime.connectors.spark_interop import SPARK_ONLY, SparkFrameReader
from weir.runtime.sources import FileReader
from weir.spark.frames import STREAM_SCHEMA_DDL, to_batch
from weir.spark.source import SOURCES, decode, encode

SNAPSHOTS = "weir-frames"  # the checkpoint's directory of batch DataFrames' snapshots

_ATOMIC = {
    T.StringType: Types.STRING,
    T.ByteType: Types.BYTE,
    T.ShortType: Types.SHORT,
    T.IntegerType: Types.INT,
    T.LongType: Types.LONG,
    T.FloatType: Types.FLOAT,
    T.DoubleType: Types.DOUBLE,
    T.BooleanType: Types.BOOLEAN,
    T.DecimalType: Types.BIG_DEC,
    T.DateType: Types.SQL_DATE,
    T.TimestampType: Types.SQL_TIMESTAMP,
    T.TimestampNTZType: Types.SQL_TIMESTAMP,
}


def type_of(data_type):
    """The weir type of a Spark column type (PICKLED_BYTE_ARRAY where none fits)."""
    if isinstance(data_type, T.StructType):
        return Types.ROW_NAMED(
            [f.name for f in data_type.fields], [type_of(f.dataType) for f in data_type.fields]
        )
    if isinstance(data_type, T.ArrayType):
        return Types.LIST(type_of(data_type.elementType))
    if isinstance(data_type, T.MapType):
        return Types.MAP(type_of(data_type.keyType), type_of(data_type.valueType))
    if isinstance(data_type, T.BinaryType):
        return Types.PRIMITIVE_ARRAY(Types.BYTE())
    factory = _ATOMIC.get(type(data_type))
    return factory() if factory is not None else Types.PICKLED_BYTE_ARRAY()


def frame_source(env, frame):
    """(reader, row type) of `frame` as a source of `env`'s jobs, which run on the
    DataFrame's SparkSession where the environment names none."""
    if not hasattr(frame, "isStreaming") or not hasattr(frame, "sparkSession"):
        raise TypeError(f"from_spark() expects a pyspark DataFrame, got {type(frame).__name__}")
    if env.executor != "spark":
        raise RuntimeError(SPARK_ONLY.format(what="from_spark()"))
    if env.spark_session is None:
        env.set_spark_session(frame.sparkSession)
    check_session(frame, env.spark_session)
    columns = frame.columns
    if len(set(columns)) != len(columns):
        raise ValueError(
            f"from_spark(): the DataFrame's column names must be unique, got {columns}"
        )
    reader = SparkFrameReader(frame, frame.isStreaming, columns)
    return reader, type_of(frame.schema)


def check_session(frame, spark) -> None:
    """A DataFrame joins a job's query only on the job's own SparkSession."""
    own = frame.sparkSession
    if own is not spark and not own._jsparkSession.equals(spark._jsparkSession):
        raise ValueError(
            "from_spark(): the DataFrame belongs to another SparkSession than "
            "the job's (env.set_spark_session); create it on the job's session"
        )


def is_frame_source(task) -> bool:
    return isinstance(task.node.param("reader"), SparkFrameReader)


def announcing_source(plan):
    """The uid of the source that carries the driver's announcements (operators' own
    watermarks, ticks for processing-time timers): the first of weir's own sources, which
    a DataFrame's is not (None where every source is a DataFrame)."""
    return next((task.uid for task in plan.sources if not is_frame_source(task)), None)


def check_announcements(plan, carrier, own_source, due_source) -> None:
    """Refuses a job whose announcements no source can carry: its only sources are
    streaming DataFrames."""
    if carrier is None and (own_source is not None or due_source is not None):
        raise NotImplementedError(
            "a job whose sources are all streaming DataFrames (from_spark) cannot have "
            "processing-time timers in an unbounded job or operators that some watermark "
            "reaches not; add a weir source, or use event time"
        )


def read_frame(spark, task, settings, data_watermarks: bool, idle_source=None):
    """The wire rows of a streaming DataFrame source (task: its SourceTask)."""
    reader = task.node.param("reader")
    if idle_source is not None:
        raise NotImplementedError(
            f"'{task.uid}': a watermark strategy with idleness on a "
            "from_spark() source is not supported yet"
        )
    check_session(reader.frame, spark)
    encoder = FrameEncoder(
        encode((task, settings, data_watermarks)),
        (settings.run_id or uuid.uuid4().hex, task.uid),
        reader.columns,
    )
    return reader.frame.mapInArrow(encoder, STREAM_SCHEMA_DDL)


class FrameEncoder:
    """The mapInArrow function of a DataFrame source: a Spark partition's Arrow batches as
    Rows through the source task, whose wire rows it yields. The partition's number is the
    split's (the producer in the records' order keys), its first partition's carries the
    micro-batch's ticks. The task's runner stays open in the worker for later batches."""

    def __init__(self, encoded_task: str, run_key: Tuple[str, str], columns):
        self.encoded_task = encoded_task
        self.run_key = run_key
        self.columns = tuple(columns)

    def __call__(self, batches):
        context = TaskContext.get()
        assert context is not None  # (in a Spark task)
        partition = context.partitionId()
        runner = SOURCES.get(*self.run_key, lambda: SourceRunner(*decode(self.encoded_task)))
        fields = shared_field_names(self.columns)
        chunks = (
            (rows_of_columns(fields, batch.columns, batch.num_rows), [None] * batch.num_rows)
            for batch in batches
            if batch.num_rows
        )
        try:
            for rows in runner.read((partition, 0, 0), partition == 0, chunks):
                if rows:
                    yield to_batch(rows)
        except BaseException:
            SOURCES.drop(*self.run_key)
            raise


def snapshot_batch_frames(spark, plan, directory: str) -> None:
    """Replaces each batch DataFrame source of `plan` with a file source over its Parquet
    snapshot in `directory` (written on first use, kept for restarts)."""
    for task in plan.sources:
        reader = task.node.param("reader")
        if not isinstance(reader, SparkFrameReader) or reader.streaming:
            continue
        if reader.frame is None:
            raise RuntimeError(
                f"'{task.uid}': the DataFrame of this from_spark() source is "
                "gone (a pickled job); build the job again"
            )
        check_session(reader.frame, spark)
        path = _snapshot(reader.frame, os.path.join(directory, SNAPSHOTS, task.uid))
        params = {**task.node.params, "reader": FileReader(path, "parquet")}
        task.node = dataclasses.replace(task.node, params=params)


def _snapshot(frame, path: str) -> str:
    """`frame` written once to `path` as Parquet: written beside it, then renamed into
    place, so a snapshot is whole or absent."""
    if os.path.isdir(path):
        return path
    staging = f"{path}.inprogress-{uuid.uuid4().hex[:8]}"
    frame.write.mode("overwrite").parquet(staging)
    # A file source reads files in (modification time, name) order: one time for all
    # makes it Spark's partition order (part-00000, part-00001, ...), the frame's.
    now = os.stat(staging).st_mtime_ns
    for name in os.listdir(staging):
        os.utime(os.path.join(staging, name), ns=(now, now))
    os.replace(staging, path)
    return path
