"""Files in and out, print, job clients and spark-submit, on real local Spark."""

import glob
import os
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from weir.common import Duration, Row, Types
from weir.datastream.connectors import DataGeneratorSource, FileSink, FileSource
from weir.common.job import JobStatus
from tests.e2e.shared import wait_until

pytestmark = pytest.mark.spark
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_parquet_files_in_keyed_sum_parquet_files_out(spark_env, tmp_path):
    source_dir, sink_dir = tmp_path / "in", tmp_path / "out"
    source_dir.mkdir()
    pq.write_table(
        pa.table({"id": ["s1", "s2", "s1"], "reading": [1.5, 2.0, 3.0]}), source_dir / "a.parquet"
    )
    env = spark_env
    row_type = Types.ROW_NAMED(["id", "total"], [Types.STRING(), Types.DOUBLE()])
    rows = env.from_source(FileSource.for_parquet(str(source_dir)).build(), None, "files")
    totals = (
        rows.map(lambda r: Row(id=r.id, total=r.reading), output_type=row_type)
        .key_by(lambda r: r.id)
        .sum("total")
    )
    totals.sink_to(FileSink.for_parquet(str(sink_dir), row_type).build())
    env.execute("parquet")
    table = pq.read_table(sorted(glob.glob(str(sink_dir / "part-*.parquet"))))
    assert sorted(table.to_pylist(), key=lambda r: (r["id"], r["total"])) == [
        {"id": "s1", "total": 1.5},
        {"id": "s1", "total": 4.5},
        {"id": "s2", "total": 2.0},
    ]


def test_bad_json_lines_go_to_the_file_sources_dead_letter_output(spark_env, tmp_path):
    from weir.datastream import OutputTag

    (tmp_path / "a.json").write_bytes(b'{"n": 1}\n{"n": \n{"n": 3}\n{"n": "\xff"}\n{"n": 5}\n')
    dead = OutputTag("dead", Types.PICKLED_BYTE_ARRAY())
    source = FileSource.for_json_lines(str(tmp_path)).set_dead_letter_output(dead).build()
    numbers = spark_env.from_source(source, None, "lines")
    letters = numbers.get_side_output(dead).map(lambda r: (r.position, r.record))
    out = numbers.map(lambda r: r.n).union(letters).execute_and_collect()
    assert sorted(map(str, out)) == sorted(
        map(
            str,
            [
                1,
                3,
                5,
                (f"{tmp_path}/a.json:2", b'{"n": \n'),
                (f"{tmp_path}/a.json:4", b'{"n": "\xff"}\n'),
            ],
        )
    )


def test_print_writes_each_record_on_the_driver_stdout(spark_env, capsys):
    env = spark_env  # parallelism 2: Flink's prefix of the printing subtask (1-based)
    env.from_collection([Row(id="s1", t=1.5), "plain", 3]).print()
    env.execute("print")
    assert sorted(capsys.readouterr().out.splitlines()) == sorted(
        ["1> Row(id='s1', t=1.5)", "1> plain", "1> 3"]
    )


def test_text_files_monitored_until_cancelled(spark_env, tmp_path):
    source_dir = tmp_path / "in"
    source_dir.mkdir()
    (source_dir / "1.txt").write_text("a\nb\n")
    env = spark_env
    env.enable_checkpointing(100)
    seen = []
    source = FileSource.for_record_stream_format(
        __import__(
            "weir.datastream.connectors", fromlist=["StreamFormat"]
        ).StreamFormat.text_line_format(),
        str(source_dir),
    ).monitor_continuously(Duration.of_millis(100))
    env.from_source(source.build(), None, "text").map(str.upper).add_sink(
        lambda v, c: seen.append(v)
    )
    client = env.execute_async("monitor")
    wait_until(lambda: len(seen) >= 2, "the first file's lines", 120, state=lambda: seen)
    (source_dir / "2.txt").write_text("c\n")
    wait_until(lambda: len(seen) >= 3, "the second file's line", 120, state=lambda: seen)
    assert client.get_job_status() == JobStatus.RUNNING
    client.cancel()
    assert client.wait() == JobStatus.CANCELED
    assert sorted(seen) == ["A", "B", "C"]


def test_unbounded_generator_runs_until_cancelled(spark_env):
    env = spark_env
    seen = []
    source = DataGeneratorSource(lambda i: i, records_per_second=200)
    env.from_source(source, None, "numbers").filter(lambda i: i % 2 == 0).add_sink(
        lambda v, c: seen.append(v)
    )
    client = env.execute_async("generator")
    wait_until(lambda: len(seen) >= 50, "50 even numbers", 120, state=lambda: len(seen))
    client.cancel()
    assert client.get_job_status() == JobStatus.CANCELED
    assert sorted(seen)[:50] == list(range(0, 100, 2))


def test_spark_submit_runs_the_job_file_on_its_session():
    spark_submit = os.path.join(os.path.dirname(sys.executable), "spark-submit")
    env = dict(
        os.environ,
        PYTHONPATH=ROOT,
        PYSPARK_PYTHON=sys.executable,
        PYSPARK_DRIVER_PYTHON=sys.executable,
    )
    result = subprocess.run(
        [
            spark_submit,
            "--master",
            "local[1]",
            "--conf",
            "spark.ui.enabled=false",
            os.path.join(ROOT, "tests", "e2e", "jobs", "submit_job.py"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    # spark-submit merges its Python driver's stderr (the job's summary line) into stdout
    summaries = [line for line in lines if line.startswith("weir: job 'submitted' finished")]
    assert len(summaries) == 1
    assert sorted(set(lines) - set(summaries)) == ["a:1", "bb:2", "ccc:3", "master=local[1]"]


class SeenBefore:
    """Keyed filter with state: passes each key's first record only."""

    def open(self, runtime_context):
        from weir.datastream.state import ValueStateDescriptor

        self.seen = runtime_context.get_state(ValueStateDescriptor("seen"))

    def filter(self, value):
        first = self.seen.value() is None
        self.seen.update(True)
        return first


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_csv_and_json_files_through_keyed_flat_map_and_filter(any_env, tmp_path, fmt):
    source_dir = tmp_path / "in"
    source_dir.mkdir()
    if fmt == "csv":
        (source_dir / "r.csv").write_text("id,words\ns1,a b\ns2,c\ns1,d e f\n")
        source = FileSource.for_csv(str(source_dir)).build()
    else:
        (source_dir / "r.json").write_text(
            '{"id": "s1", "words": "a b"}\n'
            '{"id": "s2", "words": "c"}\n'
            '{"id": "s1", "words": "d e f"}\n'
        )
        source = FileSource.for_json_lines(str(source_dir)).build()
    env = any_env.set_max_parallelism(16)
    rows = env.from_source(source, None, "files")
    words = rows.key_by(lambda r: r.id).flat_map(lambda r: [(r.id, w) for w in r.words.split()])
    firsts = words.key_by(lambda w: w[0]).filter(SeenBefore())
    assert sorted(words.execute_and_collect()) == [
        ("s1", "a"),
        ("s1", "b"),
        ("s1", "d"),
        ("s1", "e"),
        ("s1", "f"),
        ("s2", "c"),
    ]
    assert sorted(firsts.execute_and_collect()) == [("s1", "a"), ("s2", "c")]
