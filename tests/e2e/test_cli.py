"""The `weir` command as a user types it, against real detached job processes: run -d,
list, savepoint, info, modify -p (rescale), stop, run -s; cancel; a job whose process died
shows as FAILED. The output of the job stopped, rescaled and restored equals an
uninterrupted run's."""

import json
import os
import re
import signal
import subprocess
import sys

import pytest

from tests.e2e.shared import read_part_files, wait_until
from weir.runtime.key_groups import assign_to_key_group

pytestmark = pytest.mark.spark

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
JOB = os.path.join(ROOT, "tests", "e2e", "jobs", "cli_counts.py")
EVENTS, RATE = 2500, 40


def expected_records():
    counts, records = {}, []
    for index in range(EVENTS):
        key = f"k{index % 7}"
        counts[key] = counts.get(key, 0) + 1
        records.append({"key": key, "ts": index * 10, "count": counts[key]})
    return records + [{"key": k, "ts": 10**12, "final": n} for k, n in counts.items()]


@pytest.fixture
def weir(tmp_path):
    environment = dict(
        os.environ,
        WEIR_HOME=str(tmp_path / "home"),
        PYTHONPATH=ROOT,
        PYSPARK_PYTHON=sys.executable,
        PYSPARK_DRIVER_PYTHON=sys.executable,
    )

    def command(*args, check=True):
        done = subprocess.run(
            [sys.executable, "-m", "weir", *args],
            env=environment,
            capture_output=True,
            text=True,
            timeout=600,
        )
        if check:
            assert done.returncode == 0, done.stdout + done.stderr
        return done

    return command


def submitted(output: str) -> str:
    match = re.fullmatch(r"Job has been submitted with JobID ([0-9a-f]{32})\n", output)
    assert match, output
    return match.group(1)


def job_lines(weir, *flags):
    return [line for line in weir("list", *flags).stdout.splitlines() if " : " in line]


def running(weir, job_id):
    return any(line.endswith(f"{job_id} : cli counts (RUNNING)") for line in job_lines(weir, "-r"))


def savepoint_path(output: str) -> str:
    match = re.search(r"Savepoint completed\. Path: file:(\S+)\n", output)
    assert match, output
    return match.group(1)


def test_run_detached_list_savepoint_rescale_stop_and_restore(weir, tmp_path):
    out = str(tmp_path / "out")
    job_id = submitted(weir("run", "-d", "-p", "2", JOB, out, str(EVENTS), str(RATE)).stdout)
    wait_until(
        lambda: (
            running(weir, job_id) and len(read_part_files(out)) >= 50
            if os.path.isdir(out)
            else False
        ),
        "running with output",
    )

    taken = weir("savepoint", job_id).stdout
    assert taken.startswith(f"Triggering savepoint for job {job_id}.\nWaiting for response...\n")
    assert taken.endswith("You can resume your program from this savepoint with the run command.\n")
    described = json.loads(weir("info", "file:" + savepoint_path(taken)).stdout)
    assert described["job_id"] == job_id and described["parallelism"] == 2
    assert described["operators"]["running-count"]["state"] == ["keyed"]
    assert described["operators"]["running-count"]["keyed_states"] == {
        "count": "value state of pickled"
    }
    assert described["operators"]["running-count"]["key_groups"] == len(
        {assign_to_key_group(f"k{i}", 128) for i in range(7)}
    )
    assert set(described["sources"]) == {"events"}

    # Refused or failed operations leave the job running with its state (its output at the
    # end is an uninterrupted run's): a stop or savepoint to a directory it cannot write,
    # a parallelism beyond the max parallelism
    for refused in (
        weir("stop", job_id, "-p", "/proc/nope", check=False),
        weir("savepoint", job_id, "/proc/nope", check=False),
    ):
        assert refused.returncode == 1
        assert refused.stderr.endswith(
            f"job {job_id}: SavepointError: cannot write a savepoint to /proc/nope: No such "
            "file or directory; the job was left as it was\n"
        )
    too_many = weir("modify", job_id, "-p", "1000", check=False)
    assert too_many.returncode == 1 and too_many.stdout == ""
    assert too_many.stderr.endswith(
        "parallelism must be in 1..128 (the job's max "
        "parallelism: its keyed state is split into 128 key "
        "groups), got 1000\n"
    )
    assert running(weir, job_id)
    before = len(read_part_files(out))
    wait_until(lambda: len(read_part_files(out)) > before, "writing after the refusals")

    assert weir("modify", job_id, "-p", "3").stdout.endswith(
        f"Rescaled job {job_id}. Its new parallelism is 3.\n"
    )
    wait_until(lambda: running(weir, job_id), "running again")
    before = len(read_part_files(out))
    wait_until(lambda: len(read_part_files(out)) > before, "writing after the rescale")

    stopped = weir("stop", job_id).stdout
    assert stopped.startswith(f'Suspending job "{job_id}" with a CANONICAL savepoint.\n')
    path = savepoint_path(stopped)
    assert json.loads(weir("info", path).stdout)["parallelism"] == 3
    assert any(line.endswith(f"{job_id} : cli counts (FINISHED)") for line in job_lines(weir, "-a"))
    assert len(read_part_files(out)) < EVENTS  # stopped before its end

    restored = submitted(weir("run", "-d", "-s", path, JOB, out, str(EVENTS), "400").stdout)
    wait_until(
        lambda: any(
            line.endswith(f"{restored} : cli counts (FINISHED)") for line in job_lines(weir, "-a")
        ),
        "finished",
    )
    order = lambda r: json.dumps(r, sort_keys=True)  # noqa: E731
    assert sorted(read_part_files(out), key=order) == sorted(expected_records(), key=order)


def test_cancel_and_a_dead_process(weir, tmp_path):
    first = submitted(weir("run", "-d", JOB, str(tmp_path / "a"), "100000", "20").stdout)
    second = submitted(weir("run", "-d", JOB, str(tmp_path / "b"), "100000", "20").stdout)
    wait_until(lambda: running(weir, first) and running(weir, second), "both running")
    assert weir("cancel", first).stdout == f"Cancelling job {first}.\nCancelled job {first}.\n"
    home = tmp_path / "home" / "jobs" / second / "job.json"
    os.killpg(json.loads(home.read_text())["pid"], signal.SIGKILL)
    wait_until(lambda: not running(weir, second), "the killed job not running")
    lines = job_lines(weir, "-a")
    assert any(line.endswith(f"{first} : cli counts (CANCELED)") for line in lines)
    assert any(line.endswith(f"{second} : cli counts (FAILED)") for line in lines)
    refused = weir("cancel", second, check=False)
    assert refused.returncode == 1
    assert refused.stderr.endswith(f"Job {second} is FAILED, not RUNNING\n")
    unknown = weir("stop", "0" * 32, check=False)
    assert unknown.returncode == 1 and unknown.stderr.endswith(f"Job {'0' * 32} not found\n")
