"""GenericWriteAheadSink: tasks log their records, the logs are sent after the
micro-batch's tasks finished and recorded by the committer; unsent logs are sent again."""

import os

import pytest

from weir.datastream import StreamExecutionEnvironment
from weir.datastream.connectors.write_ahead import (
    CheckpointCommitter,
    FileCheckpointCommitter,
    GenericWriteAheadSink,
)
from weir.runtime.connectors.sink_base import commit_tasks


class ListSink(GenericWriteAheadSink):
    """Keeps what it was sent: [(checkpoint id, values)]; refuses the first `refusals`
    sends."""

    def __init__(self, committer, wal_path, refusals=0):
        super().__init__(committer, wal_path)
        self.sent = []
        self.refusals = refusals

    def send_values(self, values, checkpoint_id, timestamp):
        if self.refusals:
            self.refusals -= 1
            return False
        self.sent.append((checkpoint_id, list(values)))
        return True


def _write(spec, batch_id, per_task, job="job"):
    """Writes `per_task` ({task: values}) as the tasks of micro-batch `batch_id`; returns
    their committables."""
    committables = []
    for task, values in per_task.items():
        writer = spec.batch_writer("sink", job, batch_id, task)
        writer.write(values)
        committables += writer.finish()
    return committables


def test_each_tasks_log_is_sent_once_after_the_batch_and_then_removed(tmp_path):
    sink = ListSink(FileCheckpointCommitter(tmp_path / "commits"), tmp_path / "wal")
    spec = sink.sink_spec()
    committables = _write(spec, 0, {0: ["a", "b"], 1: ["c"]})
    assert sink.sent == []  # nothing is sent before every task of the batch finished
    commit_tasks(spec, 0, committables)
    assert sink.sent == [(0, ["a", "b"]), (0, ["c"])]
    assert os.listdir(tmp_path / "wal" / "sink" / "job") == []
    assert sorted(os.listdir(tmp_path / "commits" / "sink" / "job")) == [
        "0000000000-00000",
        "0000000000-00001",
    ]


def test_a_refused_log_is_sent_again_after_the_next_batch(tmp_path):
    sink = ListSink(FileCheckpointCommitter(tmp_path / "commits"), tmp_path / "wal", refusals=1)
    spec = sink.sink_spec()
    commit_tasks(spec, 0, _write(spec, 0, {0: ["a"]}))
    assert sink.sent == []
    commit_tasks(spec, 1, _write(spec, 1, {0: ["b"]}))
    assert sink.sent == [(0, ["a"]), (1, ["b"])]


def test_a_replayed_batch_sends_nothing_its_committer_recorded(tmp_path):
    committer = FileCheckpointCommitter(tmp_path / "commits")
    sink = ListSink(committer, tmp_path / "wal")
    spec = sink.sink_spec()
    commit_tasks(spec, 0, _write(spec, 0, {0: ["a"], 1: ["b"]}))
    # a crash before the micro-batch committed: the batch runs again, its logs again
    commit_tasks(spec, 0, _write(spec, 0, {0: ["a"], 1: ["b"]}))
    assert sink.sent == [(0, ["a"]), (0, ["b"])]


def test_a_log_left_by_a_crashed_run_is_sent_by_the_restored_run(tmp_path):
    sink = ListSink(FileCheckpointCommitter(tmp_path / "commits"), tmp_path / "wal")
    spec = sink.sink_spec()
    _write(spec, 3, {0: ["lost?"]})  # the run died before sending batch 3's log
    commit_tasks(spec, 4, _write(spec, 4, {0: ["next"]}))
    assert sink.sent == [(3, ["lost?"]), (4, ["next"])]


class FilesSink(GenericWriteAheadSink):
    """Sends each log as one file of lines under `out` (a send from any process)."""

    def __init__(self, committer, wal_path, out):
        super().__init__(committer, wal_path)
        self.out = str(out)

    def send_values(self, values, checkpoint_id, timestamp):
        os.makedirs(self.out, exist_ok=True)
        name = f"{checkpoint_id}-{os.getpid()}-{len(os.listdir(self.out))}"
        with open(os.path.join(self.out, name), "w") as handle:
            handle.writelines(f"{value}\n" for value in values)
        return True


def sent_lines(out) -> list:
    return sorted(
        line
        for name in os.listdir(out)
        for line in open(os.path.join(out, name)).read().splitlines()
    )


def test_a_job_on_the_in_process_executor(tmp_path):
    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    sink = FilesSink(
        FileCheckpointCommitter(tmp_path / "commits"), tmp_path / "wal", tmp_path / "out"
    )
    env.from_collection(["x", "y", "z"]).map(str.upper).add_sink(sink)
    env.execute("write-ahead")
    assert sent_lines(tmp_path / "out") == ["X", "Y", "Z"]


def test_bad_arguments_are_refused():
    with pytest.raises(TypeError, match="CheckpointCommitter"):
        ListSink(object(), "/tmp/wal")
    with pytest.raises(ValueError, match="wal_path"):
        ListSink(CheckpointCommitter(), "")


class _Stamped:
    """A sink function that keeps (value, context.timestamp())."""

    def __init__(self):
        self.seen = []

    def invoke(self, value, context):
        self.seen.append((value, context.timestamp()))


def test_a_sink_functions_context_gives_each_records_timestamp():
    from weir.common import WatermarkStrategy
    from weir.common.watermark_strategy import TimestampAssigner

    class FromValue(TimestampAssigner):
        def extract_timestamp(self, value, record_timestamp):
            return value * 1_000

    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    function = _Stamped()
    stream = env.from_collection([1, 2, 3]).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(FromValue())
    )
    stream.add_sink(function)
    env.from_collection([9]).add_sink(function)  # a record without a timestamp
    env.execute("stamped")
    assert sorted(function.seen, key=str) == [(1, 1_000), (2, 2_000), (3, 3_000), (9, None)]
