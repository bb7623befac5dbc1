"""Operations that must refuse before they act (no Spark): dispose removes only a savepoint
whose manifest validates, and only its files; a parallelism outside 1..max parallelism is
refused by the REST API, `weir modify` and `weir run -s` with the job untouched; the REST
API's routing errors and bad parameters answer in Flink's shape; a server cannot say it
serves on a port in use; a JSON-lines file with a byte that is not UTF-8 fails only its
line (a dead letter naming file and line, or an error naming them)."""

import json
import os
import shutil
import socket
import subprocess
import sys
import time

import pytest
from fastapi.testclient import TestClient

from tests.unit.test_rest_dashboard import SNAPSHOT
from weir.jobs.directory import JobRecord
from weir.jobs.lifecycle import InvalidParallelism, check_parallelism, rescale
from weir.rest.app import create_app
from weir.runtime.sources import DeadLetter, read_file
from weir.runtime.state.savepoint import SavepointError, dispose_savepoint, load_savepoint

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SAVEPOINT = os.path.join(ROOT, "tests", "data", "savepoint-v1")


def tree(path) -> dict:
    """{relative file path: bytes} of everything under `path`."""
    found = {}
    for directory, _, names in os.walk(path):
        for name in names:
            with open(os.path.join(directory, name), "rb") as handle:
                found[os.path.relpath(os.path.join(directory, name), path)] = handle.read()
    return found


def test_dispose_refuses_a_directory_whose_metadata_is_no_weir_manifest(tmp_path):
    victim = tmp_path / "data"
    (victim / "sub").mkdir(parents=True)
    (victim / "_metadata").write_text("{}")
    (victim / "sub" / "important.csv").write_text("a,b\n1,2\n")
    before = tree(victim)
    with pytest.raises(SavepointError) as refused:
        dispose_savepoint(str(victim))
    assert str(refused.value) == (
        f"savepoint {victim}: its _metadata file is not a weir "
        "savepoint's manifest; nothing was removed"
    )
    assert tree(victim) == before


def test_dispose_refuses_a_manifest_naming_files_outside_its_directory(tmp_path):
    copy = tmp_path / "savepoint"
    shutil.copytree(SAVEPOINT, copy)
    outside = tmp_path / "precious.parquet"
    shutil.copy(copy / "keyed-0.parquet", outside)
    manifest = json.loads((copy / "_metadata").read_text())
    manifest["files"]["../precious.parquet"] = manifest["files"]["keyed-0.parquet"]
    (copy / "_metadata").write_text(json.dumps(manifest))
    with pytest.raises(SavepointError, match="each a plain file name"):
        dispose_savepoint(str(copy))
    assert outside.exists() and (copy / "keyed-0.parquet").exists()


def test_dispose_refuses_a_savepoint_with_a_corrupt_file(tmp_path):
    copy = tmp_path / "savepoint"
    shutil.copytree(SAVEPOINT, copy)
    with open(copy / "keyed-0.parquet", "ab") as handle:
        handle.write(b"x")
    with pytest.raises(SavepointError, match="is corrupt.*nothing was removed"):
        dispose_savepoint(str(copy))
    assert sorted(os.listdir(copy)) == ["_metadata", "keyed-0.parquet"]


def test_dispose_removes_the_listed_files_and_keeps_what_is_not_the_savepoints(tmp_path):
    copy = tmp_path / "savepoint"
    shutil.copytree(SAVEPOINT, copy)
    (copy / "notes.txt").write_text("mine")
    dispose_savepoint(str(copy))
    assert os.listdir(copy) == ["notes.txt"]
    shutil.copytree(SAVEPOINT, tmp_path / "whole")
    dispose_savepoint(str(tmp_path / "whole"))
    assert not (tmp_path / "whole").exists()


def test_info_on_a_plain_file_says_it_is_a_file(tmp_path):
    plain = tmp_path / "file.txt"
    plain.write_text("x")
    with pytest.raises(SavepointError) as refused:
        load_savepoint(str(plain))
    assert str(refused.value) == (
        f"savepoint {plain} is a file: a savepoint is a directory "
        "(the one holding its _metadata file)"
    )


@pytest.mark.parametrize(
    "parallelism, why",
    [
        (
            0,
            "parallelism must be in 1..4 (the job's max parallelism: its keyed state is split "
            "into 4 key groups), got 0",
        ),
        (
            5,
            "parallelism must be in 1..4 (the job's max parallelism: its keyed state is split "
            "into 4 key groups), got 5",
        ),
        (2.0, "parallelism must be an integer, got 2.0"),
        (True, "parallelism must be an integer, got True"),
    ],
)
def test_a_parallelism_outside_one_to_the_max_parallelism_is_refused(parallelism, why):
    with pytest.raises(InvalidParallelism) as refused:
        check_parallelism(parallelism, 4)
    assert str(refused.value) == why
    assert check_parallelism(4, 4) == 4


@pytest.fixture
def job(tmp_path, monkeypatch):
    """A RUNNING job of max parallelism 4, as its process reports it (no process)."""
    monkeypatch.setenv("WEIR_HOME", str(tmp_path / "home"))
    record = JobRecord.create("counts.py", "counts.py", [], parallelism=2)
    record.write(status="RUNNING", started=1_700_000_000_000)
    record.write_snapshot(SNAPSHOT)
    return record


def untouched(record: JobRecord) -> bool:
    """Nothing was asked of the job, and it is as it was."""
    info = record.read()
    return (
        os.listdir(os.path.join(record.directory, "control")) == []
        and info["status"] == "RUNNING"
        and info["parallelism"] == 2
    )


def test_rescaling_beyond_the_max_parallelism_is_refused_before_the_job_is_touched(job):
    with pytest.raises(InvalidParallelism, match="got 99999999999999999999999"):
        rescale(job, 99999999999999999999999)
    client = TestClient(create_app())
    for value in ("5", "99999999999999999999999", "0"):
        answer = client.patch(f"/jobs/{job.job_id}/rescaling?parallelism={value}")
        assert answer.status_code == 400
        assert answer.json() == {
            "errors": [
                "parallelism must be in 1..4 (the job's max parallelism: its keyed state is "
                f"split into 4 key groups), got {value}"
            ]
        }
    answer = client.patch(f"/jobs/{job.job_id}/rescaling?parallelism=1.5")
    assert answer.status_code == 400
    assert answer.json()["errors"][0].startswith("query.parallelism: ")
    assert untouched(job)


def weir_command(tmp_path, *args):
    environment = dict(os.environ, WEIR_HOME=str(tmp_path / "home"), PYTHONPATH=ROOT)
    return subprocess.run(
        [sys.executable, "-m", "weir", *args],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_modify_and_run_from_a_savepoint_refuse_a_parallelism_beyond_the_max(job, tmp_path):
    done = weir_command(tmp_path, "modify", job.job_id, "-p", "1000")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.endswith(
        "parallelism must be in 1..4 (the job's max parallelism: its "
        "keyed state is split into 4 key groups), got 1000\n"
    )
    assert untouched(job)
    program = tmp_path / "job.py"
    program.write_text("print('ran')\n")
    max_parallelism = load_savepoint(SAVEPOINT).max_parallelism
    done = weir_command(
        tmp_path, "run", "-p", str(max_parallelism + 1), "-s", SAVEPOINT, str(program)
    )
    assert done.returncode == 1 and "ran" not in done.stdout
    assert done.stderr.endswith(f"got {max_parallelism + 1}\n")
    assert [r.job_id for r in JobRecord.all()] == [job.job_id]  # no job was created


def test_routing_errors_and_bad_parameters_answer_in_flinks_shape(job):
    client = TestClient(create_app())
    assert (client.get("/no/such/path").status_code, client.get("/no/such/path").json()) == (
        404,
        {"errors": ["Not found: /no/such/path"]},
    )
    wrong = client.delete(f"/jobs/{job.job_id}/stop")
    assert (wrong.status_code, wrong.json()) == (
        405,
        {"errors": [f"Method DELETE is not allowed on /jobs/{job.job_id}/stop"]},
    )
    bad = client.get(f"/jobs/{job.job_id}/batches?limit=abc")
    assert bad.status_code == 400 and bad.json()["errors"][0].startswith("query.limit: ")
    assert client.get(f"/jobs/{job.job_id}/batches?limit=0").status_code == 400
    last = client.get(f"/jobs/{job.job_id}/batches?limit=1").json()["batches"]
    assert [b["id"] for b in last] == [1]
    every = client.get(f"/jobs/{job.job_id}/batches").json()["batches"]
    assert [b["id"] for b in every] == [0, 1]


def test_a_server_on_a_port_in_use_refuses_before_saying_it_serves(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = weir_command(tmp_path, "server", "--port", str(port))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.endswith(
        f"cannot serve on 127.0.0.1:{port}: Address already in use (is another `weir "
        "server` or dashboard running there? pass --port)\n"
    )


def test_a_line_that_is_not_utf8_is_a_dead_letter_naming_file_and_line(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_bytes(b'{"a": 1}\n{"a": "caf\xe9"}\n\n{"a": 3}\n[4]\n')
    values = list(read_file(str(path), "json", dead_letters=True))
    assert [dict(v.as_dict()) for v in values if not isinstance(v, DeadLetter)] == [
        {"a": 1},
        {"a": 3},
    ]
    letters = [(d.position, d.reason, d.record) for d in values if isinstance(d, DeadLetter)]
    assert letters == [
        (f"{path}:2", "not UTF-8: byte 0xe9 at column 11", b'{"a": "caf\xe9"}\n'),
        (f"{path}:5", "not a JSON object: a JSON list", b"[4]\n"),
    ]


@pytest.mark.parametrize(
    "fmt, content, line",
    [
        ("json", b'{"a": 1}\n{"a": 2}\n{"a": "\xff"}\n', 3),
        ("text", b"one\ntwo\xc3\n", 2),
        ("csv", b"a,b\n1,2\n3,\xfe\n", 3),
    ],
)
def test_without_a_dead_letter_output_the_error_names_file_and_line(tmp_path, fmt, content, line):
    path = tmp_path / f"input.{fmt}"
    path.write_bytes(content)
    with pytest.raises(ValueError) as failed:
        list(read_file(str(path), fmt))
    assert str(failed.value).startswith(f"{path}:{line}: not UTF-8: byte 0x")


@pytest.mark.parametrize(
    "restarts, why",
    [
        ([None], None),
        (
            ["it ended FAILED: boom", None],
            "could not run at parallelism 3 (it ended FAILED: boom); it runs again at its old "
            "parallelism from savepoint /sp/savepoint-1",
        ),
        (
            ["it ended FAILED: boom", "it ended FAILED: again"],
            "could not run at parallelism 3 (it ended FAILED: boom) nor again at its old "
            "parallelism (it ended FAILED: again); its state is in savepoint /sp/savepoint-1: "
            "`weir run -s /sp/savepoint-1` restores it",
        ),
    ],
)
def test_a_rescale_whose_restart_fails_goes_back_to_the_old_parallelism(
    job, monkeypatch, restarts, why
):
    import weir.jobs.lifecycle as lifecycle

    tried = []

    def restart(record, parallelism, savepoint):
        tried.append((parallelism, savepoint))
        return restarts[len(tried) - 1]

    monkeypatch.setattr(
        lifecycle,
        "answered",
        lambda record, action, **_: {"path": "/sp/savepoint-1"} if action == "stop" else None,
    )
    monkeypatch.setattr(lifecycle, "await_end", lambda record: None)
    monkeypatch.setattr(lifecycle, "_restart", restart)
    if why is None:
        assert rescale(job, 3) == "/sp/savepoint-1"
    else:
        with pytest.raises(lifecycle.LifecycleError) as failed:
            rescale(job, 3)
        assert str(failed.value) == f"Job {job.job_id} {why}"
    assert tried == [(3, "/sp/savepoint-1"), (2, "/sp/savepoint-1")][: len(restarts)]


def test_cancel_of_a_job_not_running_yet_ends_its_process(tmp_path):
    """A CREATED job (its program has not submitted it yet: here one that sleeps first)
    is cancelled as Flink cancels one: its process ends and it reads CANCELED."""
    program = tmp_path / "slow.py"
    program.write_text("import time\ntime.sleep(120)\n")
    done = weir_command(tmp_path, "run", "-d", str(program))
    job_id = done.stdout.split()[-1]
    record_path = tmp_path / "home" / "jobs" / job_id / "job.json"
    deadline = time.time() + 30
    while not json.loads(record_path.read_text()).get("started"):
        assert time.time() < deadline, "the job's process did not start"
        time.sleep(0.1)
    pid = json.loads(record_path.read_text())["pid"]
    cancelled = weir_command(tmp_path, "cancel", job_id)
    assert cancelled.returncode == 0, cancelled.stderr
    assert cancelled.stdout == f"Cancelling job {job_id}.\nCancelled job {job_id}.\n"
    assert json.loads(record_path.read_text())["status"] == "CANCELED"
    assert (
        not os.path.exists(f"/proc/{pid}")
        or open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] == "Z"
    )
    again = weir_command(tmp_path, "cancel", job_id)
    assert again.returncode == 1 and again.stdout == ""
    assert again.stderr.endswith(f"Job {job_id} is CANCELED, not RUNNING\n")
