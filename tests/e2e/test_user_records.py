"""Programs as people write them: records that are instances of the job script's own
classes (or of classes defined in a function), on Spark and on the local executor, through
keyed state, savepoints and a restore at another parallelism; print() in a user function
on the job's standard output; a record nothing can serialize failing the job with one
error that names the operator, the record's type and why."""

import dataclasses
import os
import threading

import pytest

from tests.e2e.test_savepoints import expected_records, order, wait_for_records
from tests.e2e.jobs.checkpointed_counts import event
from tests.e2e.shared import read_part_files
from tests.flink_output import assert_same_records, lines_of
from weir.common import Duration, WatermarkStrategy
from weir.common.job import JobExecutionError, JobStatus
from weir.datastream import KeyedProcessFunction
from weir.datastream.connectors import DataGeneratorSource, FileSink
from weir.datastream.state import ValueStateDescriptor
from tests.e2e.test_savepoints import environment

pytestmark = pytest.mark.spark

JOBS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jobs")
PROGRAM = os.path.join(JOBS, "user_class_records.py")


def check_against_flink(out: str) -> None:
    """What the timestamp assigner printed first, in order; then the records."""
    with open(os.path.join(JOBS, "user_class_records.flink.out"), encoding="utf-8") as handle:
        flink = lines_of(handle.read())
    weir = lines_of(out)
    printed = [line for line in flink if line.startswith("stamping ")]
    assert weir[: len(printed)] == printed
    assert_same_records(weir[len(printed) :], flink[len(printed) :])


def test_records_of_the_scripts_own_class_and_its_prints_on_spark(run_program):
    check_against_flink(run_program(PROGRAM))


def test_records_of_the_scripts_own_class_and_its_prints_on_the_local_executor(run_program_locally):
    check_against_flink(run_program_locally(PROGRAM))


def tally_counter():
    """A running count kept as an instance of a class defined here, in a function (no
    worker can import it by name): it must travel by value into state and savepoints."""

    @dataclasses.dataclass
    class Tally:
        count: int = 0
        last: object = None

    @dataclasses.dataclass
    class Reading:
        key: str
        ts: int

    class TallyCount(KeyedProcessFunction):
        def open(self, runtime_context):
            self.tally = runtime_context.get_state(ValueStateDescriptor("tally"))

        def process_element(self, value, ctx):
            # the classes the records and the state come back as are the function's own
            assert isinstance(value, Reading), (type(value), Reading)
            assert self.tally.value() is None or isinstance(self.tally.value(), Tally)
            tally = self.tally.value() or Tally()
            tally = Tally(tally.count + 1, value)
            self.tally.update(tally)
            if tally.count == 1:
                ctx.timer_service().register_event_time_timer(10**12)
            yield {"key": value.key, "ts": value.ts, "count": tally.count}

        def on_timer(self, timestamp, ctx):
            yield {"key": ctx.get_current_key(), "ts": timestamp, "final": self.tally.value().count}

    return TallyCount, Reading


# The classes once, as a program defines them once (a class defined again is another class,
# and state restored from a savepoint holds instances of the class it was written with)
TALLIES = tally_counter()


def start_tallies(spark, tmp_path, run, parallelism, settings=None, rate=200.0):
    counter, reading = TALLIES
    env = environment(spark, tmp_path, run, parallelism, settings)
    source = DataGeneratorSource(
        event, count=600, records_per_second=rate, max_records_per_batch=40
    )
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_millis(0)
    ).with_timestamp_assigner(lambda e, ts: e.ts)
    stream = env.from_source(source, WatermarkStrategy.no_watermarks(), "events").uid("events")
    stream.map(lambda e: reading(*e)).assign_timestamps_and_watermarks(strategy).key_by(
        lambda r: r.key
    ).process(counter()).uid("tallies").sink_to(
        FileSink.for_json_lines(str(tmp_path / "out")).build()
    )
    return env.execute_async("tallies")


def test_keyed_state_of_a_functions_own_classes_restores_at_another_parallelism(spark, tmp_path):
    client = start_tallies(spark, tmp_path, "first", 2)
    wait_for_records(str(tmp_path / "out"), 100)
    path = client.stop_with_savepoint(False, str(tmp_path / "savepoints")).result()
    assert client.wait(60) == JobStatus.FINISHED
    assert 100 <= len(read_part_files(str(tmp_path / "out"))) < 600
    start_tallies(
        spark, tmp_path, "second", 3, {"execution.savepoint.path": path}
    ).get_job_execution_result()
    assert sorted(read_part_files(str(tmp_path / "out")), key=order) == sorted(
        expected_records(), key=order
    )


def test_a_record_nothing_can_serialize_fails_the_job_with_one_error(spark_env):
    spark_env.from_collection([1, 2]).map(lambda v: (v, threading.Lock())).key_by(
        lambda pair: pair[0]
    ).map(lambda pair: pair[0]).uid("after-lock").print()
    with pytest.raises(JobExecutionError) as failed:
        spark_env.execute("locks")
    assert str(failed.value) == (
        "job 'locks' failed: records for operator 'after-lock' cannot be serialized (record "
        "types: builtins.tuple): TypeError: cannot pickle '_thread.lock' object"
    )


def test_a_module_added_with_add_python_file_is_imported_in_sparks_workers(run_program, tmp_path):
    """The function imports the module only when it runs (in a worker): only the file
    Spark shipped with addPyFile can give it there."""
    package = tmp_path / "deps" / "shipped_helpers_for_weir"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("def shout(word):\n    return word.upper() + '!'\n")
    program = tmp_path / "job.py"
    program.write_text(
        "from weir.datastream import StreamExecutionEnvironment\n"
        "def shout(word):\n"
        "    from shipped_helpers_for_weir import shout as helper\n"
        "    return helper(word)\n"
        "env = StreamExecutionEnvironment.get_execution_environment()\n"
        f"env.add_python_file({str(package)!r})\n"
        "env.from_collection(['a', 'b']).map(shout).print()\n"
        "env.execute('shipped')\n"
    )
    assert sorted(lines_of(run_program(str(program)))) == ["A!", "B!"]


def test_workers_whose_interpreter_lacks_weir_fail_the_job_with_one_line(tmp_path):
    """PYSPARK_PYTHON set globally (as on many Spark installations) to an interpreter
    without weir: one error naming it and what it lacks, not a Spark trace."""
    import subprocess
    import sys

    bare = tmp_path / "bare-python"
    base = os.path.join(sys.base_prefix, "bin", "python3")
    bare.write_text(f'#!/bin/sh\nexec {base} -S "$@"\n')
    bare.chmod(0o755)
    environment = dict(os.environ, PYSPARK_PYTHON=str(bare))
    environment.pop("PYTHONPATH", None)  # (weir is installed in the driver's interpreter)
    done = subprocess.run(
        [sys.executable, PROGRAM], env=environment, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.endswith(
        f"weir.common.job.JobExecutionError: job 'readings' failed: Spark's Python workers "
        f"run {bare} (PYSPARK_PYTHON), which cannot import weir, pyspark, pyarrow, pandas, "
        f"cloudpickle: set PYSPARK_PYTHON to an interpreter with weir installed (this job's "
        f"driver runs {sys.executable})\n"
    )
    assert "Traceback" in done.stderr and "py4j" not in done.stderr.split("Traceback")[1]


def test_a_failure_inside_weir_is_one_line_naming_the_operator(spark_env):
    from weir.common import Encoder

    spark_env.from_collection(["a", "b"]).sink_to(
        FileSink.for_row_format("/proc/nope/out", Encoder.simple_string_encoder()).build()
    )
    with pytest.raises(JobExecutionError) as failed:
        spark_env.execute("unwritable")
    assert str(failed.value) == (
        "job 'unwritable' failed: sink 'sink-0' failed: "
        "FileNotFoundError: [Errno 2] No such file or directory: "
        "'/proc/nope'"
    )


def test_prints_of_a_batch_mode_job_reach_standard_output(run_program, tmp_path):
    program = tmp_path / "batch_prints.py"
    program.write_text(
        (
            "from weir.datastream import StreamExecutionEnvironment, RuntimeExecutionMode\n"
            "env = StreamExecutionEnvironment.get_execution_environment()\n"
            "env.set_runtime_mode(RuntimeExecutionMode.BATCH)\n"
            "def shout(v):\n"
            "    print(f'saw {v}')\n"
            "    return v\n"
            "env.from_collection([1, 2, 3]).map(shout).key_by(lambda v: v % 2)"
            ".reduce(lambda a, b: a + b).map(shout).print()\n"
            "env.execute('batch prints')\n"
        )
    )
    printed = lines_of(run_program(str(program)))
    assert printed[:3] == ["saw 1", "saw 2", "saw 3"]  # the source task's, first
    assert sorted(printed[3:]) == ["2", "4", "saw 2", "saw 4"]
