"""Sinks written by the tasks that produce their records (on a cluster, the executors),
committed with the micro-batch. Only print() and execute_and_collect() bring records to
the driver.

A sink spec with `executor_side = True` gives, per micro-batch and task, a BatchWriter:
`write(values, timestamps)` any number of times (the records' timestamps, None where no
record has one), then `finish()` once every record of the task is
written, or `abort()` if the task fails. A replay of the batch (a restart, a task retry)
runs writers of the same (batch id, task) again: the writer makes that idempotent.

Two ways to commit (Flink's two-phase commit mapped onto the micro-batch):
- in the task: `finish()` commits itself (a Kafka or database transaction with a marker
  of the batch, so a replay writes nothing twice);
- on the driver: `finish()` returns committables (what it prepared: pending files, ...),
  and once every task of the batch has finished, the driver calls the spec's
  `commit(batch_id, committables of every task)`, before the micro-batch commits. That
  commit must be idempotent: a crash after it replays the batch and commits again.
"""

from __future__ import annotations

from typing import (
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
)

from weir.runtime.errors import MARKER, UserFunctionError
from weir.runtime.metrics import records_received
from weir.runtime.wire import Channel, bundle_columns, dumps

if TYPE_CHECKING:
    from typing import Protocol

    class SinkSpec(Protocol):
        """A sink spec with `executor_side = True` (see above); `commit` only where its
        writers' finish() returns committables."""

        def batch_writer(self, uid: str, job: str, batch_id: int, task: int) -> BatchWriter: ...

        def commit(self, batch_id: int, committables: List[Any]) -> None: ...

    # A function and its inputs, run by the engine's tasks (`run_in_tasks`)
    RunInTasks = Callable[[Callable[[Any], Any], List[Any]], Any]


class BatchWriter:
    """One task's writes of one micro-batch to one sink of a job: `job` is the same in
    every run restored from the job's checkpoint and new for a job started afresh, so a
    sink's replay markers (the last batch a task committed) include it: a new job's batch
    0 is no replay of an earlier job's."""

    def __init__(self, uid: str, job: str, batch_id: int, task: int) -> None:
        self.uid = uid
        self.job = job
        self.batch_id = batch_id
        self.task = task
        self.written = 0

    def write(self, values: List[Any], timestamps: Optional[List[Optional[int]]] = None) -> None:
        """Writes records: their values and their timestamps (a list with None for a
        record without one, or None: no record has one)."""
        raise NotImplementedError

    def finish(self) -> Optional[List[Any]]:
        """Every record of the task is written: make them durable; returns the
        committables for the driver's commit (none, [] or None: the task committed)."""
        return []

    def abort(self) -> None:
        """The task failed: drop what is not committed, where the sink can."""


def is_executor_side(sink: object) -> bool:
    return getattr(sink, "executor_side", False)


def write_task_rows(
    sinks: Mapping[str, SinkSpec],
    job: str,
    batch_id: int,
    task: int,
    row_batches: Iterable[Sequence[Sequence[Any]]],
) -> Iterator[List[Sequence[Any]]]:
    """Writes the rows of `sinks` ({uid: spec}) among `row_batches` (lists of (to, key
    group or subtask, payload) rows) as task `task` of micro-batch `batch_id` of job
    `job`; yields the
    other rows, then one row of the committables for the driver's commit, and one metrics
    row with the records each sink received."""
    writers: Dict[str, BatchWriter] = {}
    committables: Dict[str, List[Any]] = {}
    received: Dict[Tuple[str, int], int] = {}  # (uid, subtask) -> records
    uid = None  # the sink being written (an error names it)
    try:
        for rows in row_batches:
            passed: List[Sequence[Any]] = []
            for row in rows:
                sink = sinks.get(row[0])
                if sink is None:
                    passed.append(row)
                    continue
                uid = row[0]
                writer = writers.get(row[0])
                if writer is None:
                    writer = writers[row[0]] = sink.batch_writer(row[0], job, batch_id, task)
                values, stamps = bundle_columns(row[2])
                writer.write(values, stamps)
                received[row[0], row[1]] = received.get((row[0], row[1]), 0) + len(values)
            if passed:
                yield passed
        for uid, writer in writers.items():
            prepared = writer.finish()
            if prepared:
                committables[uid] = prepared
    except BaseException as error:
        _abort_all(writers, error)
        if isinstance(error, UserFunctionError) or not isinstance(error, Exception):
            raise
        raise UserFunctionError(
            f"{MARKER}: sink '{uid}' failed: {type(error).__name__}: {error}"
        ) from error
    if committables:
        yield [(Channel.COMMITS, 0, dumps(committables))]
    counts = records_received(received)
    if counts:
        yield [(Channel.METRICS, 0, dumps(counts))]


def _abort_all(writers: Mapping[str, BatchWriter], error: BaseException) -> None:
    """Aborts every writer of a failed task; an abort's own failure is noted on `error`
    (which the task raises) instead of hiding it."""
    for uid, writer in writers.items():
        try:
            writer.abort()
        except Exception as failure:  # noqa: BLE001 (the task's error comes first)
            error.add_note(
                f"(and aborting sink '{uid}' failed: {type(failure).__name__}: {failure})"
            )


def commit_tasks(
    spec: SinkSpec,
    batch_id: int,
    committables: Optional[List[Any]],
    run_in_tasks: Optional[RunInTasks] = None,
) -> None:
    """The driver's commit of what the tasks of `batch_id` prepared for `spec`. A spec
    with work for tasks once it committed (`tasks_after_commit(batch_id, committables)`
    gives a function and its inputs: a write-ahead-log sink's sends) has it run by
    `run_in_tasks(function, inputs)` (the engine's tasks; None: in this process)."""
    if not committables:
        return
    spec.commit(batch_id, committables)
    after = getattr(spec, "tasks_after_commit", None)
    if after is not None:
        function, inputs = after(batch_id, committables)
        if inputs:
            (run_in_tasks or run_here)(function, inputs)


def run_here(function: Callable[[Any], Any], inputs: List[Any]) -> List[Any]:
    """`function` of each input, in this process."""
    return [function(item) for item in inputs]
