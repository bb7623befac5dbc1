"""Bounded sources read whole in the first micro-batch (weir.spark.one_shot): a collection
or a generator without a rate is read without a Python data source, in one micro-batch,
with the same exact output; a failure in that micro-batch replays it exactly; a job
restarted after its input ended writes nothing more; a checkpoint an earlier weir started
with the data source resumes with it; a savepoint knows the source's position."""

import json
import os
from types import SimpleNamespace

import pytest

from tests.e2e.jobs.checkpointed_counts import RunningCount, event
from tests.e2e.shared import read_part_files
from tests.e2e.test_restarts import FailOnce
from tests.e2e.test_savepoints import EVENTS, expected_records
from weir.common import Duration, RestartStrategies, WatermarkStrategy
from weir.common.job import JobExecutionError
from weir.datastream import StreamExecutionEnvironment
from weir.datastream.connectors import DataGeneratorSource, FileSink
from weir.spark import one_shot
from weir.spark.restore import JOB_FILE, job_setting, last_committed_batch
from weir.spark.savepoints import source_positions

pytestmark = pytest.mark.spark


def ordered(records):
    return sorted(records, key=lambda r: json.dumps(r, sort_keys=True))


def counts_job(spark, tmp_path, fail=None, count=EVENTS, rate=None):
    """Running counts per key of `count` generated events into an exactly-once file sink,
    checkpointed in tmp_path/checkpoint (`fail`: a map that may throw)."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_spark_session(spark).set_parallelism(2)
    env.enable_checkpointing(100)
    env.get_checkpoint_config().set_checkpoint_storage_dir(str(tmp_path / "checkpoint"))
    source = DataGeneratorSource(event, count=count, records_per_second=rate)
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_millis(0)
    ).with_timestamp_assigner(lambda e, ts: e[1])
    stream = env.from_source(source, strategy, "events").uid("events")
    if fail is not None:
        stream = stream.map(fail)
    stream.key_by(lambda e: e[0]).process(RunningCount()).uid("running-count").sink_to(
        FileSink.for_json_lines(str(tmp_path / "out")).build()
    )
    return env


def source_offsets(checkpoint: str, batch: int) -> list:
    """The source offsets of micro-batch `batch` in Spark's offset log."""
    with open(os.path.join(checkpoint, "offsets", str(batch)), encoding="utf-8") as handle:
        return [json.loads(line) for line in handle.read().splitlines()[2:]]


def test_a_generator_without_a_rate_is_read_whole_in_one_micro_batch(spark, tmp_path):
    result = counts_job(spark, tmp_path).execute("whole")
    checkpoint = str(tmp_path / "checkpoint")
    assert ordered(read_part_files(str(tmp_path / "out"))) == ordered(expected_records())
    assert (result.batches, result.records_read) == (1, EVENTS)
    [setting] = job_setting(checkpoint, one_shot.SETTING).values()
    assert setting["position"] == {"pos": EVENTS, "end": 1}
    # Spark's rate-micro-batch source (its offset), not weir's Python data source
    [offset] = source_offsets(checkpoint, 0)
    assert "offset" in offset and "weir_source" not in offset
    # a savepoint of the job names its position: its end
    plan = SimpleNamespace(sources=[SimpleNamespace(uid="events")])
    assert source_positions(checkpoint, 0, plan) == {"events": {"pos": EVENTS, "end": 1}}


def test_a_source_with_a_rate_is_read_by_the_python_data_source(spark, tmp_path):
    counts_job(spark, tmp_path, count=30, rate=1000).execute("rated")
    checkpoint = str(tmp_path / "checkpoint")
    assert job_setting(checkpoint, one_shot.SETTING) == {}
    assert all("weir_source" in offset for offset in source_offsets(checkpoint, 0))


def test_a_failure_in_the_one_micro_batch_replays_it_exactly(spark, tmp_path):
    env = counts_job(spark, tmp_path, FailOnce(str(tmp_path / "failed"), 400))
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(2, 100))
    client = env.execute_async("replayed")
    client.get_job_execution_result()
    assert client.restarts == 1
    assert ordered(read_part_files(str(tmp_path / "out"))) == ordered(expected_records())


def test_a_job_restarted_after_its_input_ended_writes_nothing_more(spark, tmp_path):
    counts_job(spark, tmp_path).execute("first run")
    written = sorted(os.listdir(tmp_path / "out"))
    for run in ("second run", "third run"):  # (each runs one micro-batch without records)
        again = counts_job(spark, tmp_path).execute(run)
        assert (again.batches, again.records_read) == (1, 0)
        assert sorted(os.listdir(tmp_path / "out")) == written
    assert ordered(read_part_files(str(tmp_path / "out"))) == ordered(expected_records())


def test_a_checkpoint_the_data_source_started_resumes_with_it(spark, tmp_path, monkeypatch):
    """A checkpoint whose first micro-batch weir's Python data source planned (as an
    earlier weir did) resumes with that source: its replay reads the same records."""
    checkpoint = str(tmp_path / "checkpoint")
    with monkeypatch.context() as patched:
        patched.setattr("weir.spark.executor.eligible_sources", lambda plan: [])
        with pytest.raises(JobExecutionError, match="record 400 is poisoned"):
            counts_job(spark, tmp_path, FailOnce(str(tmp_path / "failed"), 400)).execute("old")
    assert last_committed_batch(checkpoint) is None
    assert all("weir_source" in offset for offset in source_offsets(checkpoint, 0))
    with open(os.path.join(checkpoint, JOB_FILE), encoding="utf-8") as handle:
        settings = json.load(handle)
    del settings[one_shot.SETTING]  # (an earlier weir kept none)
    with open(os.path.join(checkpoint, JOB_FILE), "w", encoding="utf-8") as handle:
        json.dump(settings, handle)
    counts_job(spark, tmp_path, FailOnce(str(tmp_path / "failed"), 400)).execute("resumed")
    assert job_setting(checkpoint, one_shot.SETTING) is None
    assert ordered(read_part_files(str(tmp_path / "out"))) == ordered(expected_records())
