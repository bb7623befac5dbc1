"""Sinks the tasks write (weir.runtime.connectors.sink_base), on Spark: the rows of a
micro-batch pass through one mapInArrow on their way to the driver, whose tasks write
those sinks' records where they are (the executors) and pass the other rows on. One Spark
action per micro-batch, as before: the stateful stages above run once."""

import pyarrow as pa
from pyspark import TaskContext

from weir.plan.physical import PhysicalPlan
from weir.runtime.connectors.sink_base import is_executor_side, write_task_rows
from weir.spark.source import decode, encode

COLUMNS = ["_to", "_kg", "_b"]
SCHEMA = pa.schema([("_to", pa.string()), ("_kg", pa.int32()), ("_b", pa.binary())])


def written_by_tasks(plan: PhysicalPlan) -> dict:
    """{uid: spec} of the plan's sinks that tasks write."""
    return {
        uid: node.param("sink")
        for uid, node in plan.sinks.items()
        if is_executor_side(node.param("sink"))
    }


def write_in_tasks(frame, sinks: dict, batch_id: int, job: str):
    """`frame` (the driver's columns) with `sinks`' rows written by its tasks (of job
    `job`, see sink_base) instead."""
    encoded = encode(sinks)

    def write(batches):
        context = TaskContext.get()
        assert context is not None  # (in a Spark task)
        task = context.partitionId()
        rows = (list(zip(*(column.to_pylist() for column in batch.columns))) for batch in batches)
        for passed in write_task_rows(decode(encoded), job, batch_id, task, rows):
            yield pa.RecordBatch.from_arrays(
                [
                    pa.array(list(column), type=field.type)
                    for column, field in zip(zip(*passed), SCHEMA)
                ],
                schema=SCHEMA,
            )

    return frame.mapInArrow(write, frame.schema)


def tasks_of(spark):
    """Runs work after a sink's commit (a write-ahead-log sink's sends) in Spark tasks, one
    per input: `run(function, inputs)` returns the results."""

    def run(function, inputs: list) -> list:
        return spark.sparkContext.parallelize(inputs, len(inputs)).map(function).collect()

    return run
