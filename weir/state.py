"""Flink's State Processor API, reading side: a savepoint's keyed state as rows or as a
Spark DataFrame (key, value) to query with Spark SQL.

    from weir.state import read_keyed_state
    counts = read_keyed_state(spark, savepoint_path, "running-count",
                              ValueStateDescriptor("count", Types.LONG()))
    counts.where("value > 10").show()

`read_keyed_state_rows(savepoint_path, uid, state_name)` gives the (key, value) pairs in
pure Python, without Spark.
"""

from weir.runtime.state.savepoint_reader import (  # noqa: F401
    OperatorKeyedState, read_keyed_state_rows)
from weir.spark.state_reader import read_keyed_state  # noqa: F401

__all__ = ["read_keyed_state", "read_keyed_state_rows", "OperatorKeyedState"]
