"""A stream's records as a Spark DataFrame: stream.to_spark(), and SparkSink, which
writes them with one of Spark's data sources.

Both decode the sink's wire rows (pickled bundles) into columns in one mapInArrow on the
executors; the columns come from the stream's declared type (weir.common.typeinfo: its
Arrow type, as Spark's).

SparkSink's micro-batch is written inside the job's foreachBatch, which is exactly-once
only where the write is idempotent per batch id (see SparkSink). The batch's rows are
persisted first: every Spark sink's write and the driver's own rows read them once, so
the stateful stages above run once per micro-batch.
"""

import contextlib
import os
import shutil
import uuid

from pyspark.sql import functions as F
from pyspark.sql.pandas.types import from_arrow_type, to_arrow_schema
from pyspark.sql.types import StructField, StructType

from weir.plan import graph as g
from weir.plan.physical import compile_plan
from weir.control.idleness import WatermarkGroupTracker
from weir.runtime.connectors.spark_interop import SparkFrameSink, SparkSink
from weir.runtime.wire import bundle_values

COMMITS_DIR = "_weir_commits"  # <path>/_weir_commits/<job>-<uid>-<batch>: batch written
STAGING_DIR = "_weir_staging"  # <path>/_weir_staging/<job>-<uid>-<batch>: Spark's write


# -- records as columns -------------------------------------------------------------------
def spark_schema(record_type, what: str) -> StructType:
    """The columns of a stream's records: a row or tuple type's fields, else one column
    `value` of the type."""
    if record_type is None:
        raise TypeError(
            f"{what} needs the stream's record type: declare it (output_type="
            "Types.ROW_NAMED([...], [...]) on the last operator)"
        )
    if hasattr(record_type, "get_field_types"):
        names = (
            record_type.get_field_names()
            if hasattr(record_type, "get_field_names")
            else [f"f{i}" for i in range(record_type.get_arity())]
        )
        types = record_type.get_field_types()
    else:
        names, types = ["value"], [record_type]
    return StructType(
        [
            StructField(name, from_arrow_type(t.to_arrow_type()), True)
            for name, t in zip(names, types)
        ]
    )


class RecordDecoder:
    """The mapInArrow function from a sink's wire rows (column `_b`) to record columns."""

    def __init__(self, schema: StructType, single: bool):
        self.arrow_schema = to_arrow_schema(schema)
        self.single = single  # records of one atomic type: column `value`

    def __call__(self, batches):
        import pyarrow as pa

        names = self.arrow_schema.names
        for batch in batches:
            values = [
                value for blob in batch.column("_b").to_pylist() for value in bundle_values(blob)
            ]
            if values:
                rows = [self._as_dict(value, names) for value in values]
                yield pa.RecordBatch.from_pylist(rows, schema=self.arrow_schema)

    def _as_dict(self, value, names) -> dict:
        if self.single:
            return {"value": value}
        if hasattr(value, "as_dict"):
            return value.as_dict()
        return dict(zip(names, value))


def records_frame(frame, uid: str, record_type, what: str):
    """The records of sink `uid` among `frame`'s rows (columns _to, _b) as columns."""
    schema = spark_schema(record_type, what)
    single = not hasattr(record_type, "get_field_types")
    return (
        frame.filter(F.col("_to") == F.lit(uid))
        .select("_b")
        .mapInArrow(RecordDecoder(schema, single), schema)
    )


# -- stream.to_spark() ------------------------------------------------------------------
def to_spark(stream):
    """A streaming DataFrame of `stream`'s records: the job up to it, as one query the
    user starts (writeStream). Its sources and operators run as in env.execute(); what
    only weir's driver does is not there: idle watermark groups, operators' own
    watermarks and operator state snapshots (a job that needs them is refused), metrics,
    and a micro-batch for a processing-time timer due while no input comes (such timers
    fire with the next micro-batch)."""
    from weir.spark.session import get_session
    from weir.spark.shipping import ship_user_modules
    from weir.spark.translate import query_frame

    env = stream.get_execution_environment()
    if env.executor != "spark" or env.is_batch_mode():
        raise RuntimeError(
            "to_spark() builds a Spark streaming query: it needs the 'spark' "
            "executor and STREAMING mode"
        )
    record_type = stream.get_type()
    spark_schema(record_type, "to_spark()")
    node = env._graph.add(g.SINK, "ToSpark", (stream._node_id,), sink=SparkFrameSink(record_type))
    env._executed_sinks.add(node.id)  # env.execute() runs the other sinks, not this one
    plan = compile_plan(env._graph.upstream_of([node]), env)
    _check_driverless(plan)
    run = uuid.uuid4().hex
    plan = plan.for_run(run_id=run, sink_job_id=run)
    spark = get_session(env)
    ship_user_modules()
    uid = next(uid for uid, sink in plan.sinks.items() if sink.id == node.id)
    rows = query_frame(spark, plan).select("_to", "_b")
    return records_frame(rows, uid, record_type, "to_spark()")


def _check_driverless(plan) -> None:
    if WatermarkGroupTracker.tracks(plan) or plan.own_watermarks:
        raise NotImplementedError(
            "to_spark(): this job's watermarks need weir's driver (idle sources, or "
            "operators that some source's watermark does not reach); use sink_to(SparkSink"
            "(...)) or env.execute()"
        )
    if any(task.node.params.get("uid_prefix") == "non_keyed" for task in plan.keyed):
        raise NotImplementedError(
            "to_spark(): operators with operator state or broadcast inputs keep their "
            "snapshots through weir's driver; use sink_to(SparkSink(...)) or env.execute()"
        )


# -- SparkSink --------------------------------------------------------------------------
def spark_sinks(plan) -> dict:
    """{uid: SparkSink} of the plan's sinks that Spark writes."""
    return {
        uid: node.param("sink")
        for uid, node in plan.sinks.items()
        if isinstance(node.param("sink"), SparkSink)
    }


@contextlib.contextmanager
def written(frame, sinks: dict, batch_id: int, job: str):
    """Writes micro-batch `batch_id`'s records of `sinks` from `frame` (the driver's
    columns); yields `frame` without them, persisted while the block runs."""
    if not sinks:
        yield frame
        return
    frame = frame.persist()
    try:
        for uid, sink in sinks.items():
            if frame.filter(F.col("_to") == F.lit(uid)).isEmpty():
                continue  # no write job, no empty files for a batch without its records
            write_batch(
                records_frame(frame, uid, sink.record_type, "SparkSink"), sink, uid, batch_id, job
            )
        yield frame.filter(~F.col("_to").isin(list(sinks)))
    finally:
        frame.unpersist()


def write_batch(records, sink: SparkSink, uid: str, batch_id: int, job: str) -> None:
    """Writes one micro-batch's records (a batch DataFrame) to `sink`."""
    if sink.table_name is not None:
        writer = records.write.mode(sink.mode)
        writer = writer if sink.format == "table" else writer.format(sink.format)
        writer.options(**sink.options).saveAsTable(sink.table_name)
    elif sink.format == "delta":
        (
            records.write.format("delta")
            .options(**sink.options)
            .mode(sink.mode)
            .option("txnAppId", f"weir-{job}-{uid}")
            .option("txnVersion", str(batch_id))
            .save()
        )
    elif sink.exactly_once:
        FileBatchCommit(sink, uid, batch_id, job).write(records)
    else:
        records.write.format(sink.format).options(**sink.options).mode(sink.mode).save()


class FileBatchCommit:
    """One micro-batch of a file-format SparkSink, exactly once: Spark writes the batch
    into `<path>/_weir_staging/<job>-<uid>-<batch>` (its file commit protocol: whole or
    failed; a replay overwrites it), then its files move into `<path>` as
    `batch-<batch>-<job>-<uid>-<Spark's name>` and `<path>/_weir_commits/<job>-<uid>-
    <batch>` records the batch. A replay of a recorded batch writes nothing; one cut
    short before its record first removes the files it had moved. Readers of `<path>`
    (Spark, pyarrow) skip the `_`-prefixed directories."""

    def __init__(self, sink: SparkSink, uid: str, batch_id: int, job: str):
        self.path = sink.options["path"]
        self.sink = sink
        self.name = f"{job}-{uid}-{batch_id}"
        self.prefix = f"batch-{batch_id:010d}-{job}-{uid}-"

    def write(self, records) -> None:
        if self.stage(records):
            self.commit()

    @property
    def _marker(self) -> str:
        return os.path.join(self.path, COMMITS_DIR, self.name)

    @property
    def _staging(self) -> str:
        return os.path.join(self.path, STAGING_DIR, self.name)

    def stage(self, records) -> bool:
        """Spark's write of the batch into the staging directory; False: an earlier
        attempt committed the batch (nothing to write)."""
        if os.path.exists(self._marker):
            return False
        options = {k: v for k, v in self.sink.options.items() if k != "path"}
        records.write.format(self.sink.format).options(**options).mode("overwrite").save(
            self._staging
        )
        return True

    def commit(self) -> None:
        """The staged files into the path, and the batch's record."""
        staging = self._staging
        self._remove_earlier_attempt()
        for name in sorted(os.listdir(staging)):
            if not name.startswith((".", "_")):
                os.replace(os.path.join(staging, name), os.path.join(self.path, self.prefix + name))
        os.makedirs(os.path.dirname(self._marker), exist_ok=True)
        with open(self._marker, "w", encoding="ascii"):
            pass
        self.discard()

    def discard(self) -> None:
        """Drops the staged write (committed, or not to be)."""
        shutil.rmtree(self._staging, ignore_errors=True)
        with contextlib.suppress(OSError):  # (another batch's staging may be there)
            os.rmdir(os.path.dirname(self._staging))

    def _remove_earlier_attempt(self) -> None:
        for name in os.listdir(self.path):
            if name.startswith(self.prefix):
                os.remove(os.path.join(self.path, name))
