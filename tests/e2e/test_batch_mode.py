"""BATCH mode runs as one Spark batch job (no streaming query, state store or checkpoint);
AUTOMATIC picks it when every source is bounded, as Flink does. Its results against
PyFlink's BATCH mode: tests/flink_programs/batch_mode.py."""

import pytest

from weir.common.job import JobExecutionError, JobStatus
from weir.datastream import KeyedProcessFunction, OutputTag, RuntimeExecutionMode
from weir.datastream.state import ValueStateDescriptor
from weir.spark.batch_mode import BatchJob
from weir.spark.executor import SparkJob

pytestmark = pytest.mark.spark


def _counts(env, values, mode):
    env.set_runtime_mode(mode)
    results = []
    env.from_collection(values).key_by(lambda v: v % 3).reduce(lambda a, b: a + b).add_sink(
        lambda value, ctx: results.append(value)
    )
    return env.execute_async("counts"), results


def test_automatic_mode_with_bounded_sources_runs_a_spark_batch_job(spark_env, spark):
    client, results = _counts(spark_env, range(10), RuntimeExecutionMode.AUTOMATIC)
    assert isinstance(client, BatchJob) and client.get_job_status() == JobStatus.FINISHED
    assert spark.streams.active == []
    assert sorted(results) == [12, 15, 18]  # each key's final sum only
    assert (
        client.get_job_execution_result()
        .summary()
        .endswith("one Spark batch job, 10 records read, 3 written")
    )


def test_streaming_mode_still_runs_a_streaming_query(spark_env):
    client, results = _counts(spark_env, range(10), RuntimeExecutionMode.STREAMING)
    assert isinstance(client, SparkJob)
    client.wait()
    assert len(results) == 10  # every rolling update


def test_a_failing_batch_job_names_the_operator_and_the_users_line(spark_env):
    spark_env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    spark_env.from_collection([1, 2]).key_by(lambda v: v).map(lambda v: v // 0).uid(
        "divide"
    ).print()
    with pytest.raises(
        JobExecutionError,
        match=r"job 'broken' failed: operator 'divide' "
        r"failed in user function .*<lambda> \(.*test_batch_mode.py:\d+\) at "
        r".*test_batch_mode.py:\d+: ZeroDivisionError",
    ):
        spark_env.execute("broken")


ODD = OutputTag("odd")


class Totals(KeyedProcessFunction):
    """Per key: the running total (state) and one output at the end of the key's input;
    odd inputs also go to a side output."""

    def open(self, runtime_context):
        self.total = runtime_context.get_state(ValueStateDescriptor("total"))

    def process_element(self, value, ctx):
        if self.total.value() is None:
            ctx.timer_service().register_event_time_timer(0)
        self.total.update((self.total.value() or 0) + value[1])
        if value[1] % 2:
            yield ODD, value

    def on_timer(self, timestamp, ctx):
        yield ctx.get_current_key(), self.total.value()


def _two_stages(env, parallelism):
    """key_by -> totals (side output to a sink) -> key_by on another key -> totals: the
    second stage's input and the side output pass through the first stage's partitions."""
    env.set_runtime_mode(RuntimeExecutionMode.BATCH).set_parallelism(parallelism)
    outputs = {"first": [], "odd": [], "second": []}
    first = (
        env.from_collection([(k % 37, k) for k in range(2000)])
        .key_by(lambda v: v[0])
        .process(Totals())
    )
    first.get_side_output(ODD).add_sink(lambda v, ctx: outputs["odd"].append(v))
    first.add_sink(lambda v, ctx: outputs["first"].append(v))
    first.key_by(lambda v: v[0] % 5).process(Totals()).add_sink(
        lambda v, ctx: outputs["second"].append(v)
    )
    env.execute("two stages")
    return {name: sorted(values) for name, values in outputs.items()}


@pytest.mark.parametrize("parallelism, shuffle_partitions", [(1, 1), (2, 2), (3, 2), (1, 5)])
def test_a_two_stage_batch_job_gives_the_in_process_executors_results(
    spark, spark_env, local_env, parallelism, shuffle_partitions
):
    """Stages run per key-group range (one Spark partition per subtask, or the session's
    shuffle partitions where those are more): every record reaches its key group once."""
    saved = spark.conf.get("spark.sql.shuffle.partitions")
    spark.conf.set("spark.sql.shuffle.partitions", str(shuffle_partitions))
    try:
        on_spark = _two_stages(spark_env, parallelism)
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", saved)
    assert on_spark == _two_stages(local_env, parallelism)
    assert len(on_spark["first"]) == 37 and len(on_spark["odd"]) == 1000
    assert on_spark["second"] == sorted(
        (key, sum(k for k in range(2000) if k % 37 % 5 == key)) for key in range(5)
    )
