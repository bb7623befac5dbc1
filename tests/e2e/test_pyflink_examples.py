"""PyFlink's shipped examples, with only their imports changed, print and write what
PyFlink 2.3 printed and wrote for them (tests/pyflink_examples).

PyFlink ran at this machine's default parallelism (2) and prefixed some lines with the
subtask (`1> `), where weir's default parallelism is 1: tests/flink_output.py strips it.

Two examples run as a user runs them, in a fresh process that starts its own Spark: their
whole standard output is compared, so no line of Spark's or py4j's may reach it. The others
run in this process on the tests' shared Spark session (a fresh Spark costs ~20 s each).
"""

import glob
import json
import os
import re
import signal
import subprocess
import sys
import threading

import pytest

from tests.flink_output import assert_same_records, lines_of

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "pyflink_examples")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WINDOWING = [
    "session_with_dynamic_gap_window",
    "session_with_gap_window",
    "sliding_time_window",
    "tumbling_count_window",
    "tumbling_time_window",
]


def _expected(name, kind="out"):
    with open(os.path.join(EXAMPLES, f"{name}.flink.{kind}")) as expected:
        return lines_of(expected.read())


SUMMARY = (
    r"weir: job 'weir job' finished in \d+\.\d s: (?:1 micro-batch|one Spark batch "
    r"job), (\d+) records read, (\d+) written"
)


@pytest.mark.parametrize(
    "name, counts",
    [
        ("basic_operations", [("4", "4"), ("4", "1"), ("4", "4")]),  # three jobs
        ("word_count", [("35", "183")]),
    ],
)
def test_example_in_a_fresh_process_prints_what_pyflink_prints(name, counts):
    """Standard output holds the job's records only; stderr one summary line per job."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    run = subprocess.run(
        [sys.executable, os.path.join(EXAMPLES, f"{name}.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    assert_same_records(lines_of(run.stdout), _expected(name))
    summaries = [re.fullmatch(SUMMARY, line) for line in run.stderr.splitlines()]
    assert all(summaries), run.stderr
    assert [m.groups() for m in summaries] == counts


@pytest.fixture
def run_example(run_program):
    return lambda name, *args: run_program(os.path.join(EXAMPLES, f"{name}.py"), *args)


@pytest.mark.parametrize(
    "name", ["state_access", "process_json_data", "event_time_timer"] + WINDOWING
)
def test_example_prints_what_pyflink_prints(run_example, name):
    assert_same_records(lines_of(run_example(name)), _expected(name))


def _written(base_path):
    """The lines of every part file under `base_path` (hidden in-progress files aside)."""
    lines = []
    for path in sorted(glob.glob(os.path.join(base_path, "**", "*"), recursive=True)):
        if os.path.isfile(path):
            assert re.fullmatch(r"prefix-.*\.ext", os.path.basename(path)), path
            with open(path) as part:
                lines += lines_of(part.read())
    return lines


@pytest.mark.parametrize("name", WINDOWING + ["word_count"])
def test_example_writes_what_pyflink_writes(run_example, tmp_path, name):
    args = ["--output", str(tmp_path / "out")]
    if name == "word_count":
        args = ["--input", os.path.join(EXAMPLES, "word_count.input.txt")] + args
    assert run_example(name, *args) == ""
    assert_same_records(_written(tmp_path / "out"), _expected(name, "files.out"))


def test_remote_model_inference_answers_each_generated_row_once():
    """The async I/O example (unbounded random input, random latency, failures and
    retries) prints well-formed answers, each to a distinct generated row; it runs until
    it has printed 30 of them."""
    env = dict(os.environ, PYTHONPATH=ROOT)
    job = subprocess.Popen(
        [sys.executable, os.path.join(EXAMPLES, "remote_model_inference.py")],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    stuck = threading.Timer(300, os.killpg, (job.pid, signal.SIGKILL))  # never hang CI
    stuck.start()
    try:
        lines = [job.stdout.readline() for _ in range(31)]
    finally:
        stuck.cancel()
        os.killpg(job.pid, signal.SIGKILL)
        job.wait()
    assert lines[0] == "Printing result to stdout. Use --output to specify output path.\n", (
        job.stderr.read()[-3000:]
    )
    answers = [json.loads(line) for line in lines[1:]]
    assert all(set(a) == {"user_id", "comments", "analysis_result"} for a in answers)
    assert all(a["analysis_result"] == "positive" for a in answers)
    assert all(-(2**31) <= a["user_id"] < 2**31 for a in answers)
    assert all(re.fullmatch("[0-9a-f]{100}", a["comments"]) for a in answers)
    assert len({(a["user_id"], a["comments"]) for a in answers}) == len(answers)
