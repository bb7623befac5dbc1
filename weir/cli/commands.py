"""What each `weir` command does (weir.cli parses them)."""

import datetime
import json
import os
import sys

from weir.common.errors import WeirError
from weir.jobs.directory import TERMINAL, JobRecord
from weir.jobs.lifecycle import (
    answered,
    await_end,
    check_parallelism,
    max_parallelism_of,
    rescale,
    running,
    start_detached,
)
from weir.jobs.lifecycle import cancel as cancel_job
from weir.jobs.runner import run_job
from weir.rest.server import DEFAULT_PORT, dashboard_url, serve, serving
from weir.common.job import JobStatus
from weir.runtime.state.savepoint import dispose_savepoint, load_savepoint

DASHBOARD_PORT = "WEIR_DASHBOARD_PORT"


class CommandError(WeirError, RuntimeError):
    """A command that cannot be done (the message says why)."""


def _uri(path: str) -> str:
    """A local path as Flink prints it (file:/...)."""
    return path if ":" in path.split("/")[0] else f"file:{os.path.abspath(path)}"


def _start(record: JobRecord, detached: bool) -> int:
    if not detached:
        print(f"Job has been submitted with JobID {record.job_id}", file=sys.stderr)
        return run_job(record, sys.stderr if sys.stderr.isatty() else None)
    start_detached(record)
    return 0


def run(arguments) -> int:
    if not os.path.isfile(arguments.program):
        raise CommandError(f"Job program {arguments.program} does not exist")
    if arguments.parallelism is not None and arguments.parallelism < 1:
        raise CommandError(f"parallelism must be at least 1, got {arguments.parallelism}")
    if arguments.savepoint:  # refused here, before a job exists
        restored = load_savepoint(_local(arguments.savepoint))
        if arguments.parallelism is not None:
            check_parallelism(arguments.parallelism, restored.max_parallelism)
    record = JobRecord.create(
        os.path.basename(arguments.program),
        arguments.program,
        arguments.args,
        parallelism=arguments.parallelism,
        savepoint=arguments.savepoint,
        allow_non_restored=arguments.allow_non_restored,
    )
    if not arguments.detached:
        _print_dashboard(record.job_id)
    code = _start(record, arguments.detached)
    if arguments.detached:
        print(f"Job has been submitted with JobID {record.job_id}")
        _print_dashboard(record.job_id)
    return code


def _print_dashboard(job_id: str) -> None:
    """Where the job's dashboard page is (on standard error: standard output is Flink's),
    and how to start a dashboard if none serves there. WEIR_DASHBOARD_PORT: the port of
    the dashboard to point to (weir's default is Flink's REST port, 8081)."""
    port = int(os.environ.get(DASHBOARD_PORT) or DEFAULT_PORT)
    print(f"Dashboard: {dashboard_url('127.0.0.1', port, job_id)}", file=sys.stderr)
    if not serving("127.0.0.1", port):
        print(
            f"  (nothing serves it yet: start one with `weir dashboard --port {port}`)",
            file=sys.stderr,
        )


def list_jobs(arguments) -> int:
    jobs = [record.read() for record in JobRecord.all()]
    print("Waiting for response...")
    active = [j for j in jobs if j["status"] == JobStatus.RUNNING.value]
    scheduled = [j for j in jobs if j["status"] == JobStatus.CREATED.value]
    terminated = [j for j in jobs if j["status"] in TERMINAL]
    show_all = arguments.all or not (arguments.running or arguments.scheduled)
    if arguments.running or show_all:
        _section("Running/Restarting Jobs", active, "No running jobs.")
    if arguments.scheduled or show_all:
        _section("Scheduled Jobs", scheduled, "No scheduled jobs.")
    if arguments.all:
        _section("Terminated Jobs", terminated, "No terminated jobs.")
    return 0


def _section(title: str, jobs: list, empty: str) -> None:
    if not jobs:
        print(empty)
        return
    print(f" {title} ".center(62, "-"))
    for job in sorted(jobs, key=lambda j: j.get("started") or j["created"]):
        when = datetime.datetime.fromtimestamp((job.get("started") or job["created"]) / 1000)
        print(f"{when:%d.%m.%Y %H:%M:%S} : {job['job_id']} : {job['name']} ({job['status']})")
    print("-" * 62)


def cancel(arguments) -> int:
    record = JobRecord.find(arguments.job_id)
    if record.status() != JobStatus.CREATED.value:
        running(arguments.job_id)  # (refuses a job that has ended, before saying anything)
    print(f"Cancelling job {record.job_id}.")
    cancel_job(record)
    print(f"Cancelled job {record.job_id}.")
    return 0


def stop(arguments) -> int:
    record = running(arguments.job_id)
    verb = "Draining" if arguments.drain else "Suspending"
    print(f'{verb} job "{record.job_id}" with a CANONICAL savepoint.')
    answer = answered(record, "stop", target=_absolute(arguments.target), drain=arguments.drain)
    await_end(record)
    print(f"Savepoint completed. Path: {_uri(answer['path'])}")
    return 0


def savepoint(arguments) -> int:
    if arguments.dispose:
        print(f"Disposing savepoint '{arguments.dispose}'.")
        dispose_savepoint(_local(arguments.dispose))
        print(f"Savepoint '{arguments.dispose}' disposed.")
        return 0
    if not arguments.job_id:
        raise CommandError("Missing JobID: weir savepoint JOB [DIR], or weir savepoint -d PATH")
    record = running(arguments.job_id)
    print(f"Triggering savepoint for job {record.job_id}.")
    print("Waiting for response...")
    answer = answered(record, "savepoint", target=_absolute(arguments.target))
    print(f"Savepoint completed. Path: {_uri(answer['path'])}")
    print("You can resume your program from this savepoint with the run command.")
    return 0


def modify(arguments) -> int:
    """Rescales a running job (weir.jobs.lifecycle.rescale)."""
    record = running(arguments.job_id)
    check_parallelism(arguments.parallelism, max_parallelism_of(record))
    print(f"Modify job {record.job_id}.")
    rescale(record, arguments.parallelism)
    print(f"Rescaled job {record.job_id}. Its new parallelism is {arguments.parallelism}.")
    return 0


def info(arguments) -> int:
    described = load_savepoint(_local(arguments.savepoint)).describe()
    print(json.dumps(described, indent=2, sort_keys=True))
    return 0


def _absolute(path):
    return None if path is None else os.path.abspath(_local(path))


def _local(path: str) -> str:
    return path[len("file:") :] if path.startswith("file:") else path


def server(arguments) -> int:
    serve(arguments.host, arguments.port, arguments.token)
    return 0


def dashboard(arguments) -> int:
    """The dashboard (and the REST API it reads: the same app as `weir server`)."""
    serve(arguments.host, arguments.port, arguments.token, what="dashboard")
    return 0


def warm_up(arguments) -> int:
    from weir.cli.warm_up import warm_up as record  # (Spark only for this command)

    return record(arguments)


COMMANDS = {
    "run": run,
    "list": list_jobs,
    "cancel": cancel,
    "stop": stop,
    "savepoint": savepoint,
    "modify": modify,
    "info": info,
    "server": server,
    "dashboard": dashboard,
    "warm-up": warm_up,
}
