"""The archive of Spark's classes on real JVMs: `weir warm-up` records one, a job's JVM then
loads Spark's classes from it, and a JVM that cannot start from an archive starts without
it (each in a process of its own, with a cache directory of the test's)."""

import glob
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.spark

PROGRAM = """
from weir.datastream import StreamExecutionEnvironment
env = StreamExecutionEnvironment.get_execution_environment()
counts = env.from_collection([("a", 1), ("b", 2), ("a", 3)]).key_by(lambda r: r[0]) \\
    .reduce(lambda x, y: (x[0], x[1] + y[1]))
print(sorted(counts.execute_and_collect("archive")))
"""
EXPECTED = "[('a', 1), ('a', 4), ('b', 2)]\n"


def _run(args, cache, cwd, **extra):
    env = {**os.environ, "WEIR_CACHE_DIR": str(cache)}
    env.pop("WEIR_CLASS_ARCHIVE", None)  # (the tests' `use`: here weir records)
    env.update(extra)
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def _archives(cache):
    return glob.glob(os.path.join(cache, "class-archives", "*"))


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A cache directory in which `weir warm-up` recorded an archive, and what it said."""
    cache = tmp_path_factory.mktemp("recorded") / "cache"
    done = _run(["-m", "weir", "warm-up"], cache, cache.parent)
    assert done.returncode == 0, done.stderr
    return cache, done.stderr


def test_warm_up_records_an_archive_that_a_job_then_starts_from(recorded, tmp_path):
    cache, said = recorded
    (archive,) = _archives(cache)  # (nothing else left: no marker, no partial archive)
    assert archive.endswith(".jsa") and os.path.getsize(archive) > 10_000_000
    assert "weir: recording Spark's classes in " + archive in said
    again = _run(["-m", "weir", "warm-up"], cache, tmp_path)
    assert again.stderr == f"weir: Spark's class archive is ready: {archive}\n"

    (tmp_path / "job.py").write_text(PROGRAM)
    loads = tmp_path / "loads"
    job = _run(
        ["job.py"],
        cache,
        tmp_path,
        JAVA_TOOL_OPTIONS=(f"-Xlog:class+load=info:file={loads}-%p.txt"),
    )
    assert job.returncode == 0, job.stderr
    assert job.stdout == EXPECTED
    # Spark's classes came from the archive (its "top" layer, above the JDK's own)
    logs = "".join(open(path).read() for path in glob.glob(f"{loads}-*.txt"))
    assert (
        "org.apache.spark.sql.execution.streaming.runtime.MicroBatchExecution "
        "source: shared objects file (top)"
    ) in logs


def test_a_jvm_that_cannot_start_from_its_archive_starts_without_it(recorded, tmp_path):
    cache = recorded[0]
    (archive,) = _archives(cache)
    # the archive cut short: HotSpot maps its first part, misses the rest and crashes
    os.chmod(archive, 0o644)
    os.truncate(archive, os.path.getsize(archive) // 4)
    (tmp_path / "job.py").write_text(PROGRAM)
    job = _run(["job.py"], cache, tmp_path, WEIR_CLASS_ARCHIVE="use")
    assert job.returncode == 0, job.stderr
    assert job.stdout == EXPECTED
    assert _archives(cache) == []  # removed, and (`use`) none recorded
    assert glob.glob(str(tmp_path / "hs_err_pid*")) == []  # no crash report left here
