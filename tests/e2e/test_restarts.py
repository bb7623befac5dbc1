"""Restart strategies on Spark: a job whose user code throws restarts from its last
checkpoint (a new query on the same checkpoint) and ends with an uninterrupted run's
exact output; one that keeps failing gives up as its strategy says, its exception
history naming the failure and the user's line."""

import json
import os

import pytest

from tests.e2e.shared import read_part_files
from weir.common import Configuration, Duration, RestartStrategies, WatermarkStrategy
from weir.common.job import JobExecutionError
from weir.datastream import StreamExecutionEnvironment
from weir.datastream.connectors import DataGeneratorSource, FileSink
from tests.e2e.test_savepoints import EVENTS, RunningCount, event, expected_records

pytestmark = pytest.mark.spark


class FailOnce:
    """Throws at record `at` while its marker file is missing (the first run only)."""

    def __init__(self, marker, at, always=False):
        self.marker, self.at, self.always = marker, at, always

    def __call__(self, value):
        if value[1] == self.at * 10 and (self.always or not os.path.exists(self.marker)):
            open(self.marker, "a").close()
            raise RuntimeError(f"record {self.at} is poisoned")
        return value


def build(spark, tmp_path, fail, configuration=None):
    env = StreamExecutionEnvironment.get_execution_environment(configuration)
    env.set_spark_session(spark).set_parallelism(2)
    env.enable_checkpointing(100)
    env.get_checkpoint_config().set_checkpoint_storage_dir(str(tmp_path / "checkpoint"))
    source = DataGeneratorSource(
        event, count=EVENTS, records_per_second=600, max_records_per_batch=60
    )
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_millis(0)
    ).with_timestamp_assigner(lambda e, ts: e[1])
    env.from_source(source, strategy, "events").uid("events").map(fail).key_by(
        lambda e: e[0]
    ).process(RunningCount()).uid("running-count").sink_to(
        FileSink.for_json_lines(str(tmp_path / "out")).build()
    )
    return env


def test_a_failed_job_restarts_from_its_checkpoint_with_exact_output(spark, tmp_path):
    env = build(spark, tmp_path, FailOnce(str(tmp_path / "failed"), 400))
    env.set_restart_strategy(RestartStrategies.fixed_delay_restart(2, 100))
    client = env.execute_async("restarting counts")
    client.get_job_execution_result()
    assert client.restarts == 1
    assert [e["name"] for e in client.exceptions] == ["JobExecutionError"]
    assert "record 400 is poisoned" in client.exceptions[0]["message"]
    order = lambda r: json.dumps(r, sort_keys=True)  # noqa: E731
    assert sorted(read_part_files(str(tmp_path / "out")), key=order) == sorted(
        expected_records(), key=order
    )


def test_a_job_that_keeps_failing_gives_up_as_its_strategy_says(spark, tmp_path):
    configuration = (
        Configuration()
        .set_string("restart-strategy.type", "fixed-delay")
        .set_string("restart-strategy.fixed-delay.attempts", "2")
        .set_string("restart-strategy.fixed-delay.delay", "50 ms")
    )
    env = build(
        spark, tmp_path, FailOnce(str(tmp_path / "failed"), 100, always=True), configuration
    )
    client = env.execute_async("failing counts")
    with pytest.raises(JobExecutionError, match="record 100 is poisoned"):
        client.get_job_execution_result()
    assert client.restarts == 2
    assert len(client.exceptions) == 3
    assert all("test_restarts.py" in e["message"] for e in client.exceptions)


def test_without_a_strategy_a_failure_ends_the_job(spark, tmp_path):
    env = build(spark, tmp_path, FailOnce(str(tmp_path / "failed"), 100))
    with pytest.raises(JobExecutionError, match="record 100 is poisoned"):
        env.execute("failing once")
