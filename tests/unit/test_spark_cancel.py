"""A job whose query weir stops in the middle of a micro-batch (a cancel, the end of a
bounded job): its sink work's error reaches Spark as an interruption Spark recognises, in
a message short enough for Spark's matcher (on the ~12,000 characters of the
Py4JJavaError an interrupted toArrow raises, Spark's matcher overflowed the JVM's stack and
printed a StackOverflowError on cancel)."""

import re
import traceback

import pytest

from weir.spark.executor import BatchInterrupted, SparkJob

# Spark 4.3's StreamExecution.PROXY_ERROR, which decides whether a foreachBatch error is
# the interruption of a stopping query
SPARK_PROXY_ERROR = re.compile(
    r"py4j.protocol.Py4JJavaError: An error occurred while calling((.|\r\n|\r|\n)*)"
    r"(java.lang.InterruptedException|java.io.InterruptedIOException|"
    r"java.nio.channels.ClosedByInterruptException)"
)


def job_whose_sinks_fail(error, stopping):
    job = object.__new__(SparkJob)
    job.stopping = stopping

    def write_outputs(frame, batch_id):
        raise error

    job._write_outputs = write_outputs
    return job


def test_a_batch_stopped_by_weir_raises_a_short_interruption():
    interrupted = RuntimeError(
        "An error occurred while calling o153.getResult.\n" + "\tat org.apache.spark.Frame\n" * 500
    )
    with pytest.raises(BatchInterrupted) as raised:
        job_whose_sinks_fail(interrupted, stopping=True)._write_batch(None, 7)
    seen_by_spark = "".join(traceback.format_exception(raised.value))
    assert SPARK_PROXY_ERROR.search(seen_by_spark)
    assert "o153" not in seen_by_spark and len(seen_by_spark) < 1_000


def test_a_failure_of_a_running_job_is_raised_as_it_is():
    failure = ValueError("the sink failed")
    with pytest.raises(ValueError) as raised:
        job_whose_sinks_fail(failure, stopping=False)._write_batch(None, 7)
    assert raised.value is failure
