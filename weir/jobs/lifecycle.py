"""Starting and rescaling jobs of the job directory: what `weir run`, `weir modify` and
the REST API share."""

import os
import subprocess
import sys
import time

from weir.jobs.directory import TERMINAL, JobRecord
from weir.common.job import JobStatus

START_TIMEOUT_S = 600  # how long a rescale waits for the restarted job to run


class LifecycleError(RuntimeError):
    """A job cannot do what was asked (the message says why)."""


def start_detached(record: JobRecord) -> int:
    """Runs the job as its own process (weir.jobs.detached), its output in its log."""
    with open(record.log, "ab") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "weir.jobs.detached", record.job_id],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
            env=dict(os.environ, PYSPARK_PYTHON=os.environ.get("PYSPARK_PYTHON",
                                                                  sys.executable)))
    record.write(pid=process.pid)
    return process.pid


def running(job_id: str) -> JobRecord:
    """The record of a running job; refuses one that is not."""
    record = JobRecord.find(job_id)
    status = record.status()
    if status != JobStatus.RUNNING.value:
        raise LifecycleError(f"Job {job_id} is {status}, not RUNNING")
    return record


def answered(record: JobRecord, action: str, **arguments) -> dict:
    """The job's answer to `action`; refuses an answer that is an error."""
    answer = record.request(action, **arguments)
    if "error" in answer:
        raise LifecycleError(f"Could not {action} job {record.job_id}: {answer['error']}")
    return answer


def await_end(record: JobRecord, timeout_s: float = 600) -> None:
    deadline = time.time() + timeout_s
    while record.status() not in TERMINAL:
        if time.time() > deadline:
            raise LifecycleError(f"Job {record.job_id} did not end within {timeout_s:.0f} s")
        time.sleep(0.1)


def rescale(record: JobRecord, parallelism: int) -> str:
    """Stops the running job with a savepoint, then runs it again from the savepoint at
    `parallelism`, as its own process, under the same job id; returns the savepoint."""
    if parallelism < 1:
        raise LifecycleError(f"parallelism must be at least 1, got {parallelism}")
    answer = answered(record, "stop", target=None)
    await_end(record)
    record.write(parallelism=parallelism, savepoint=answer["path"], allow_non_restored=False,
                 status=JobStatus.CREATED.value, pid=None)
    start_detached(record)
    deadline = time.time() + START_TIMEOUT_S
    while record.status() == JobStatus.CREATED.value and time.time() < deadline:
        time.sleep(0.2)
    return answer["path"]
