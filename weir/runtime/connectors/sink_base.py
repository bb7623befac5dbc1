"""Sinks written by the tasks that produce their records (on a cluster, the executors),
committed with the micro-batch. Only print() and execute_and_collect() bring records to
the driver.

A sink spec with `executor_side = True` gives, per micro-batch and task, a BatchWriter:
`write(values)` any number of times, then `finish()` once every record of the task is
written (a transactional writer commits there; the micro-batch commits after every task
finished), or `abort()` if the task fails. A replay of the batch (a restart, a task retry)
runs writers of the same (batch id, task) again: the writer makes that idempotent.
"""

from weir.runtime.wire import METRICS, bundle_values, dumps

RECORDS_IN = "numRecordsIn"


class BatchWriter:
    """One task's writes of one micro-batch to one sink."""

    def __init__(self, uid: str, batch_id: int, task: int):
        self.uid = uid
        self.batch_id = batch_id
        self.task = task
        self.written = 0

    def write(self, values: list) -> None:
        raise NotImplementedError

    def finish(self) -> None:
        """Every record of the task is written: make them durable (commit)."""

    def abort(self) -> None:
        """The task failed: drop what is not committed, where the sink can."""


def is_executor_side(sink) -> bool:
    return getattr(sink, "executor_side", False)


def write_task_rows(sinks: dict, batch_id: int, task: int, row_batches):
    """Writes the rows of `sinks` ({uid: spec}) among `row_batches` (lists of (to, key
    group or subtask, payload) rows) as task `task` of micro-batch `batch_id`; yields the
    other rows, then one metrics row with the records each sink received."""
    writers = {}
    try:
        for rows in row_batches:
            passed = []
            for row in rows:
                sink = sinks.get(row[0])
                if sink is None:
                    passed.append(row)
                    continue
                writer = writers.get(row[0])
                if writer is None:
                    writer = writers[row[0]] = sink.batch_writer(row[0], batch_id, task)
                writer.write(bundle_values(row[2]))
            if passed:
                yield passed
        for writer in writers.values():
            writer.finish()
    except BaseException:
        for writer in writers.values():
            writer.abort()
        raise
    counts = {f"{uid}.{RECORDS_IN}": w.written for uid, w in writers.items() if w.written}
    if counts:
        yield [(METRICS, 0, dumps(counts))]
