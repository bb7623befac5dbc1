"""Stream-stream interval join: weir's interval_join against native Spark's stream-stream join.

One process, one SparkSession, one run. Two Parquet streams (left and right) of N events
each, (key, ts, id) with key uniform in [0, K), ts uniform over the span and sorted, one
file per micro-batch on each side. Each left event joins every right event of its key with
ts in [left.ts - 5 s, left.ts + 5 s].

  native  readStream.parquet on both sides -> withWatermark("ts", "10 seconds") on both ->
          inner join on key and the time range -> foreachBatch(count, checksum)
  weir    FileSource.for_parquet on both sides, bounded out-of-orderness 10 s ->
          key_by -> interval_join(...).between(-5 s, 5 s).process(pair id) -> sink

Both must produce the same pairs: their count and checksum (sum of left_id * 2^20 +
right_id) are compared with each other and with a numpy reference (exit status 1 on any
mismatch). Events/s count the events of both streams; times run from query start to its
end, after a small warm-up; each engine runs --repeat times (taking turns) and the table
shows the medians.

  .venv/bin/python bench/join.py --events 20000 --keys 100       # smoke run
  .venv/bin/python bench/join.py                                 # full size
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
import pyarrow.parquet as pq

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(ROOT)  # PYTHONPATH wins
sys.path.append(os.path.join(ROOT, "bench"))

from keyed_state import make_session, weir_location  # noqa: E402

from weir.common import Duration, WatermarkStrategy  # noqa: E402
from weir.common.watermark_strategy import TimestampAssigner  # noqa: E402
from weir.datastream import ProcessJoinFunction, StreamExecutionEnvironment  # noqa: E402
from weir.datastream.connectors import FileSource  # noqa: E402

SCHEMA = "key long, ts long, id long"
BOUND_MS = 5000
DELAY_MS = 10_000
ID_SHIFT = 20  # checksum term: left_id << 20 | right_id (ids below 2^20)


# -- data and reference -------------------------------------------------------------------
def generate(events, keys, span_ms, seed):
    rng = np.random.default_rng(seed)
    ts = np.sort(rng.integers(0, span_ms, events, dtype=np.int64))
    return {
        "key": rng.integers(0, keys, events, dtype=np.int64),
        "ts": ts,
        "id": np.arange(events, dtype=np.int64),
    }


def write_files(side, directory, files):
    os.makedirs(directory, exist_ok=True)
    bounds = np.linspace(0, len(side["ts"]), files + 1).astype(int)
    for f in range(files):
        part = {c: v[bounds[f] : bounds[f + 1]] for c, v in side.items()}
        path = os.path.join(directory, f"part-{f:05d}.parquet")
        pq.write_table(pa.table(part), path)
        os.utime(path, ns=(1_000_000_000 * (f + 1),) * 2)
    return directory


def reference(left, right):
    """(pairs, checksum) of the join, by sorting each key's right timestamps."""
    count, checksum = 0, 0
    order = np.lexsort((right["ts"], right["key"]))
    r_key, r_ts, r_id = right["key"][order], right["ts"][order], right["id"][order]
    for key in np.unique(left["key"]):
        lo_k, hi_k = np.searchsorted(r_key, key), np.searchsorted(r_key, key, side="right")
        ts_k, id_k = r_ts[lo_k:hi_k], r_id[lo_k:hi_k]
        mine = left["key"] == key
        for ts, lid in zip(left["ts"][mine], left["id"][mine]):
            lo = np.searchsorted(ts_k, ts - BOUND_MS)
            hi = np.searchsorted(ts_k, ts + BOUND_MS, side="right")
            count += hi - lo
            checksum += int((lid << ID_SHIFT) * (hi - lo) + id_k[lo:hi].sum())
    return int(count), checksum


# -- native -------------------------------------------------------------------------------
def run_native(spark, left_dir, right_dir):
    from pyspark.sql import functions as F

    checkpoint = tempfile.mkdtemp(prefix="bench-join-native-ckpt-")
    totals = []

    def side(directory, name):
        return (
            spark.readStream.schema(SCHEMA)
            .option("maxFilesPerTrigger", 1)
            .parquet(directory)
            .select(
                F.col("key").alias(f"{name}_key"),
                F.col("id").alias(f"{name}_id"),
                F.timestamp_millis("ts").alias(f"{name}_ts"),
            )
            .withWatermark(f"{name}_ts", f"{DELAY_MS // 1000} seconds")
        )

    def total(frame, batch_id):
        row = frame.agg(
            F.count(F.lit(1)).alias("n"),
            F.sum(F.shiftleft("l_id", ID_SHIFT) + F.col("r_id")).alias("sum"),
        ).collect()[0]
        totals.append((row["n"], row["sum"] or 0))

    try:
        joined = side(left_dir, "l").join(
            side(right_dir, "r"),
            F.expr(
                f"l_key = r_key AND r_ts >= l_ts - interval {BOUND_MS} milliseconds "
                f"AND r_ts <= l_ts + interval {BOUND_MS} milliseconds"
            ),
        )
        started = time.perf_counter()
        query = (
            joined.writeStream.foreachBatch(total)
            .option("checkpointLocation", checkpoint)
            .trigger(availableNow=True)
            .start()
        )
        query.awaitTermination()
        seconds = time.perf_counter() - started
    finally:
        shutil.rmtree(checkpoint, ignore_errors=True)
    return seconds, (sum(n for n, _ in totals), sum(s for _, s in totals))


# -- weir ---------------------------------------------------------------------------------
class EventTime(TimestampAssigner):
    def extract_timestamp(self, value, record_timestamp):
        return value.ts


class PairId(ProcessJoinFunction):
    def process_element(self, left, right, ctx):
        yield (left.id << ID_SHIFT) + right.id


def event_key(row):
    return row.key


def run_weir(spark, left_dir, right_dir):
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_spark_session(spark).set_parallelism(2)
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_millis(DELAY_MS)
    ).with_timestamp_assigner(EventTime())

    def side(directory, name):
        source = FileSource.for_parquet(directory).set_max_files_per_batch(1).build()
        return env.from_source(source, strategy, name).key_by(event_key)

    totals = [0, 0]

    def add(value, ctx):
        totals[0] += 1
        totals[1] += value

    side(left_dir, "left").interval_join(side(right_dir, "right")).between(
        Duration.of_millis(-BOUND_MS), Duration.of_millis(BOUND_MS)
    ).process(PairId()).add_sink(add)
    started = time.perf_counter()
    env.execute("bench-join")
    return time.perf_counter() - started, tuple(totals)


# -- driver -------------------------------------------------------------------------------
def run_case(spark, events, keys, args, workdir, verbose):
    span_ms = int(events * 1000 / args.rate)
    left, right = generate(events, keys, span_ms, 1), generate(events, keys, span_ms, 2)
    expected = reference(left, right)
    dirs = [
        write_files(s, os.path.join(workdir, f"{n}-{events}-{keys}"), args.files)
        for n, s in (("left", left), ("right", right))
    ]
    times, problems = {"native": [], "weir": []}, []
    for _ in range(args.repeat):
        for name, run in (("native", run_native), ("weir", run_weir)):
            seconds, got = run(spark, *dirs)
            times[name].append(seconds)
            if got != expected:
                problems.append(
                    f"{name}: {got[0]:,} pairs (checksum {got[1]}), expected "
                    f"{expected[0]:,} (checksum {expected[1]})"
                )
            if verbose:
                print(
                    f"  {name:6s} K={keys:>7,}  {seconds:7.2f} s  "
                    f"{2 * events / seconds:>10,.0f} ev/s  {got[0]:,} pairs",
                    flush=True,
                )
    for directory in dirs:
        shutil.rmtree(directory, ignore_errors=True)
    native_s, weir_s = statistics.median(times["native"]), statistics.median(times["weir"])
    return {
        "keys": keys,
        "pairs": expected[0],
        "native": 2 * events / native_s,
        "weir": 2 * events / weir_s,
        "problems": problems,
    }


def print_table(rows, args):
    print(
        f"\n{args.events:,} events per side, {args.files} files per side (one per "
        f"micro-batch), {args.rate:,} events/s of event time, +/- {BOUND_MS // 1000} s, "
        f"local[2], weir from {weir_location()}\n"
    )
    print("| keys | pairs | native ev/s | weir ev/s | weir/native | check |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        check = "OK" if not row["problems"] else "MISMATCH"
        print(
            f"| {row['keys']:,} | {row['pairs']:,} | {row['native']:,.0f} | "
            f"{row['weir']:,.0f} | {row['weir'] / row['native']:.3f} | {check} |"
        )
    for row in rows:
        for problem in row["problems"]:
            print(f"MISMATCH K={row['keys']:,}: {problem}")


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000, help="events per side")
    parser.add_argument("--keys", default="100,100000", help="comma-separated key counts")
    parser.add_argument(
        "--rate", type=int, default=10, help="events per second of event time on each side"
    )
    parser.add_argument("--files", type=int, default=100, help="Parquet files per side")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--warmup-events", type=int, default=20_000)
    parser.add_argument("--quiet", action="store_true", help="only print the table")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    workdir = tempfile.mkdtemp(prefix="bench-join-")
    spark = make_session()
    try:
        warmup = argparse.Namespace(**{**vars(args), "repeat": 1})
        run_case(spark, args.warmup_events, 100, warmup, workdir, False)
        rows = [
            run_case(spark, args.events, int(k), args, workdir, not args.quiet)
            for k in args.keys.split(",")
        ]
        print_table(rows, args)
        return 1 if any(row["problems"] for row in rows) else 0
    finally:
        spark.stop()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
