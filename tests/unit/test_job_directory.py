"""The job directory without Spark: job records, a dead process shown as FAILED, requests
answered by a job's control thread, and a program run by weir run's runner (on the
in-process executor)."""

import json
import subprocess
import sys
import threading

import pytest

from weir.common.job import JobStatus
from weir.jobs.directory import JobNotFound, JobRecord
from weir.jobs.runner import Control, progress_line, run_job


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    monkeypatch.setenv("WEIR_HOME", str(tmp_path / "home"))


def test_a_job_whose_process_died_shows_as_failed():
    record = JobRecord.create("job.py", "job.py", ["a"], parallelism=2)
    assert len(record.job_id) == 32 and record.status() == "CREATED"
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()
    record.write(pid=ended.pid, status="RUNNING")
    info = record.read()
    assert (info["status"], info["failure"]) == (
        "FAILED",
        "the job's process ended without recording its end",
    )
    assert [r.job_id for r in JobRecord.all()] == [record.job_id]
    with pytest.raises(JobNotFound, match=f"Job {'0' * 32} not found"):
        JobRecord.find("0" * 32)


class FakeClient:
    job_name = "fake"

    def __init__(self):
        self.canceled = False

    def cancel(self):
        self.canceled = True

    def trigger_savepoint(self, target):
        raise ValueError(f"no savepoint into {target}")

    def get_job_status(self):
        return JobStatus.CANCELED if self.canceled else JobStatus.RUNNING


def test_requests_are_answered_by_the_jobs_control_thread():
    record = JobRecord.create("job.py", "job.py", [])
    control = Control(record)
    client = FakeClient()
    control.submitted(client)
    threading.Thread(target=control.serve, daemon=True).start()
    try:
        assert record.request("savepoint", target="/nowhere") == {
            "error": "ValueError: no savepoint into /nowhere"
        }
        assert record.request("rescue") == {"error": "unknown request 'rescue'"}
        assert record.request("stop") == {"error": "the job's executor cannot stop a job"}
        assert record.request("cancel") == {"status": "CANCELED"}
    finally:
        control.done.set()
    assert client.canceled and record.read()["name"] == "fake"
    assert record.pending_requests() == []


PROGRAM = """
import sys
from weir.datastream import StreamExecutionEnvironment
env = StreamExecutionEnvironment.get_execution_environment()
env.set_executor("local")
env.from_collection(sys.argv[1:]).map(str.upper).print()
env.execute("shout")
"""


def test_the_runner_runs_a_program_with_its_arguments(tmp_path, monkeypatch, capsys):
    program = tmp_path / "shout.py"
    program.write_text(PROGRAM)
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setattr(sys, "path", list(sys.path))
    record = JobRecord.create("shout.py", str(program), ["a", "b"])
    assert run_job(record) == 0
    assert capsys.readouterr().out.splitlines() == ["A", "B"]
    info = record.read()
    assert (info["status"], info["name"], info["runs"], info["exit_code"]) == (
        "FINISHED",
        "shout",
        1,
        0,
    )


def test_a_failing_program_is_recorded_with_its_failure(tmp_path, monkeypatch, capsys):
    program = tmp_path / "broken.py"
    program.write_text("raise KeyError('no such table')\n")
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setattr(sys, "path", list(sys.path))
    record = JobRecord.create("broken.py", str(program), [])
    assert run_job(record) == 1
    info = record.read()
    assert (info["status"], info["failure"]) == ("FAILED", "KeyError: 'no such table'")
    assert [e["message"] for e in info["exceptions"]] == ["KeyError: 'no such table'"]
    assert "raise KeyError('no such table')" in capsys.readouterr().err
    assert json.loads(open(record.path).read())["exit_code"] == 1


def test_a_foreground_run_shows_a_progress_line():
    snapshot = {
        "batches": 12,
        "metrics": {
            "events.numRecordsOut": 3412,
            "sink-0.numRecordsIn": 3400,
            "count.numRecordsOut": 7,
        },
        "plan": {
            "nodes": [
                {"id": "events", "operator": "source"},
                {"id": "count", "operator": "keyed"},
                {"id": "sink-0", "operator": "sink"},
            ]
        },
        "history": [{"watermark": "2026-11-25T08:33:20.000Z"}],
    }
    assert progress_line(snapshot) == (
        "weir: 12 micro-batches, 3,412 records in, 3,400 out, watermark 2026-11-25T08:33:20.000Z"
    )
    assert progress_line({}) == "weir: 0 micro-batches, 0 records in, 0 out, watermark -"
