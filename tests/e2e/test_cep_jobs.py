"""CEP jobs on the engines: the examples print their alerts on the in-process executor
and on Spark; a CEP job stopped with a savepoint midway and restored at another
parallelism writes what an uninterrupted run writes."""

import os
import re
import sys

import pytest

from tests.e2e.test_savepoints import environment, order, wait_for_records
from tests.e2e.shared import read_part_files
from tests.e2e.jobs.checkpointed_cep import cep_job, expected_matches
from weir.common.job import JobStatus
from weir.datastream.connectors import FileSink

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
CEP_JOB = os.path.join(os.path.dirname(__file__), "jobs", "checkpointed_cep.py")

import fraud_detection  # noqa: E402
import overheating_alert  # noqa: E402


def printed_lines(text):
    return sorted(
        re.sub(r"^\d+> ", "", line)
        for line in text.splitlines()
        if line and not line.startswith("weir: ")
    )


def test_the_fraud_detection_example(any_env, capsys):
    any_env.set_parallelism(1)
    fraud_detection.build(any_env)
    any_env.execute("fraud detection")
    assert printed_lines(capsys.readouterr().out) == [
        "card-1: 0.99 then 640.00 after 33 s",
        "card-3: 0.10 then 900.00 after 50 s",
        "card-3: 0.20 then 900.00 after 40 s",
    ]


def test_the_overheating_example_reports_alerts_and_timed_out_runs(any_env, capsys):
    any_env.set_parallelism(2)
    overheating_alert.build(any_env)
    any_env.execute("overheating alerts")
    assert printed_lines(capsys.readouterr().out) == [
        "ALERT sensor-1: 3 readings over 100.0 in 8 s (101.0, 104.0, 107.0)",
        "ALERT sensor-3: 3 readings over 100.0 in 5 s (110.0, 111.0, 112.0)",
        "warning sensor-2: 1 reading(s) over 100.0 from 1 s, none more by 11 s",
        "warning sensor-2: 1 reading(s) over 100.0 from 12 s, none more by 22 s",
        "warning sensor-3: 1 reading(s) over 100.0 from 27 s, none more by 37 s",
    ]


# -- a CEP job across a savepoint and a SIGKILL ------------------------------------------
EVENTS, PER_BATCH, RATE = 600, 40, 200


@pytest.mark.spark
@pytest.mark.parametrize("parallelism", [1, 3])
def test_a_cep_job_restored_from_a_savepoint_at_another_parallelism(spark, tmp_path, parallelism):
    out = str(tmp_path / "out")

    def to_files(matches):
        matches.sink_to(FileSink.for_json_lines(out).build())

    first_env = environment(spark, tmp_path, "first", 2, None)
    cep_job(first_env, to_files, EVENTS, PER_BATCH, RATE)
    client = first_env.execute_async("cep")
    wait_for_records(out, 20)
    path = client.stop_with_savepoint(False, str(tmp_path / "savepoints")).result()
    assert client.wait(60) == JobStatus.FINISHED
    expected = expected_matches(EVENTS)
    assert len(read_part_files(out)) < len(expected)  # (stopped midway)
    second_env = environment(
        spark, tmp_path, "second", parallelism, {"execution.savepoint.path": path}
    )
    cep_job(second_env, to_files, EVENTS, PER_BATCH, RATE)
    second_env.execute_async("cep").get_job_execution_result()
    assert sorted(read_part_files(out), key=order) == sorted(expected, key=order)


@pytest.mark.spark
def test_a_checkpointed_cep_job_killed_mid_stream_restarts_as_if_never_killed(tmp_path):
    from tests.e2e.test_recovery import EVENTS as RECOVERY_EVENTS, kill_and_restart

    written = kill_and_restart(tmp_path, (CEP_JOB,))
    assert sorted(written, key=order) == sorted(expected_matches(RECOVERY_EVENTS), key=order)
