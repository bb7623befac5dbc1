"""The REST API (`weir server`) as a client uses it, against a real detached job: Flink's
paths and field names, savepoints and stop through triggers, rescaling, Flink's error
shape for bad requests, a Prometheus scrape parsed by the client library's own parser,
and a server that requires a token refusing requests without it."""

import json
import os
import re
import socket
import subprocess
import sys
import urllib.error
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.e2e.shared import wait_until
from tests.e2e.test_cli import JOB, ROOT, submitted

pytestmark = pytest.mark.spark


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    def __init__(self, environment, token=None, command="server"):
        """`command`: `weir server`, or `weir dashboard` (the same app)."""
        self.port = free_port()
        self.token = token
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "weir",
                command,
                "--port",
                str(self.port),
                *(["--token", token] if token else []),
            ],
            env=environment,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        wait_until(self._up, "serving", 60)

    def _up(self):
        assert self.process.poll() is None, self.process.stderr.read()
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return True
        except OSError:
            return False

    def call(self, method, path, body=None, token=None):
        """(status, JSON or text) of a request."""
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}{path}",
            method=method,
            data=None if body is None else json.dumps(body).encode(),
            headers={
                "Content-Type": "application/json",
                **({"Authorization": f"Bearer {token}"} if token else {}),
            },
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                status, text = response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            status, text = error.code, error.read().decode()
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text

    def get(self, path, **kwargs):
        return self.call("GET", path, **kwargs)

    def stop(self):
        self.process.terminate()
        return self.process.communicate(timeout=30)


@pytest.fixture
def environment(tmp_path):
    return dict(
        os.environ,
        WEIR_HOME=str(tmp_path / "home"),
        PYTHONPATH=ROOT,
        PYSPARK_PYTHON=sys.executable,
        PYSPARK_DRIVER_PYTHON=sys.executable,
    )


def run_detached(environment, *args):
    done = subprocess.run(
        [sys.executable, "-m", "weir", "run", "-d", *args],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return submitted(done.stdout)


def zombies(parent: int) -> list:
    """The pids of `parent`'s children that ended and were not reaped."""
    found = []
    for name in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{name}/stat", encoding="ascii") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] == "Z" and int(fields[1]) == parent:
            found.append(int(name))
    return found


def completed(server, path):
    """The operation of a trigger, once completed."""
    found = {}

    def done():
        found.update(server.get(path)[1])
        return found["status"]["id"] == "COMPLETED"

    wait_until(done, f"{path} completed", 300)
    return found["operation"]


def test_a_job_through_the_rest_api(environment, tmp_path):
    job = run_detached(environment, JOB, str(tmp_path / "out"), "100000", "40")
    server = Server(environment)
    try:
        wait_until(
            lambda: (
                server.get(f"/jobs/{job}")[1].get("state") == "RUNNING"
                and server.get(f"/jobs/{job}")[1]["micro-batches"] >= 2
            ),
            "running",
        )
        status, overview = server.get("/overview")
        assert status == 200 and overview["jobs-running"] == 1
        assert overview["flink-version"].startswith("weir")
        jobs = server.get("/jobs/overview")[1]["jobs"]
        assert [(j["jid"], j["name"], j["state"], j["end-time"]) for j in jobs] == [
            (job, "cli counts", "RUNNING", -1)
        ]
        details = server.get(f"/jobs/{job}")[1]
        assert [v["id"] for v in details["vertices"]] == [
            "events",
            "stateless-0",
            "watermark-0",
            "running-count",
            "sink-0",
        ]
        plan = server.get(f"/jobs/{job}/plan")[1]["plan"]
        assert [i["id"] for i in plan["nodes"][3]["inputs"]] == ["watermark-0"]
        assert plan["nodes"][3]["inputs"][0]["ship_strategy"] == "HASH"

        first = dict(
            (m["id"], float(m["value"]))
            for m in server.get(
                f"/jobs/{job}/metrics?get=numRecordsIn,running-count.numRecordsOut"
            )[1]
        )
        wait_until(
            lambda: (
                float(server.get(f"/jobs/{job}/metrics?get=numRecordsIn")[1][0]["value"])
                > first["numRecordsIn"]
            ),
            "records flowing",
        )
        checkpoints = server.get(f"/jobs/{job}/checkpoints")[1]
        assert checkpoints["counts"]["completed"] >= 2
        assert checkpoints["latest"]["completed"]["status"] == "COMPLETED"

        trigger = server.call("POST", f"/jobs/{job}/savepoints", {"cancel-job": False})
        assert trigger[0] == 202
        location = completed(server, f"/jobs/{job}/savepoints/{trigger[1]['request-id']}")
        assert os.path.exists(os.path.join(location["location"], "_metadata"))

        status, counted = server.get(f"/jobs/{job}/state/running-count/count?key=k3")
        assert status == 200 and counted["key"] == "k3" and counted["value"] >= 1
        later = server.get(f"/jobs/{job}/state/running-count/count?key=k3")[1]["value"]
        assert later >= counted["value"]  # the latest checkpointed count, never going back
        assert server.get(f"/jobs/{job}/state/running-count/count?key=k99") == (
            404,
            {"errors": ["key 'k99' has no state 'count' in 'running-count'"]},
        )
        assert server.get(f"/jobs/{job}/state/nothing/count?key=k3") == (
            404,
            {"errors": ["the job has no keyed operator 'nothing'"]},
        )
        assert server.get(f"/jobs/{job}/state/running-count/count?key=x&key_type=int") == (
            400,
            {"errors": ["key 'x' is not a int"]},
        )

        failing = server.call("POST", f"/jobs/{job}/stop", {"targetDirectory": "/proc/nope"})
        assert failing[0] == 202
        failed = completed(server, f"/jobs/{job}/savepoints/{failing[1]['request-id']}")
        assert failed == {
            "failure-cause": {
                "class": "SavepointError",
                "stack-trace": (
                    "SavepointError: cannot write a savepoint to /proc/nope: No such file or "
                    "directory; the job was left as it was"
                ),
            }
        }
        assert server.call("PATCH", f"/jobs/{job}/rescaling?parallelism=129") == (
            400,
            {
                "errors": [
                    "parallelism must be in 1..128 (the job's max parallelism: its keyed "
                    "state is split into 128 key groups), got 129"
                ]
            },
        )
        assert server.get(f"/jobs/{job}")[1]["state"] == "RUNNING"

        rescaled = server.call("PATCH", f"/jobs/{job}/rescaling?parallelism=3")
        assert rescaled[0] == 202
        completed(server, f"/jobs/{job}/rescaling/{rescaled[1]['request-id']}")
        wait_until(lambda: server.get(f"/jobs/{job}")[1]["state"] == "RUNNING", "rescaled")
        wait_until(lambda: server.get(f"/jobs/{job}")[1].get("parallelism") == 3, "at 3")

        wait_until(
            lambda: server.get(f"/jobs/{job}/metrics?get=sink-0.numRecordsIn")[1],
            "the rescaled job writing",
        )
        scrape = server.get("/metrics")[1]
        families = {f.name: f for f in text_string_to_metric_families(scrape)}
        records = families["flink_taskmanager_job_task_operator_numRecordsIn"]
        sink = [s for s in records.samples if s.labels["operator_id"] == "sink-0"]
        assert sink[0].labels["job_id"] == job and sink[0].value > 0
        # per subtask, as Flink's reporter: the rescaled job's instances 0..2
        assert {s.labels["subtask_index"] for s in sink} <= {"0", "1", "2"}
        assert len(sink) == len({s.labels["subtask_index"] for s in sink})
        assert families["flink_jobmanager_job_uptime"].samples[0].value > 0

        stop = server.call("POST", f"/jobs/{job}/stop", {"targetDirectory": str(tmp_path / "sp")})
        assert stop[0] == 202
        stopped = completed(server, f"/jobs/{job}/savepoints/{stop[1]['request-id']}")
        assert stopped["location"].startswith(str(tmp_path / "sp"))
        wait_until(lambda: server.get(f"/jobs/{job}")[1]["state"] == "FINISHED", "finished")
        # the run the server started (the rescaled one) has ended: reaped, no zombie
        server_started = json.loads((tmp_path / "home" / "jobs" / job / "job.json").read_text())[
            "pid"
        ]
        wait_until(
            lambda: (
                server_started not in zombies(server.process.pid)
                and not os.path.exists(f"/proc/{server_started}")
            ),
            "the run reaped",
            30,
        )

        assert server.call("POST", f"/jobs/{job}/stop", {}) == (
            409,
            {"errors": [f"Job {job} is FINISHED, not RUNNING"]},
        )
        assert server.call("PATCH", f"/jobs/{job}?mode=cancel") == (
            409,
            {"errors": [f"Job {job} is FINISHED, not RUNNING"]},
        )
        assert server.get(f"/jobs/{'0' * 32}") == (404, {"errors": [f"Job {'0' * 32} not found"]})
        malformed = server.call("POST", f"/jobs/{job}/stop", {"drain": "sometimes"})
        assert malformed[0] == 400 and re.match(r"body\.drain: ", malformed[1]["errors"][0])
        assert server.get("/openapi.json")[1]["info"]["title"] == "weir REST API"
    finally:
        server.stop()


def test_a_server_with_a_token_refuses_requests_without_it(environment):
    server = Server(environment, token="s3cret")
    try:
        assert server.get("/overview")[0] == 401
        assert server.get("/jobs/overview", token="wrong") == (
            401,
            {
                "errors": [
                    "Unauthorized: a valid 'Authorization: Bearer <token>' header is required"
                ]
            },
        )
        assert server.get("/jobs/overview", token="s3cret") == (200, {"jobs": []})
    finally:
        _, stderr = server.stop()
    assert "refused GET /overview from 127.0.0.1: no valid token" in stderr


def test_a_server_on_another_address_needs_a_token(environment):
    done = subprocess.run(
        [sys.executable, "-m", "weir", "server", "--host", "0.0.0.0"],
        env=environment,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.endswith(
        "the REST API bound to 0.0.0.0 needs a token: pass --token, or set WEIR_REST_TOKEN "
        "(clients then send 'Authorization: Bearer <token>')\n"
    )
