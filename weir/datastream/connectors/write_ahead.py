"""A base for sinks to systems without transactions: Flink's GenericWriteAheadSink and
CheckpointCommitter (the seeds' Cassandra sink), mapped onto weir's micro-batch commit
(Java-only in Flink; PyFlink has no such classes).

Each task that gets the sink's records of a micro-batch writes them to a write-ahead log
under `wal_path` (durable storage every executor reaches: a local path on one machine, a
shared one on a cluster). Once the micro-batch's tasks have all finished, the driver has
tasks send each log (`send_values(values, checkpoint_id, timestamp)`, checkpoint id =
the micro-batch) unless the committer says that (task, micro-batch) is committed, and
then record it (`commit_checkpoint`). `send_values` returning False keeps the log: it is
sent again after the next micro-batch that writes the sink, also after a restart.

A crash after `send_values` and before `commit_checkpoint` sends that log again: as in
Flink, the guarantee is exactly-once only where a send is idempotent (an upsert), and
at-least-once otherwise; the committer's record makes every other replay send nothing.

    class UpsertSink(GenericWriteAheadSink):
        def send_values(self, values, checkpoint_id, timestamp):
            with connect() as db:
                db.upsert_all(values)
            return True

    stream.add_sink(UpsertSink(MyCommitter(), "/shared/wal"))
"""

import os
from typing import Optional

from weir.runtime.connectors.write_ahead import WriteAheadSpec


class CheckpointCommitter:
    """Records which (task, micro-batch) logs were sent, in a store that outlives the job
    (a table of the target system). The job's id and the sink's uid are set in `job_id`
    and `operator_id` before `open()`; the committer is pickled to the tasks."""

    job_id: Optional[str] = None
    operator_id: Optional[str] = None

    def open(self) -> None:
        """Connect to the store."""

    def close(self) -> None:
        """Disconnect."""

    def create_resource(self) -> None:
        """Create what the store needs (a table), once, before the job starts."""

    def commit_checkpoint(self, subtask_idx: int, checkpoint_id: int) -> None:
        raise NotImplementedError

    def is_checkpoint_committed(self, subtask_idx: int, checkpoint_id: int) -> bool:
        raise NotImplementedError


class FileCheckpointCommitter(CheckpointCommitter):
    """A committer that records each sent log as an empty file under `directory` (one
    reachable by every executor)."""

    def __init__(self, directory: str):
        self.directory = str(directory)

    def _marker(self, subtask_idx: int, checkpoint_id: int) -> str:
        assert self.operator_id is not None and self.job_id is not None  # (set before open)
        return os.path.join(
            self.directory, self.operator_id, self.job_id, f"{checkpoint_id:010d}-{subtask_idx:05d}"
        )

    def create_resource(self) -> None:
        os.makedirs(self.directory, exist_ok=True)

    def commit_checkpoint(self, subtask_idx: int, checkpoint_id: int) -> None:
        marker = self._marker(subtask_idx, checkpoint_id)
        os.makedirs(os.path.dirname(marker), exist_ok=True)
        open(marker, "w").close()

    def is_checkpoint_committed(self, subtask_idx: int, checkpoint_id: int) -> bool:
        return os.path.exists(self._marker(subtask_idx, checkpoint_id))


class GenericWriteAheadSink:
    """Override `send_values` (see the module's doc); use with `stream.add_sink(...)`."""

    def __init__(self, committer: CheckpointCommitter, wal_path: str):
        if not isinstance(committer, CheckpointCommitter):
            raise TypeError(
                f"GenericWriteAheadSink needs a CheckpointCommitter, got {type(committer).__name__}"
            )
        if not wal_path:
            raise ValueError(
                "GenericWriteAheadSink needs a wal_path (a directory every "
                "executor reaches) for its write-ahead log"
            )
        self.committer = committer
        self.wal_path = str(wal_path)

    def send_values(self, values: list, checkpoint_id: int, timestamp: int) -> bool:
        """Sends one task's records of micro-batch `checkpoint_id`; True once they are
        stored (False: send them again later)."""
        raise NotImplementedError

    def sink_spec(self) -> WriteAheadSpec:
        self.committer.create_resource()
        return WriteAheadSpec(self, self.wal_path)
