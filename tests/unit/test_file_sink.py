"""The file sink's writers and commit, without Spark: part files in-progress -> pending ->
finished, buckets, rolling, replays."""

import json
import os

import pyarrow.parquet as pq
import pytest

from weir.common import Row, Types
from weir.common.serialization import Encoder
from weir.datastream.connectors.file_system import (
    BucketAssigner,
    FileSink,
    OutputFileConfig,
    RollingPolicy,
)
from weir.datastream.formats.parquet import ParquetBulkWriters
from weir.runtime.connectors.file_sink import (
    BucketContext,
    DateTimeBucketAssigner,
    FileSinkSpec,
    java_to_strftime,
)
from weir.runtime.connectors.sink_base import write_task_rows
from weir.runtime.wire import Channel, dumps, loads


def files_under(base):
    """Every file under `base`, relative, hidden ones included."""
    return sorted(
        os.path.relpath(os.path.join(d, n), base) for d, _, names in os.walk(base) for n in names
    )


def bundle(values):
    """A data row's payload: (seq, values, timestamps, keys)."""
    return dumps((0, values, None, None))


class ByKey:
    def get_bucket_id(self, element, context):
        return f"key={element[0]}"


class FixedClock(BucketContext):
    def __init__(self, ms):
        self.ms = ms

    def current_processing_time(self):
        return self.ms


def test_a_task_writes_hidden_files_that_the_driver_commit_finishes(tmp_path):
    spec = FileSink.for_json_lines(str(tmp_path)).build()
    writer = spec.batch_writer("files", "job", 7, 1)
    writer.write([Row(a=1), Row(a=2)])
    writer.write([Row(a=3)])
    committables = writer.finish()
    assert files_under(tmp_path) == [".part-job-files-0000000007-1-0.json.inprogress"]
    spec.commit(7, committables)
    spec.commit(7, committables)  # a replayed commit finds them finished
    assert files_under(tmp_path) == ["part-job-files-0000000007-1-0.json"]
    lines = (tmp_path / "part-job-files-0000000007-1-0.json").read_text().splitlines()
    assert [json.loads(line) for line in lines] == [{"a": 1}, {"a": 2}, {"a": 3}]
    assert writer.written == 3


def test_a_replay_at_another_parallelism_removes_the_earlier_attempts_other_files(tmp_path):
    """A run killed after its sink finished micro-batch 4's files of tasks 0 and 1, but
    before Spark committed the batch, is restarted at parallelism 1: the replayed batch's
    commit keeps task 0's file (written again) and removes task 1's (its records are in
    task 0's now), and leaves other batches' files and other sinks' alone."""
    earlier = FileSinkSpec(str(tmp_path), "json")
    committables = []
    for task in (0, 1):
        writer = earlier.batch_writer("files", "job", 4, task)
        writer.write([Row(a=task)])
        committables += writer.finish()
    earlier.commit(4, committables)
    other = FileSinkSpec(str(tmp_path), "json").batch_writer("files", "job", 3, 1)
    other.write([Row(a=9)])
    FileSinkSpec(str(tmp_path), "json").commit(3, other.finish())
    replay = FileSinkSpec(str(tmp_path), "json")  # the restarted run's
    writer = replay.batch_writer("files", "job", 4, 0)
    writer.write([Row(a=0), Row(a=1)])
    replay.commit(4, writer.finish())
    assert files_under(tmp_path) == [
        "part-job-files-0000000003-1-0.json",
        "part-job-files-0000000004-0-0.json",
    ]
    lines = (tmp_path / "part-job-files-0000000004-0-0.json").read_text().splitlines()
    assert [json.loads(line) for line in lines] == [{"a": 0}, {"a": 1}]


def test_a_commit_whose_pending_file_vanished_fails_with_the_path(tmp_path):
    spec = FileSinkSpec(str(tmp_path), "json")
    writer = spec.batch_writer("files", "job", 2, 0)
    writer.write([Row(a=1)])
    committables = writer.finish()
    os.remove(committables[0][0])
    with pytest.raises(
        FileNotFoundError, match=r"pending part file .*part-job-files-0000000002-0-0"
    ):
        spec.commit(2, committables)


def test_an_aborted_task_leaves_no_file(tmp_path):
    spec = FileSinkSpec(str(tmp_path), "json", bucket_assigner=ByKey())
    writer = spec.batch_writer("files", "job", 1, 0)
    writer.write([("a", 1), ("b", 2)])
    writer.abort()
    assert files_under(tmp_path) == []


def test_rows_go_to_their_buckets_and_roll_by_size(tmp_path):
    spec = (
        FileSink.for_row_format(str(tmp_path), Encoder.simple_string_encoder())
        .with_bucket_assigner(ByKey())
        .with_rolling_policy(RollingPolicy.default_rolling_policy(part_size=10))
        .with_output_file_config(
            OutputFileConfig.builder().with_part_prefix("pre").with_part_suffix(".ext").build()
        )
        .build()
    )
    writer = spec.batch_writer("files", "job", 0, 3)
    writer.write([("a", 1), ("b", 2), ("a", 33333)])  # 9 bytes, then 22: rolls
    writer.write([("a", 4)])
    spec.commit(0, writer.finish())
    assert files_under(tmp_path) == [
        "key=a/pre-job-files-0000000000-3-0.ext",
        "key=a/pre-job-files-0000000000-3-1.ext",
        "key=b/pre-job-files-0000000000-3-0.ext",
    ]
    assert (
        tmp_path / "key=a/pre-job-files-0000000000-3-0.ext"
    ).read_text() == "('a', 1)\n('a', 33333)\n"
    assert (tmp_path / "key=a/pre-job-files-0000000000-3-1.ext").read_text() == "('a', 4)\n"


def test_pyflink_row_and_bulk_formats_bucket_by_the_hour_as_flink(tmp_path):
    spec = FileSink.for_row_format(str(tmp_path), Encoder.simple_string_encoder()).build()
    assigner = spec.bucket_assigner
    assert isinstance(assigner, DateTimeBucketAssigner)
    assert assigner.format_str == "yyyy-MM-dd--HH"
    utc = DateTimeBucketAssigner("yyyy-MM-dd--HH", "UTC")
    assert utc.get_bucket_id(None, FixedClock(1_764_033_600_000)) == "2025-11-25--01"
    assert (
        BucketAssigner.date_time_bucket_assigner("'dt='yyyyMMdd/'h='HH", "UTC").get_bucket_id(
            None, FixedClock(1_764_033_600_000)
        )
        == "dt=20251125/h=01"
    )
    assert FileSink.for_json_lines(str(tmp_path)).build().bucket_assigner is None
    base = (
        FileSink.for_row_format(str(tmp_path), Encoder.simple_string_encoder())
        .with_bucket_assigner(BucketAssigner.base_path_bucket_assigner())
        .build()
    )
    assert base.bucket_of("x", BucketContext()) == ""


def test_bad_bucket_settings_are_refused():
    with pytest.raises(ValueError, match="'EEE' is not supported"):
        java_to_strftime("yyyy-EEE")
    with pytest.raises(ValueError, match="unclosed quote"):
        java_to_strftime("'dt=yyyy")
    with pytest.raises(TypeError, match="get_bucket_id"):
        FileSink.for_json_lines("/tmp/x").with_bucket_assigner(lambda v: "a")

    class Escaping:
        def get_bucket_id(self, element, context):
            return "../out"

    spec = FileSinkSpec("/tmp/x", "json", bucket_assigner=Escaping())
    with pytest.raises(ValueError, match="under the base path"):
        spec.batch_writer("files", "job", 0, 0).write([1])


def test_bulk_parquet_files_roll_on_checkpoints_only(tmp_path):
    row_type = Types.ROW_NAMED(["k", "n"], [Types.STRING(), Types.LONG()])
    builder = FileSink.for_bulk_format(str(tmp_path), ParquetBulkWriters.for_row_type(row_type))
    with pytest.raises(TypeError, match="rolls on checkpoints only"):
        builder.with_rolling_policy(RollingPolicy.default_rolling_policy())
    spec = (
        builder.with_rolling_policy(RollingPolicy.on_checkpoint_rolling_policy())
        .with_bucket_assigner(BucketAssigner.base_path_bucket_assigner())
        .build()
    )
    writer = spec.batch_writer("files", "job", 4, 0)
    writer.write([Row(k="a", n=1)])
    writer.write([Row(k="b", n=2)])
    spec.commit(4, writer.finish())
    assert files_under(tmp_path) == ["part-job-files-0000000004-0-0.parquet"]
    table = pq.read_table(str(tmp_path / "part-job-files-0000000004-0-0.parquet"))
    assert table.to_pylist() == [{"k": "a", "n": 1}, {"k": "b", "n": 2}]
    with pytest.raises(TypeError, match="bulk writer factory"):
        FileSink.for_bulk_format(str(tmp_path), Encoder.simple_string_encoder())


def test_task_rows_carry_committables_and_counts_to_the_driver(tmp_path):
    spec = FileSinkSpec(str(tmp_path), "json")
    rows = [
        [("files", 0, bundle([Row(a=1)])), ("other", 0, b"x")],
        [("files", 1, bundle([Row(a=2), Row(a=3)]))],
    ]
    out = [
        row
        for passed in write_task_rows({"files": spec}, "job", 5, 2, iter(rows))
        for row in passed
    ]
    assert out[0] == ("other", 0, b"x")
    assert [row[0] for row in out[1:]] == [Channel.COMMITS, Channel.METRICS]
    committables = loads(out[1][2])["files"]
    assert [os.path.basename(f) for _, f in committables] == ["part-job-files-0000000005-2-0.json"]
    assert loads(out[2][2]) == {
        "files.numRecordsIn": 3,
        "files.subtask.0.numRecordsIn": 1,
        "files.subtask.1.numRecordsIn": 2,
    }
    spec.commit(5, committables)
    assert files_under(tmp_path) == ["part-job-files-0000000005-2-0.json"]


class _FailingAtFinish:
    """A sink whose writer fails when the task finishes (a transaction's commit)."""

    executor_side = True

    def batch_writer(self, uid, job, batch_id, task):
        class Writer:
            def write(self, values, timestamps=None):
                pass

            def finish(self):
                raise ConnectionError("the broker went away")

            def abort(self):
                pass

        return Writer()


def test_a_task_failing_after_its_files_finished_raises_its_own_error_and_leaves_no_file(tmp_path):
    sinks = {"files": FileSinkSpec(str(tmp_path), "json"), "kafka": _FailingAtFinish()}
    rows = [[("files", 0, bundle([Row(a=1)])), ("kafka", 0, bundle([Row(a=2)]))]]
    with pytest.raises(
        Exception, match="sink 'kafka' failed: ConnectionError: the broker went away"
    ) as raised:
        list(write_task_rows(sinks, "job", 3, 0, iter(rows)))
    assert not getattr(raised.value, "__notes__", None)
    assert files_under(tmp_path) == []
