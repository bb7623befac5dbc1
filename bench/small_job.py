"""A small bounded job's fixed cost: weir against a native PySpark streaming query.

One run; each side in its own process with its own SparkSession (bench/keyed_state.py's:
local[2], shuffle partitions 2, RocksDB state store), as it ships (bench/engines.py); the
same three records on both sides:

  weir    the README's job: from_collection of three (name, time) records -> timestamps
          and watermarks -> key_by(name) -> a KeyedProcessFunction counting in a
          ValueState with an event-time timer per key -> execute_and_collect
  native  readStream.parquet over the same three rows (one file) -> groupBy(name)
          .agg(count, max(time)) in update mode -> foreachBatch collecting them, on the
          availableNow trigger

Each side is timed from submission (`execute_and_collect` / `start()`) to its last result,
--repeat times taking turns after a warm-up of both, and the medians are compared: with
three records, the time is the fixed cost (planning the query, Spark's Python source and
state-planner processes, the Python workers, the micro-batches and their commits).
Results are checked: weir's (name, count) pairs and native's rows must both be the counts.

  .venv/bin/python bench/small_job.py
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

import pyarrow as pa
import pyarrow.parquet as pq

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(ROOT)  # PYTHONPATH wins
sys.path.append(os.path.join(ROOT, "bench"))

from engines import AS_SHIPPED, Engines  # noqa: E402
from keyed_state import weir_location  # noqa: E402
from report import Report, add_record_argument, markdown_table  # noqa: E402
from ysb import run_to_end  # noqa: E402

from weir.common import Duration, Types, WatermarkStrategy  # noqa: E402
from weir.datastream import KeyedProcessFunction, StreamExecutionEnvironment  # noqa: E402
from weir.datastream.state import ValueStateDescriptor  # noqa: E402

RECORDS = [("alice", 1_000), ("bob", 2_000), ("alice", 3_000)]
EXPECTED = [("alice", 2), ("bob", 1)]


class CountWithTimeout(KeyedProcessFunction):
    def open(self, runtime_context):
        self.count = runtime_context.get_state(ValueStateDescriptor("count", Types.LONG()))
        self.timer = runtime_context.get_state(ValueStateDescriptor("timer", Types.LONG()))

    def process_element(self, value, ctx):
        self.count.update((self.count.value() or 0) + 1)
        if self.timer.value() is not None:
            ctx.timer_service().delete_event_time_timer(self.timer.value())
        self.timer.update(ctx.timestamp() + 60_000)
        ctx.timer_service().register_event_time_timer(ctx.timestamp() + 60_000)

    def on_timer(self, timestamp, ctx):
        yield ctx.get_current_key(), self.count.value()


def run_weir(spark) -> tuple:
    env = StreamExecutionEnvironment.get_execution_environment().set_spark_session(spark)
    events = env.from_collection(RECORDS).assign_timestamps_and_watermarks(
        WatermarkStrategy.for_bounded_out_of_orderness(
            Duration.of_seconds(5)
        ).with_timestamp_assigner(lambda e, ts: e[1])
    )
    counts = events.key_by(lambda e: e[0]).process(CountWithTimeout())
    started = time.perf_counter()
    out = sorted(counts.execute_and_collect("small job"))
    return time.perf_counter() - started, out


def run_native(spark, directory) -> tuple:
    from pyspark.sql import functions as F

    counts = (
        spark.readStream.schema("name string, time long")
        .parquet(directory)
        .groupBy("name")
        .agg(F.count("*").alias("n"), F.max("time").alias("last"))
    )
    seconds, _, rows = run_to_end(counts, ("name", "n"), output_mode="update")
    return seconds, sorted(rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    add_record_argument(parser)
    args = parser.parse_args(argv)
    directory = tempfile.mkdtemp(prefix="bench-small-")
    pq.write_table(
        pa.table({"name": [r[0] for r in RECORDS], "time": [r[1] for r in RECORDS]}),
        os.path.join(directory, "part-0.parquet"),
    )
    engines = Engines()
    times, problems = {"native": [], "weir": []}, []
    try:
        engines.native(run_native, directory)  # warm-up
        engines.weir(run_weir)
        for _ in range(args.repeat):
            for side, run in (
                ("native", lambda: engines.native(run_native, directory)),
                ("weir", lambda: engines.weir(run_weir)),
            ):
                seconds, out = run()
                times[side].append(seconds)
                if out != EXPECTED:
                    problems.append(f"{side}: {out}, expected {EXPECTED}")
                print(f"  {side:6s} {seconds:6.2f} s", flush=True)
    finally:
        engines.close()
        shutil.rmtree(directory, ignore_errors=True)
    native, weir = statistics.median(times["native"]), statistics.median(times["weir"])
    report = Report("small_job", "bench/small_job.py")
    report.line(f"\nthree records, local[2], RocksDB; median of {args.repeat}; {AS_SHIPPED}\n")
    report.line(
        markdown_table(
            ["native s", "weir s", "weir/native", "check"],
            [
                [
                    f"{native:.2f}",
                    f"{weir:.2f}",
                    f"{weir / native:.2f}",
                    "OK" if not problems else "FAIL",
                ]
            ],
        )
    )
    print(f"weir from {weir_location()}")
    if args.record and not problems:
        report.record()
    for problem in problems:
        print(f"MISMATCH {problem}")
    if problems:
        sys.exit(1)


if __name__ == "__main__":
    main()
