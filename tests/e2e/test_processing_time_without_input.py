"""A processing-time timer fires when it is due even while no input comes at all: the
engine runs a micro-batch for it (as Flink's timer service fires on the wall clock)."""

import threading
import time

from weir.common import WatermarkStrategy
from weir.common.job import JobStatus
from weir.datastream import KeyedProcessFunction
from weir.local.executor import LocalJob
from weir.runtime.sources import SourceReader


class TwoThenSilence(SourceReader):
    """An unbounded source with two records, then nothing."""

    bounded = False

    def available(self, start_pos):
        return 2

    def read(self, lo, hi):
        for index in range(lo, hi):
            yield ("a", index), None


class InactivityAlert(KeyedProcessFunction):
    """One second after a key's last element (the second), an alert."""

    def process_element(self, value, ctx):
        if value[1] == 1:
            timers = ctx.timer_service()
            timers.register_processing_time_timer(timers.current_processing_time() + 1000)
        yield f"element {value[1]}"

    def on_timer(self, timestamp, ctx):
        yield f"alert for {ctx.get_current_key()}"


def _job(env, results):
    env.set_parallelism(2)
    env.from_source(TwoThenSilence(), WatermarkStrategy.no_watermarks(), "quiet").key_by(
        lambda v: v[0]).process(InactivityAlert()).add_sink(lambda v, ctx: results.append(v))


def _wait_for(results, count, seconds=60):
    deadline = time.time() + seconds
    while len(results) < count and time.time() < deadline:
        time.sleep(0.1)


EXPECTED = ["element 0", "element 1", "alert for a"]


def test_a_due_timer_fires_on_spark_while_the_stream_has_no_input(spark_env):
    results = []
    _job(spark_env, results)
    client = spark_env.execute_async("quiet")
    try:
        _wait_for(results, 3)
        time.sleep(1.5)  # no more output comes
    finally:
        client.cancel()
    assert sorted(results) == sorted(EXPECTED)


def test_a_due_timer_fires_in_process_while_the_stream_has_no_input(local_env):
    results = []
    _job(local_env, results)
    job = LocalJob(local_env, local_env._graph, local_env._pending_sinks(), "quiet")
    runs = threading.Thread(target=job.run)
    runs.start()
    try:
        _wait_for(results, 3)
        time.sleep(0.5)
    finally:
        job.cancel()
        runs.join(timeout=30)
    assert job.get_job_status() == JobStatus.CANCELED
    assert sorted(results) == sorted(EXPECTED)
