"""A file sink on a Spark cluster of 2 executor processes (`local-cluster`): both write,
and the driver's memory does not grow with the output (its records never reach it)."""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
JOB = os.path.join(ROOT, "tests", "e2e", "jobs", "cluster_file_sink.py")


def run_jobs(output: str, *counts: int) -> dict:
    env = dict(
        os.environ,
        PYTHONPATH=ROOT,
        PYSPARK_PYTHON=sys.executable,
        PYSPARK_DRIVER_PYTHON=sys.executable,
    )
    run = subprocess.run(
        [sys.executable, JOB, output, *map(str, counts)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    return json.loads(run.stdout.strip().splitlines()[-1])


def read_buckets(output: str) -> dict:
    """{bucket: [records]} of the finished part files."""
    buckets = {}
    for bucket in sorted(os.listdir(output)):
        records = buckets[bucket] = []
        for name in sorted(os.listdir(os.path.join(output, bucket))):
            assert name.startswith("part-"), name  # nothing left in progress
            with open(os.path.join(output, bucket, name)) as part:
                records += [json.loads(line) for line in part]
    return buckets


def test_two_executors_write_and_the_driver_holds_no_output(tmp_path):
    run = run_jobs(str(tmp_path), 2_000, 20_000)
    buckets = read_buckets(str(tmp_path / "20000"))
    assert len(buckets) == 2 and f"pid={run['driver_pid']}" not in buckets
    assert all(len(records) > 0 for records in buckets.values())
    written = sorted(r["i"] for records in buckets.values() for r in records)
    assert written == list(range(20_000))  # each record once
    output_mib = (
        sum(
            os.path.getsize(os.path.join(d, n))
            for d, _, names in os.walk(tmp_path / "20000")
            for n in names
        )
        / 2**20
    )
    assert output_mib > 25
    # a job with 10x the output (~25 MiB more, several times that as Python objects) after
    # the small one on the same session moves the driver's peak by no more than noise
    small, large = run["driver_peak_mib"]
    assert large - small < 8, run
