"""Keyed counting: weir (KeyedProcessFunction + ValueState) against native Spark groupBy().count().

One run; each side in its own process with its own SparkSession, as it ships
(bench/engines.py), taking turns. Both sides count N events with key = i % K (an int), split
into the same number of micro-batches:

  native        Parquet files (one per micro-batch) -> groupBy("key").count(), update mode,
                noop sink, RocksDB state store, availableNow
  weir-datagen  DataGeneratorSource(i -> i % K) -> key_by -> CountFn (ValueState read+update
                per event; one event-time timer per key emits the final count at end of input)
  weir-parquet  the same Parquet files through FileSource.for_parquet, one file per batch
  weir-dataclass (optional) the weir-datagen job with records that are instances of a
                dataclass of this script, Event(key=i % K): in Spark's workers the class
                cannot be found by name, so its records travel by value (cloudpickle)
  weir-sum      (optional) DataGeneratorSource(i -> (i % K, 1)) -> key_by -> rolling sum(1):
                one output per event, all shipped to the driver's sink

Every run is verified: native through its progress (input rows, state rows), weir through
the final (key, count) pairs its timers emit (sum == N, one per key). Times run from query
start to its end, after a warm-up run of every side; per-batch figures are Spark's progress
(`numInputRows@triggerExecution ms`; weir's input rows are record bundles).

  .venv/bin/python bench/keyed_state.py --events 20000 --keys 100          # smoke run
  .venv/bin/python bench/keyed_state.py                                    # full size

To measure a fixed weir while the tree changes, run a snapshot from outside /work/main:
  git archive HEAD weir | tar -x -C /tmp/snap && cd /tmp &&
  PYTHONPATH=/tmp/snap /work/main/.venv/bin/python /work/main/bench/keyed_state.py
"""

import argparse
import dataclasses
import os
import shutil
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # PYTHONPATH wins

from weir.common import WatermarkStrategy  # noqa: E402
from weir.datastream import KeyedProcessFunction, StreamExecutionEnvironment  # noqa: E402
from weir.datastream.connectors import DataGeneratorSource, FileSource  # noqa: E402
from weir.datastream.state import ValueStateDescriptor  # noqa: E402
from engines import AS_SHIPPED, Engines  # noqa: E402
from report import Report, add_record_argument, markdown_table  # noqa: E402

ROCKSDB = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"
FINAL_TIMER = 2**62  # "end of input": fires only at the +infinity watermark
SAFE_FINAL_TIMER = 10**15  # below weir's end-of-input event time on Spark (9e15)


def make_session(extra_conf=None):
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    conf = {
        "spark.ui.enabled": "false",
        "spark.ui.showConsoleProgress": "false",
        "spark.sql.shuffle.partitions": "2",
        "spark.driver.memory": "4g",
        "spark.sql.streaming.stateStore.providerClass": ROCKSDB,
        **(extra_conf or {}),
    }
    builder = SparkSession.builder.master("local[2]").appName("weir-bench-keyed-state")
    for key, value in conf.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


# -- input --------------------------------------------------------------------------------
def batch_bounds(events, batches):
    return [events * b // batches for b in range(batches + 1)]


def write_parquet(directory, events, keys, batches):
    """One Parquet file per micro-batch, key = i % keys (int64), in increasing mtime."""
    os.makedirs(directory, exist_ok=True)
    bounds = batch_bounds(events, batches)
    for b in range(batches):
        column = np.arange(bounds[b], bounds[b + 1], dtype=np.int64) % keys
        path = os.path.join(directory, f"part-{b:05d}.parquet")
        pq.write_table(pa.table({"key": column}), path)
        os.utime(path, ns=(1_000_000_000 * (b + 1),) * 2)
    return directory


class KeyOf:
    """gen_fn of the DataGeneratorSource: record i is its key, i % keys."""

    def __init__(self, keys):
        self.keys = keys

    def __call__(self, index):
        return index % self.keys


# -- weir ---------------------------------------------------------------------------------
class CountFn(KeyedProcessFunction):
    """Counts per key in a ValueState; emits (key, count) once, at the end of the input."""

    def __init__(self, final_timer=FINAL_TIMER):
        self.final_timer = final_timer

    def open(self, runtime_context):
        self.count = runtime_context.get_state(ValueStateDescriptor("count"))

    def process_element(self, value, ctx):
        current = self.count.value()
        if current is None:
            current = 0
            ctx.timer_service().register_event_time_timer(self.final_timer)
        self.count.update(current + 1)

    def on_timer(self, timestamp, ctx):
        yield ctx.get_current_key(), self.count.value()


@dataclasses.dataclass
class Event:
    """A record as users model one: a dataclass of the job's script."""

    key: int


class EventOf(KeyOf):
    """gen_fn of the dataclass variant: record i is Event(i % keys)."""

    def __call__(self, index):
        return Event(index % self.keys)


def event_key(event):
    return event.key


class PairOf(KeyOf):
    """gen_fn of the rolling-sum variant: record i is (i % keys, 1)."""

    def __call__(self, index):
        return index % self.keys, 1


def row_key(row):
    return row[0]


def identity(value):
    return value


def run_weir(
    spark, events, keys, batches, parquet_dir=None, final_timer=FINAL_TIMER, records=KeyOf
):
    """Runs the job; returns (seconds, per-batch durations, collected (key, count) pairs)."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_spark_session(spark).set_parallelism(2)
    if parquet_dir is None:
        source = DataGeneratorSource(
            records(keys), count=events, num_splits=2, max_records_per_batch=-(-events // batches)
        )
        key_selector = event_key if records is EventOf else identity
    else:
        source = FileSource.for_parquet(parquet_dir).set_max_files_per_batch(1).build()
        key_selector = row_key
    stream = env.from_source(source, WatermarkStrategy.no_watermarks(), "events")
    results = []
    stream.key_by(key_selector).process(CountFn(final_timer)).add_sink(
        lambda value, ctx: results.append(value)
    )
    started = time.perf_counter()
    client = env.execute_async("bench-keyed-state")
    client.wait()
    seconds = time.perf_counter() - started
    progress = client.query.recentProgress if client.query is not None else []
    return seconds, progress, results


def run_weir_sum(spark, events, keys, batches):
    """Rolling sum: the last output per key is its count."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_spark_session(spark).set_parallelism(2)
    source = DataGeneratorSource(
        PairOf(keys), count=events, num_splits=2, max_records_per_batch=-(-events // batches)
    )
    latest = {}
    env.from_source(source, WatermarkStrategy.no_watermarks(), "events").key_by(row_key).sum(
        1
    ).add_sink(lambda value, ctx: latest.__setitem__(value[0], value[1]))
    started = time.perf_counter()
    client = env.execute_async("bench-keyed-sum")
    client.wait()
    seconds = time.perf_counter() - started
    return seconds, client.query.recentProgress, list(latest.items())


def check_weir(results, events, keys, label):
    total = sum(count for _, count in results)
    distinct = len({key for key, _ in results})
    if total != events or len(results) != keys or distinct != keys:
        raise AssertionError(
            f"{label}: got {len(results)} counts ({distinct} distinct keys) "
            f"summing to {total}; expected {keys} keys summing to {events}"
        )


# -- native -------------------------------------------------------------------------------
def run_native(spark, parquet_dir):
    """groupBy("key").count() over the Parquet files, one file per micro-batch."""
    checkpoint = tempfile.mkdtemp(prefix="bench-native-ckpt-")
    try:
        counts = (
            spark.readStream.schema("key long")
            .option("maxFilesPerTrigger", 1)
            .parquet(parquet_dir)
            .groupBy("key")
            .count()
        )
        started = time.perf_counter()
        query = (
            counts.writeStream.outputMode("update")
            .format("noop")
            .option("checkpointLocation", checkpoint)
            .trigger(availableNow=True)
            .start()
        )
        query.awaitTermination()
        seconds = time.perf_counter() - started
        return seconds, query.recentProgress
    finally:
        shutil.rmtree(checkpoint, ignore_errors=True)


def check_native(progress, events, keys):
    rows = sum(p["numInputRows"] for p in progress)
    state_rows = max(
        (op["numRowsTotal"] for p in progress for op in p["stateOperators"]), default=0
    )
    if rows != events or state_rows != keys:
        raise AssertionError(
            f"native: read {rows} rows, {state_rows} state rows; "
            f"expected {events} rows and {keys} keys"
        )


# -- driver -------------------------------------------------------------------------------
def batch_summary(progress):
    """Per-batch 'rows@ms' of a query's progress, plus the total of the batches' durations."""
    parts = [f"{p['numInputRows']}@{p['durationMs'].get('triggerExecution', 0)}" for p in progress]
    total = sum(p["durationMs"].get("triggerExecution", 0) for p in progress)
    return " ".join(parts), total


def probe_final_timer(spark):
    """FINAL_TIMER if weir fires a 2**62 event-time timer at end of input, else the safe one."""
    _, _, results = run_weir(spark, 1000, 10, 2, final_timer=FINAL_TIMER)
    if len(results) == 10:
        return FINAL_TIMER
    print(
        f"NOTE: weir on Spark never fired the event-time timers at {FINAL_TIMER} (got "
        f"{len(results)} of 10 final counts; the local runner fires them). Using timers at "
        f"{SAFE_FINAL_TIMER} instead.",
        flush=True,
    )
    return SAFE_FINAL_TIMER


def run_sides(engines, sides, events, keys, batches, workdir, verbose, final_timer):
    parquet_dir = write_parquet(os.path.join(workdir, f"in-{events}-{keys}"), events, keys, batches)
    figures = {}
    for side in sides:
        if side == "native":
            seconds, progress = engines.native(run_native, parquet_dir)
            check_native(progress, events, keys)
        elif side == "weir-sum":
            seconds, progress, results = engines.weir(run_weir_sum, events, keys, batches)
            check_weir(results, events, keys, side)
        else:
            seconds, progress, results = engines.weir(
                run_weir,
                events,
                keys,
                batches,
                parquet_dir if side == "weir-parquet" else None,
                final_timer,
                EventOf if side == "weir-dataclass" else KeyOf,
            )
            check_weir(results, events, keys, side)
        figures[side] = events / seconds
        if verbose:
            batches_text, batch_ms = batch_summary(progress)
            print(
                f"  {side:13s} K={keys:>9,}  {seconds:8.2f} s  {events / seconds:>12,.0f} ev/s"
                f"  batches(rows@ms): {batches_text}  (sum {batch_ms} ms)",
                flush=True,
            )
    shutil.rmtree(parquet_dir, ignore_errors=True)
    return figures


def table(rows, sides) -> str:
    weir_sides = [s for s in sides if s != "native"]
    header = ["keys"] + [f"{s} ev/s" for s in sides]
    if "native" in sides:
        header += [f"ratio {s}/native" for s in weir_sides]
    cells = []
    for keys, figures in rows:
        cells.append([f"{keys:,}"] + [f"{figures[s]:,.0f}" for s in sides])
        if "native" in sides:
            cells[-1] += [f"{figures[s] / figures['native']:.3f}" for s in weir_sides]
    return markdown_table(header, cells)


def weir_location():
    import weir

    return os.path.dirname(os.path.dirname(os.path.abspath(weir.__file__)))


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=2_000_000)
    parser.add_argument(
        "--keys", default="100,100000,1000000", help="comma-separated distinct key counts"
    )
    parser.add_argument("--batches", type=int, default=4)
    parser.add_argument("--warmup-events", type=int, default=20_000)
    parser.add_argument(
        "--sides",
        default="native,weir-datagen,weir-parquet",
        help="any of native, weir-datagen, weir-parquet, weir-dataclass, weir-sum",
    )
    parser.add_argument("--quiet", action="store_true", help="only print the table")
    add_record_argument(parser)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    keys_list = [int(k) for k in args.keys.split(",")]
    sides = [s.strip() for s in args.sides.split(",")]
    workdir = tempfile.mkdtemp(prefix="bench-keyed-state-")
    wall = time.perf_counter()
    engines = Engines()
    try:
        warmup_keys = min(100, args.warmup_events)
        started = time.perf_counter()
        final_timer = engines.weir(probe_final_timer) if sides != ["native"] else FINAL_TIMER
        run_sides(
            engines,
            sides,
            args.warmup_events,
            warmup_keys,
            args.batches,
            workdir,
            False,
            final_timer,
        )
        print(
            f"session + warm-up ({args.warmup_events:,} events): "
            f"{time.perf_counter() - wall:.1f} s (warm-up {time.perf_counter() - started:.1f} s)",
            flush=True,
        )
        rows = []
        for keys in keys_list:
            figures = run_sides(
                engines,
                sides,
                args.events,
                keys,
                args.batches,
                workdir,
                not args.quiet,
                final_timer,
            )
            rows.append((keys, figures))
        report = Report("keyed_state", "bench/keyed_state.py")
        report.line(
            f"\n{args.events:,} events, {args.batches} micro-batches, local[2], "
            f"shuffle partitions 2, RocksDB state store; {AS_SHIPPED}\n"
        )
        report.line(table(rows, sides))
        print(f"weir from {weir_location()}")
        if args.record:
            report.record()
        print(f"\ntotal wall time: {time.perf_counter() - wall:.1f} s")
    finally:
        engines.close()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
