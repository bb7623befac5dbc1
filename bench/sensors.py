"""Average temperature per sensor in 5 s tumbling windows: weir against native Spark SQL.

One run; each side in its own process with its own SparkSession (bench/keyed_state.py's:
local[2], shuffle partitions 2, RocksDB state store), as it ships (bench/engines.py).
The same generated readings (seeded numpy: sensor_id, event_time in ms, temperature in
quarter degrees, so every sum is exact in floating point) in Parquet files read one per
micro-batch go through the same job on both engines:

  native  readStream.parquet (maxFilesPerTrigger) -> withWatermark("event_ts", "2 seconds")
          -> groupBy(window(event_ts, "5 seconds"), sensor_id).avg("temperature"), append
          mode, availableNow, results collected through foreachBatch (toArrow)
  weir    FileSource.for_parquet -> bounded out-of-orderness 2 s -> key_by(sensor_id) ->
          TumblingEventTimeWindows(5 s) -> aggregate(a Python AggregateFunction keeping
          (sum, count), a ProcessWindowFunction adding the window's bounds), collected by
          a sink on the driver

  weir SQL (--sql) the same job in Flink SQL on weir (SENSORS_SQL): a `filesystem` table
          in the `parquet` format (`source.max-files-per-batch` as above), a computed
          TO_TIMESTAMP_LTZ(event_time, 3) with a 2 s watermark, TUMBLE(5 s) with
          AVG(temperature) per sensor, collected with execute().collect()

Checks (exit status 1 on any mismatch): the average of EVERY (sensor, window), computed
with numpy from the data. weir (and weir SQL) must match all of them exactly (it closes every window
at
the end of input); native Spark's append mode leaves the windows still open under its
final watermark unemitted, so every window it emitted must match, and the ones it did not
must be exactly those.

Times run from query start to end, after a small warm-up of both; each engine runs
--repeat times, taking turns, and the table shows the median.

  .venv/bin/python bench/sensors.py --events 20000     # smoke run
  .venv/bin/python bench/sensors.py                    # 2,000,000 readings, 1,000 sensors
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(ROOT)  # PYTHONPATH wins
sys.path.append(os.path.join(ROOT, "examples"))

from ad_campaign_counts import write_event_files  # noqa: E402
from engines import AS_SHIPPED, Engines  # noqa: E402
from keyed_state import batch_summary, weir_location  # noqa: E402
from report import Report, add_record_argument, markdown_table  # noqa: E402
from ysb import final_watermark, millis_of, run_to_end  # noqa: E402

from weir.common import Duration, Time, WatermarkStrategy  # noqa: E402
from weir.datastream import (  # noqa: E402
    AggregateFunction,
    ProcessWindowFunction,
    StreamExecutionEnvironment,
)
from weir.datastream.connectors import FileSource  # noqa: E402
from weir.datastream.window import TumblingEventTimeWindows  # noqa: E402

BASE_TIMESTAMP = 1_700_000_000_000
WINDOW_MS = 5_000
MAX_DELAY_MS = 1_500  # a reading is at most this much older than its slot (< the 2 s bound)
SCHEMA = "sensor_id long, event_time long, temperature double"


def generate(count: int, sensors: int, span_s: float, seed: int = 11) -> pa.Table:
    rng = np.random.default_rng([seed, sensors, count])
    slot = BASE_TIMESTAMP + np.arange(count, dtype=np.int64) * int(span_s * 1000) // count
    return pa.table(
        {
            "sensor_id": rng.integers(0, sensors, count, dtype=np.int64),
            "event_time": slot + rng.integers(0, MAX_DELAY_MS, count, dtype=np.int64),
            "temperature": rng.integers(-80, 160, count).astype(np.float64) / 4.0,
        }
    )


def expected_averages(readings: pa.Table) -> dict:
    """{(sensor_id, window_start): average temperature} of every window."""
    sensor = readings.column("sensor_id").to_numpy()
    start = readings.column("event_time").to_numpy()
    start = start - start % WINDOW_MS
    temperature = readings.column("temperature").to_numpy()
    first = int(start.min())
    slots = int(start.max() - first) // WINDOW_MS + 1
    combined = sensor * slots + (start - first) // WINDOW_MS
    keys, inverse, counts = np.unique(combined, return_inverse=True, return_counts=True)
    sums = np.bincount(inverse, weights=temperature)
    return {
        (int(k // slots), first + int(k % slots) * WINDOW_MS): float(s) / int(n)
        for k, s, n in zip(keys, sums, counts)
    }


# -- the weir job ------------------------------------------------------------------------
class Average(AggregateFunction):
    def create_accumulator(self):
        return (0.0, 0)

    def add(self, value, accumulator):
        return (accumulator[0] + value.temperature, accumulator[1] + 1)

    def get_result(self, accumulator):
        return accumulator[0] / accumulator[1]

    def merge(self, a, b):
        return (a[0] + b[0], a[1] + b[1])


class WithWindow(ProcessWindowFunction):
    def process(self, key, context, elements):
        window = context.window()
        return [(key, window.start, window.end, average) for average in elements]


def event_time_of(reading, record_timestamp):
    return reading.event_time


def sensor_of(reading):
    return reading.sensor_id


def run_weir(spark, directory, files_per_batch):
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_spark_session(spark).set_parallelism(2)
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_seconds(2)
    ).with_timestamp_assigner(event_time_of)
    source = FileSource.for_parquet(directory).set_max_files_per_batch(files_per_batch).build()
    rows = []
    (
        env.from_source(source, strategy, "readings")
        .key_by(sensor_of)
        .window(TumblingEventTimeWindows.of(Time.seconds(5)))
        .aggregate(Average(), window_function=WithWindow())
        .add_sink(lambda value, ctx: rows.append(value))
    )
    started = time.perf_counter()
    client = env.execute_async("bench-sensors")
    client.wait()
    seconds = time.perf_counter() - started
    return seconds, client.query.recentProgress if client.query is not None else [], rows


SENSORS_SQL = """
SELECT sensor_id, window_start, window_end, AVG(temperature) AS average
FROM TABLE(TUMBLE(TABLE readings, DESCRIPTOR(event_ts), INTERVAL '5' SECOND))
GROUP BY sensor_id, window_start, window_end"""


def run_weir_sql(spark, directory, files_per_batch):
    """The same job in Flink SQL on weir; returns (seconds, progress (none), rows)."""
    from weir.table import StreamTableEnvironment

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_spark_session(spark).set_parallelism(2)
    t_env = StreamTableEnvironment.create(env)
    t_env.execute_sql(f"""
        CREATE TABLE readings (sensor_id BIGINT, event_time BIGINT, temperature DOUBLE,
          event_ts AS TO_TIMESTAMP_LTZ(event_time, 3),
          WATERMARK FOR event_ts AS event_ts - INTERVAL '2' SECOND)
        WITH ('connector' = 'filesystem', 'path' = '{directory}', 'format' = 'parquet',
              'source.max-files-per-batch' = '{files_per_batch}')""")
    started = time.perf_counter()
    with t_env.execute_sql(SENSORS_SQL).collect() as results:
        rows = [(r[0], millis_of(r[1]), millis_of(r[2]), r[3]) for r in results]
    return time.perf_counter() - started, [], rows


# -- native ------------------------------------------------------------------------------
def run_native(spark, directory, files_per_batch):
    from pyspark.sql import functions as F

    averages = (
        spark.readStream.schema(SCHEMA)
        .option("maxFilesPerTrigger", files_per_batch)
        .parquet(directory)
        .withColumn("event_ts", F.timestamp_millis("event_time"))
        .withWatermark("event_ts", "2 seconds")
        .groupBy(F.window("event_ts", "5 seconds"), "sensor_id")
        .agg(F.avg("temperature").alias("average"))
        .select(
            "sensor_id",
            F.unix_millis(F.col("window.start")).alias("start"),
            F.unix_millis(F.col("window.end")).alias("end"),
            "average",
        )
    )
    seconds, progress, rows = run_to_end(averages, ("sensor_id", "start", "end", "average"))
    return seconds, progress, rows, final_watermark(progress)


# -- checks and driver -------------------------------------------------------------------
def check(native_rows, native_watermark, weir_rows, expected, sql_rows=None) -> list:
    problems = []
    got = {}
    sides = [("native", native_rows), ("weir", weir_rows)] + (
        [] if sql_rows is None else [("weir SQL", sql_rows)]
    )
    for label, rows in sides:
        windows = got[label] = {}
        for sensor, start, end, average in rows:
            if end - start != WINDOW_MS or (sensor, start) in windows:
                problems.append(f"{label}: window ({sensor}, {start}, {end}) is wrong or twice")
            windows[(sensor, start)] = average
        wrong = [(k, v, expected.get(k)) for k, v in windows.items() if expected.get(k) != v]
        if wrong:
            problems.append(f"{label}: {len(wrong)} wrong averages, e.g. {wrong[:3]}")
    for label in ("weir", "weir SQL") if sql_rows is not None else ("weir",):
        if got[label].keys() != expected.keys():
            problems.append(f"{label}: {len(expected.keys() - got[label].keys())} windows missing")
    still_open = {k for k in expected if k[1] + WINDOW_MS > native_watermark}
    if expected.keys() - got["native"].keys() != still_open:
        problems.append("native: the windows it did not emit are not those still open")
    return problems


def run_case(engines, args, workdir, events, verbose):
    readings = generate(events, args.sensors, args.span)
    expected = expected_averages(readings)
    directory = write_event_files(readings, os.path.join(workdir, f"readings-{events}"), args.files)
    times, problems = {"native": [], "weir": [], "sql": []}, []
    for _ in range(args.repeat):
        native_s, native_progress, native_rows, watermark = engines.native(
            run_native, directory, args.files_per_batch
        )
        weir_s, weir_progress, weir_rows = engines.weir(run_weir, directory, args.files_per_batch)
        sql_rows = None
        if args.sql:
            sql_s, _, sql_rows = engines.weir(run_weir_sql, directory, args.files_per_batch)
            times["sql"].append(sql_s)
        problems += [
            p
            for p in check(native_rows, watermark, weir_rows, expected, sql_rows)
            if p not in problems
        ]
        times["native"].append(native_s)
        times["weir"].append(weir_s)
        if verbose:
            for side, seconds, progress in (
                ("native", native_s, native_progress),
                ("weir", weir_s, weir_progress),
            ):
                text, total = batch_summary(progress)
                print(
                    f"  {side:6s} {seconds:7.2f} s {events / seconds:>10,.0f} ev/s  "
                    f"batches(rows@ms): {text} (sum {total} ms)",
                    flush=True,
                )
    shutil.rmtree(directory, ignore_errors=True)
    native_s, weir_s = statistics.median(times["native"]), statistics.median(times["weir"])
    sql = events / statistics.median(times["sql"]) if times["sql"] else None
    return {
        "events": events,
        "windows": len(expected),
        "native": events / native_s,
        "weir": events / weir_s,
        "sql": sql,
        "problems": problems,
    }


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=2_000_000)
    parser.add_argument("--sensors", type=int, default=1_000)
    parser.add_argument(
        "--span", type=float, default=400.0, help="seconds of event time the readings cover"
    )
    parser.add_argument("--files", type=int, default=10, help="Parquet files of readings")
    parser.add_argument("--files-per-batch", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--warmup-events", type=int, default=20_000)
    parser.add_argument(
        "--sql",
        action="store_true",
        help="also run the job as weir's Flink SQL (bench.sensors.SENSORS_SQL)",
    )
    add_record_argument(parser)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    workdir = tempfile.mkdtemp(prefix="bench-sensors-")
    engines = Engines()
    try:
        warmup = run_case(
            engines,
            argparse.Namespace(**{**vars(args), "repeat": 1}),
            workdir,
            args.warmup_events,
            False,
        )
        row = run_case(engines, args, workdir, args.events, True)
        problems = warmup["problems"] + row["problems"]
        report = Report("sensors", "bench/sensors.py")
        report.line(
            f"\n{args.events:,} readings of {args.sensors:,} sensors over "
            f"{args.span:.0f} s of event time, {args.files} files, "
            f"{args.files_per_batch} per micro-batch, local[2], RocksDB; median of "
            f"{args.repeat}; {AS_SHIPPED}\n"
        )
        sql = row["sql"] is not None
        report.line(
            markdown_table(
                ["readings", "windows", "native ev/s", "weir ev/s", "weir/native"]
                + (["weir SQL ev/s", "weir SQL/native"] if sql else [])
                + ["check"],
                [
                    [
                        f"{row['events']:,}",
                        f"{row['windows']:,}",
                        f"{row['native']:,.0f}",
                        f"{row['weir']:,.0f}",
                        f"{row['weir'] / row['native']:.3f}",
                    ]
                    + ([f"{row['sql']:,.0f}", f"{row['sql'] / row['native']:.3f}"] if sql else [])
                    + ["OK" if not problems else "FAIL"]
                ],
            )
        )
        print(f"weir from {weir_location()}")
        if args.record and not problems:
            report.record()
        for problem in problems:
            print(f"MISMATCH {problem}")
    finally:
        engines.close()
        shutil.rmtree(workdir, ignore_errors=True)
    if problems:
        print("RESULT CHECK FAILED", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
