"""Flink's State Processor API, reading side: a savepoint's keyed state as rows or as a
Spark DataFrame (key, value) to query with Spark SQL.

    from weir.state import read_keyed_state
    counts = read_keyed_state(spark, savepoint_path, "running-count",
                              ValueStateDescriptor("count", Types.LONG()))
    counts.where("value > 10").show()

`read_keyed_state_rows(savepoint_path, uid, state_name)` gives the (key, value) pairs in
pure Python, without Spark. The writing side bootstraps a new job's keyed state:
`write_keyed_state(dataframe, directory, uid, key_column, {state name: column})` (or
`write_keyed_savepoint(directory, {uid: [(key, {state name: value})]})` in pure Python)
writes a savepoint a job then starts from (`execution.savepoint.path`).
`query_state(job_id, uid, state_name, key)` asks a running job of the job directory
(`weir run`) for one key's value as of its last committed micro-batch.
"""

from weir.runtime.state.savepoint_reader import (  # noqa: F401
    OperatorKeyedState,
    read_keyed_state_rows,
)
from weir.jobs.queryable import StateNotFound, query_state  # noqa: F401
from weir.runtime.state.bootstrap import write_keyed_savepoint  # noqa: F401
from weir.spark.state_reader import read_keyed_state  # noqa: F401
from weir.spark.state_writer import write_keyed_state  # noqa: F401

__all__ = [
    "read_keyed_state",
    "read_keyed_state_rows",
    "OperatorKeyedState",
    "write_keyed_state",
    "write_keyed_savepoint",
    "query_state",
    "StateNotFound",
]
