"""BATCH mode runs as one Spark batch job (no streaming query, state store or checkpoint);
AUTOMATIC picks it when every source is bounded, as Flink does. Its results against
PyFlink's BATCH mode: tests/flink_programs/batch_mode.py."""

import pytest

from weir.common.job import JobExecutionError, JobStatus
from weir.datastream import RuntimeExecutionMode
from weir.spark.batch import BatchJob
from weir.spark.executor import SparkJob

pytestmark = pytest.mark.spark


def _counts(env, values, mode):
    env.set_runtime_mode(mode)
    results = []
    env.from_collection(values).key_by(lambda v: v % 3).reduce(lambda a, b: a + b) \
        .add_sink(lambda value, ctx: results.append(value))
    return env.execute_async("counts"), results


def test_automatic_mode_with_bounded_sources_runs_a_spark_batch_job(spark_env, spark):
    client, results = _counts(spark_env, range(10), RuntimeExecutionMode.AUTOMATIC)
    assert isinstance(client, BatchJob) and client.get_job_status() == JobStatus.FINISHED
    assert spark.streams.active == []
    assert sorted(results) == [12, 15, 18]  # each key's final sum only
    assert client.get_job_execution_result().summary().endswith(
        "one Spark batch job, 10 records read, 3 written")


def test_streaming_mode_still_runs_a_streaming_query(spark_env):
    client, results = _counts(spark_env, range(10), RuntimeExecutionMode.STREAMING)
    assert isinstance(client, SparkJob)
    client.wait()
    assert len(results) == 10  # every rolling update


def test_a_failing_batch_job_names_the_operator_and_the_users_line(spark_env):
    spark_env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    spark_env.from_collection([1, 2]).key_by(lambda v: v).map(lambda v: v // 0) \
        .uid("divide").print()
    with pytest.raises(JobExecutionError, match=r"job 'broken' failed: operator 'divide' "
                       r"failed in user function .*<lambda> \(.*test_batch_mode.py:\d+\) at "
                       r".*test_batch_mode.py:\d+: ZeroDivisionError"):
        spark_env.execute("broken")
