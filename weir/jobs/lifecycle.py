"""Starting and rescaling jobs of the job directory: what `weir run`, `weir modify` and
the REST API share."""

import os
import subprocess
import signal
import sys
import threading
import time

from weir.common.errors import WeirError
from weir.common.processes import process_alive
from weir.jobs.directory import TERMINAL, JobRecord
from weir.common.job import JobStatus

START_TIMEOUT_S = 600  # how long a rescale waits for the restarted job to run


class LifecycleError(WeirError, RuntimeError):
    """A job cannot do what was asked (the message says why)."""


def start_detached(record: JobRecord) -> int:
    """Runs the job as its own process (weir.jobs.detached), its output in its log."""
    with open(record.log, "ab") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "weir.jobs.detached", record.job_id],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            env=dict(os.environ, PYSPARK_PYTHON=os.environ.get("PYSPARK_PYTHON", sys.executable)),
        )
    record.write(pid=process.pid)
    # Reaped once it ends, so that a long-lived starter (`weir server`) leaves no zombie
    threading.Thread(target=process.wait, daemon=True, name=f"weir-reap-{process.pid}").start()
    return process.pid


def running(job_id: str) -> JobRecord:
    """The record of a running job; refuses one that is not."""
    record = JobRecord.find(job_id)
    status = record.status()
    if status != JobStatus.RUNNING.value:
        raise LifecycleError(f"Job {job_id} is {status}, not RUNNING")
    return record


def cancel(record: JobRecord) -> None:
    """Cancels a running job through its process, or a job not running yet (CREATED: its
    program has not submitted it) by ending its process, as Flink cancels a CREATED job;
    refuses one that has ended."""
    status = record.status()
    if status == JobStatus.CREATED.value and record.read().get("pid"):
        _end_process(record)
        record.write(status=JobStatus.CANCELED.value, ended=int(time.time() * 1000), failure=None)
        return
    if status != JobStatus.RUNNING.value:
        raise LifecycleError(f"Job {record.job_id} is {status}, not RUNNING")
    answered(record, "cancel")
    await_end(record)


def _end_process(record: JobRecord, grace_s: float = 10) -> None:
    """Ends the job's process group (its Spark with it): SIGTERM, then SIGKILL."""
    pid = record.read().get("pid")
    assert pid is not None  # (the callers checked it)
    for sent in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pid, sent)
        except OSError:
            return
        deadline = time.time() + grace_s
        while time.time() < deadline:
            if not process_alive(pid):
                return
            time.sleep(0.1)


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


class InvalidParallelism(LifecycleError):
    """A parallelism a job cannot take (not an integer in 1..its max parallelism)."""


def check_parallelism(parallelism, max_parallelism) -> int:
    """`parallelism` where it is an integer in 1..`max_parallelism`; refused otherwise, before
    anything is done to a job (Flink refuses a parallelism above the max parallelism: keyed
    state lives in max-parallelism key groups)."""
    if isinstance(parallelism, bool) or not isinstance(parallelism, int):
        raise InvalidParallelism(f"parallelism must be an integer, got {parallelism!r}")
    if not 1 <= parallelism <= max_parallelism:
        raise InvalidParallelism(
            f"parallelism must be in 1..{max_parallelism} (the job's max parallelism: its "
            f"keyed state is split into {max_parallelism} key groups), got {parallelism}"
        )
    return parallelism


def max_parallelism_of(record: JobRecord) -> int:
    """The running job's max parallelism, as its process reports it."""
    reported = record.snapshot().get("max_parallelism")
    if not isinstance(reported, int):
        raise LifecycleError(
            f"Job {record.job_id} has not reported its max parallelism yet; "
            "try again once it has run a micro-batch"
        )
    return reported


def rescale(record: JobRecord, parallelism: int) -> str:
    """Stops the running job with a savepoint, then runs it again from the savepoint at
    `parallelism`, as its own process, under the same job id; returns the savepoint. A
    parallelism the job cannot take is refused before the job is touched; a restart that
    fails puts the job back on the savepoint at its old parallelism (the error says so, and
    names the savepoint)."""
    check_parallelism(parallelism, max_parallelism_of(record))
    before = record.read().get("parallelism")
    answer = answered(record, "stop", target=None)
    await_end(record)
    path = answer["path"]
    failure = _restart(record, parallelism, path)
    if failure is None:
        return path
    back = _restart(record, before, path)
    if back is None:
        raise LifecycleError(
            f"Job {record.job_id} could not run at parallelism {parallelism} ({failure}); it "
            f"runs again at its old parallelism from savepoint {path}"
        )
    raise LifecycleError(
        f"Job {record.job_id} could not run at parallelism {parallelism} ({failure}) nor "
        f"again at its old parallelism ({back}); its state is in savepoint {path}: "
        f"`weir run -s {path}` restores it"
    )


def _restart(record: JobRecord, parallelism, savepoint: str):
    """Runs the job again from `savepoint` at `parallelism`; None once it has committed a
    micro-batch (or ended FINISHED), else why it did not."""
    record.write(
        parallelism=parallelism,
        savepoint=savepoint,
        allow_non_restored=False,
        status=JobStatus.CREATED.value,
        pid=None,
    )
    started = time.time()
    start_detached(record)
    deadline = started + START_TIMEOUT_S
    while time.time() < deadline:
        info = record.read()
        if info["status"] == JobStatus.FINISHED.value:
            return None
        if info["status"] in TERMINAL:
            return f"it ended {info['status']}: {info.get('failure') or 'see its log'}"
        snapshot = record.snapshot()
        if (
            info["status"] == JobStatus.RUNNING.value
            and snapshot.get("batches", 0) >= 1
            and snapshot.get("time", 0) >= started * 1000
        ):
            return None
        time.sleep(0.2)
    _kill(record)
    return f"it did not run a micro-batch within {START_TIMEOUT_S} s"


def _kill(record: JobRecord) -> None:
    """Ends the job's process (and the Spark it started) for good."""
    if record.read().get("pid"):
        _end_process(record)
    record.write(status=JobStatus.FAILED.value, pid=None)
