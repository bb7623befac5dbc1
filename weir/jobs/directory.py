"""The job directory: every job `weir run` started, so that any `weir` process can list
and manage jobs another one started.

    $WEIR_HOME/jobs/<job id>/job.json     the job: name, program, arguments, status, pid, ...
                             log          its process's standard output and error
                             checkpoints/<run>/   each run's checkpoint (a restore is a new run)
                             savepoints/  savepoints taken without a target directory
                             snapshot.json  its metrics, micro-batches and plan, every second
                             control/     requests to the job's process and their answers

WEIR_HOME defaults to ~/.weir. A request is a JSON file the job's process picks up and
answers with `<request>.answer`; a job whose process died without recording its end
shows as FAILED.
"""

import json
import os
import time
import uuid

from weir.common.errors import WeirError
from weir.common.job import JobStatus
from weir.common.processes import process_alive
from weir.runtime.sink_writers import atomic_write

HOME = "WEIR_HOME"
ANSWER = ".answer"
TERMINAL = {JobStatus.FINISHED.value, JobStatus.CANCELED.value, JobStatus.FAILED.value}


class JobNotFound(WeirError, LookupError):
    """No job with that id in the job directory."""


def weir_home() -> str:
    return os.environ.get(HOME) or os.path.join(os.path.expanduser("~"), ".weir")


def jobs_root() -> str:
    return os.path.join(weir_home(), "jobs")


def new_job_id() -> str:
    """A job id as Flink's: 32 hex digits."""
    return uuid.uuid4().hex


class JobRecord:
    """One job's directory and its job.json."""

    def __init__(self, job_id: str):
        self.job_id = job_id
        self.directory = os.path.join(jobs_root(), job_id)

    @classmethod
    def create(cls, name: str, program: str, args: list, **settings) -> "JobRecord":
        record = cls(new_job_id())
        os.makedirs(os.path.join(record.directory, "control"))
        record.write(
            job_id=record.job_id,
            name=name,
            program=os.path.abspath(program),
            args=list(args),
            status=JobStatus.CREATED.value,
            runs=0,
            created=int(time.time() * 1000),
            **settings,
        )
        return record

    @classmethod
    def find(cls, job_id: str) -> "JobRecord":
        record = cls(job_id)
        if not os.path.exists(record.path):
            raise JobNotFound(f"Job {job_id} not found")
        return record

    @classmethod
    def all(cls) -> list:
        root = jobs_root()
        if not os.path.isdir(root):
            return []
        return [
            cls(name)
            for name in sorted(os.listdir(root))
            if os.path.exists(os.path.join(root, name, "job.json"))
        ]

    @property
    def path(self) -> str:
        return os.path.join(self.directory, "job.json")

    @property
    def log(self) -> str:
        return os.path.join(self.directory, "log")

    def read(self) -> dict:
        with open(self.path, encoding="utf-8") as handle:
            info = json.load(handle)
        if info["status"] not in TERMINAL and info.get("pid") and not process_alive(info["pid"]):
            info["status"] = JobStatus.FAILED.value  # its process died
            info.setdefault("failure", "the job's process ended without recording its end")
        return info

    def write(self, **values) -> None:
        info = {}
        if os.path.exists(self.path):
            with open(self.path, encoding="utf-8") as handle:
                info = json.load(handle)
        info.update(values)
        atomic_write(self.path, json.dumps(info, indent=1).encode())

    @property
    def snapshot_path(self) -> str:
        return os.path.join(self.directory, "snapshot.json")

    def write_snapshot(self, snapshot: dict) -> None:
        """What the job's process reports about its job (weir.spark.progress)."""
        atomic_write(self.snapshot_path, json.dumps(snapshot).encode())

    def snapshot(self) -> dict:
        """The job's last reported state ({} before its first report)."""
        try:
            with open(self.snapshot_path, encoding="utf-8") as handle:
                return json.load(handle)
        except FileNotFoundError:
            return {}

    def status(self) -> str:
        return self.read()["status"]

    def checkpoint_dir(self, run: int) -> str:
        return os.path.join(self.directory, "checkpoints", str(run))

    def savepoints_dir(self) -> str:
        return os.path.join(self.directory, "savepoints")

    # -- requests to the job's process ---------------------------------------------
    def send(self, action: str, **arguments) -> str:
        """Asks the job's process for `action`; returns the request's name."""
        name = f"{int(time.time() * 1000)}-{uuid.uuid4().hex[:8]}"
        atomic_write(
            os.path.join(self.directory, "control", name),
            json.dumps({"action": action, **arguments}).encode(),
        )
        return name

    def answer_of(self, name: str):
        """The answer to request `name` (None: not answered yet); an unknown request is
        JobNotFound's kin: a LookupError."""
        path = os.path.join(self.directory, "control", os.path.basename(name))
        if not os.path.exists(path):
            raise JobNotFound(f"no request {name} for job {self.job_id}")
        if not os.path.exists(path + ANSWER):
            return None
        with open(path + ANSWER, encoding="utf-8") as handle:
            return json.load(handle)

    def request(self, action: str, timeout_s: float = 600, **arguments) -> dict:
        """Asks the job's process for `action` and waits for its answer."""
        path = os.path.join(self.directory, "control", self.send(action, **arguments))
        deadline = time.time() + timeout_s
        while time.time() < deadline:
            if os.path.exists(path + ANSWER):
                with open(path + ANSWER, encoding="utf-8") as handle:
                    return json.load(handle)
            if self.status() in TERMINAL:
                if os.path.exists(path + ANSWER):
                    continue
                return {"error": f"job {self.job_id} is {self.status()}"}
            time.sleep(0.1)
        return {"error": f"job {self.job_id} did not answer within {timeout_s:.0f} s"}

    def pending_requests(self) -> list:
        """(path, request) of each request not answered yet, oldest first."""
        directory = os.path.join(self.directory, "control")
        found = []
        for name in sorted(os.listdir(directory)):
            path = os.path.join(directory, name)
            if name.endswith(ANSWER) or name.startswith(".") or os.path.exists(path + ANSWER):
                continue
            with open(path, encoding="utf-8") as handle:
                found.append((path, json.load(handle)))
        return found

    @staticmethod
    def answer(path: str, answer: dict) -> None:
        atomic_write(path + ANSWER, json.dumps(answer).encode())
