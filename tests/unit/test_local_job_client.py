"""The in-process executor's job client behaves as a cluster's: execute_async returns while
the job runs, cancel() stops it, wait() returns its end status or raises its failure."""

import pytest

from weir.common import Types, WatermarkStrategy
from weir.common.job import JobStatus
from weir.datastream import StreamExecutionEnvironment
from weir.datastream.connectors import DataGeneratorSource
from weir.runtime.errors import UserFunctionError
from tests.e2e.shared import wait_until

SLOW_RECORDS, RATE = 600, 20  # 30 s of input: far longer than the test waits


def slow_job(results, function=lambda i: i):
    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    source = DataGeneratorSource(function, count=SLOW_RECORDS, records_per_second=RATE)
    env.from_source(source, WatermarkStrategy.no_watermarks(), "slow", Types.LONG()).map(
        lambda i: i * 10, Types.LONG()
    ).add_sink(lambda value, ctx: results.append(value))
    return env


def test_execute_async_returns_while_the_job_runs_and_cancel_stops_it():
    results = []
    client = slow_job(results).execute_async("slow")
    assert client.get_job_status() == JobStatus.RUNNING
    wait_until(lambda: len(results) >= 3, "3 results", 20, state=lambda: results, interval=0.02)
    client.cancel()  # returns once the job has stopped
    assert client.get_job_status() == JobStatus.CANCELED
    assert client.wait(20) == JobStatus.CANCELED
    seen = len(results)
    assert 3 <= seen < SLOW_RECORDS and results == [i * 10 for i in range(seen)]
    _assert_ended(client)
    assert len(results) == seen  # nothing runs after the end
    assert client.get_job_execution_result().get_job_id() == client.get_job_id()


def _assert_ended(client):
    """Nothing of the job can run any more: the thread that runs it (its sources,
    operators and sinks) has ended, its last round of the executor behind it."""
    client._thread.join(20)
    assert not client._thread.is_alive()


def test_wait_raises_the_failure_of_a_job_running_on():
    def fail_at_two(i):
        if i == 2:
            raise ValueError("no two")
        return i

    client = slow_job([], fail_at_two).execute_async("failing")
    with pytest.raises(UserFunctionError, match="no two"):
        client.wait(20)
    assert client.get_job_status() == JobStatus.FAILED


class InterruptedOnce:
    """A job's end event whose first wait is interrupted, as Ctrl-C interrupts it."""

    def __init__(self, ended):
        self.ended, self.interrupted = ended, False

    def wait(self, timeout=None):
        if not self.interrupted:
            self.interrupted = True
            raise KeyboardInterrupt
        return self.ended.wait(timeout)

    def set(self):
        self.ended.set()


def test_ctrl_c_while_waiting_cancels_the_job_before_it_is_raised():
    results = []
    client = slow_job(results).execute_async("interrupted")
    client._ended = InterruptedOnce(client._ended)
    with pytest.raises(KeyboardInterrupt):
        client.wait()
    assert client.get_job_status() == JobStatus.CANCELED
    seen = len(results)
    _assert_ended(client)
    assert len(results) == seen < SLOW_RECORDS


def test_the_collector_is_paused_while_a_batch_runs_and_on_again_after_the_job():
    """As on Spark's workers (weir.runtime.gc_pause): a batch's records are freed by
    reference counting, and collections while it runs would only scan them."""
    import gc

    seen = []
    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    env.from_collection([1, 2, 3], Types.LONG()).map(
        lambda i: (i, gc.isenabled()), Types.TUPLE([Types.LONG(), Types.BOOLEAN()])
    ).add_sink(lambda value, ctx: seen.append(value))
    assert gc.isenabled()
    env.execute("collector")
    assert sorted(seen) == [(1, False), (2, False), (3, False)]
    assert gc.isenabled()
