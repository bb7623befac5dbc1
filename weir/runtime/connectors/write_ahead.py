"""The tasks' side of a user's GenericWriteAheadSink (weir.datastream.connectors.
write_ahead): each task writes its records of a micro-batch to a write-ahead log file;
once the micro-batch's tasks have all finished, tasks send every logged micro-batch not
yet committed (`send_values`) and record it with the CheckpointCommitter.

A log file is <wal path>/<sink uid>/<job>/<batch:010d>-<task:05d>.wal: pickled chunks of
values. It is written hidden and renamed when the task finishes, so a
file there holds every record of its task. Sent and committed, it is removed; a log whose
`send_values` returned False (or whose send failed) stays and is sent again after the next
micro-batch that writes the sink, as Flink retries at the next checkpoint, also after a
restart.
"""

import os
import pickle
import time
from typing import Any, BinaryIO, Callable, Iterator, List, Optional, Tuple

from weir.runtime import pickling
from weir.runtime.connectors.sink_base import BatchWriter
from weir.runtime.errors import call_user

SUFFIX = ".wal"


def _log_name(batch_id: int, task: int) -> str:
    return f"{batch_id:010d}-{task:05d}{SUFFIX}"


def _batch_and_task(name: str) -> Tuple[int, int]:
    batch, _, task = name[: -len(SUFFIX)].partition("-")
    return int(batch), int(task)


class WriteAheadSpec:
    """A GenericWriteAheadSink as a sink the tasks write (connectors.sink_base); its
    committables are the paths of the logs its tasks wrote."""

    executor_side = True

    def __init__(self, function: Any, wal_path: str) -> None:
        self.function = function
        self.wal_path = wal_path

    def batch_writer(self, uid: str, job: str, batch_id: int, task: int) -> BatchWriter:
        return _LogWriter(os.path.join(self.wal_path, uid, job), uid, job, batch_id, task)

    def commit(self, batch_id: int, committables: List[str]) -> None:
        """The logs are durable once their tasks finished: nothing to do before the
        micro-batch commits."""

    def tasks_after_commit(
        self, batch_id: int, committables: List[str]
    ) -> Tuple[Callable[[str], bool], List[str]]:
        """(what a task runs, its inputs): every log of this job's directory up to
        `batch_id`, sent by tasks in parallel (the logs of earlier micro-batches are
        those whose send returned False or failed)."""
        directory = os.path.dirname(committables[0])
        names = sorted(
            name
            for name in os.listdir(directory)
            if name.endswith(SUFFIX) and _batch_and_task(name)[0] <= batch_id
        )
        return self.send_log, [os.path.join(directory, name) for name in names]

    def send_log(self, path: str) -> bool:
        """Sends one log's records unless its (task, batch) is committed; then commits it
        and removes the log. Returns whether the log is done."""
        uid, job = path.split(os.sep)[-3:-1]
        batch_id, task = _batch_and_task(os.path.basename(path))
        committer = self.function.committer
        committer.job_id, committer.operator_id = job, uid
        call_user(uid, committer.open)
        try:
            if not call_user(uid, committer.is_checkpoint_committed, task, batch_id):
                values = list(_read_log(path))
                sent = call_user(
                    uid, self.function.send_values, values, batch_id, int(time.time() * 1000)
                )
                if not sent:
                    return False
                call_user(uid, committer.commit_checkpoint, task, batch_id)
        finally:
            call_user(uid, committer.close)
        os.remove(path)
        return True


class _LogWriter(BatchWriter):
    """One task's log of one micro-batch."""

    def __init__(self, directory: str, uid: str, job: str, batch_id: int, task: int) -> None:
        super().__init__(uid, job, batch_id, task)
        os.makedirs(directory, exist_ok=True)
        self.path = os.path.join(directory, _log_name(batch_id, task))
        self.hidden = os.path.join(directory, "." + _log_name(batch_id, task))
        self.handle: Optional[BinaryIO] = None

    def write(self, values: List[Any], timestamps: Optional[List[Optional[int]]] = None) -> None:
        if self.handle is None:
            self.handle = open(self.hidden, "wb")
        self.handle.write(pickling.dumps(values))
        self.written += len(values)

    def finish(self) -> List[str]:
        if self.handle is None:
            return []
        self.handle.flush()
        os.fsync(self.handle.fileno())
        self.handle.close()
        os.replace(self.hidden, self.path)
        return [self.path]

    def abort(self) -> None:
        if self.handle is not None:
            self.handle.close()
            if os.path.exists(self.hidden):
                os.remove(self.hidden)


def _read_log(path: str) -> Iterator[Any]:
    """A log's values, in the order written."""
    with open(path, "rb") as handle:
        while True:
            try:
                values = pickle.load(handle)
            except EOFError:
                return
            yield from values
