"""A bounded keyed job in BATCH mode, beside the same job in STREAMING mode and native Spark.

One run; each engine in its own process with its own SparkSession, as it ships
(bench/engines.py). Every side counts N events with key = i % K:

  weir-batch      DataGeneratorSource(i -> i % K) -> key_by -> CountFn (ValueState read and
                  update per event; an event-time timer per key emits the count at the end
                  of the input), `set_runtime_mode(BATCH)`: one Spark batch job
  weir-streaming  the same job in STREAMING mode: a streaming query (availableNow), state
                  in RocksDB, split into micro-batches of --batch-events
  native          spark.range(N) -> groupBy(id % K).count(), a Spark batch job

Each side is verified (one count per key, counts summing to N) and timed from submission
to its end, after a warm-up run of every side. The sides take turns --repeat times and
each side's median is reported (a single run of a side varies by up to a third here: the
JVM's and the Python workers' warm-up, and two cores shared with the driver).

  .venv/bin/python bench/batch_mode.py --events 20000 --keys 100     # smoke run
  .venv/bin/python bench/batch_mode.py                               # 2,000,000 / 100,000
"""

import argparse
import os
import statistics
import sys
import time

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # PYTHONPATH wins
sys.path.append(os.path.dirname(os.path.abspath(__file__)))

from engines import AS_SHIPPED, Engines  # noqa: E402
from keyed_state import CountFn, KeyOf, check_weir  # noqa: E402
from report import Report, add_record_argument, markdown_table  # noqa: E402
from weir.common import WatermarkStrategy  # noqa: E402
from weir.datastream import RuntimeExecutionMode, StreamExecutionEnvironment  # noqa: E402
from weir.datastream.connectors import DataGeneratorSource  # noqa: E402


def run_weir(spark, mode, events, keys, batch_events):
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_spark_session(spark).set_parallelism(2).set_runtime_mode(mode)
    source = DataGeneratorSource(
        KeyOf(keys), count=events, num_splits=2, max_records_per_batch=batch_events
    )
    results = []
    env.from_source(source, WatermarkStrategy.no_watermarks(), "events").key_by(
        lambda key: key
    ).process(CountFn()).add_sink(lambda value, ctx: results.append(value))
    started = time.perf_counter()
    env.execute_async(f"bench-{mode.name.lower()}").wait()
    seconds = time.perf_counter() - started
    check_weir(results, events, keys, f"weir {mode.name}")
    return seconds


def run_native(spark, events, keys):
    from pyspark.sql import functions as F

    started = time.perf_counter()
    counts = (
        spark.range(events)
        .select((F.col("id") % keys).alias("key"))
        .groupBy("key")
        .count()
        .collect()
    )
    seconds = time.perf_counter() - started
    if len(counts) != keys or sum(row["count"] for row in counts) != events:
        raise AssertionError(
            f"native: {len(counts)} counts summing to {sum(row['count'] for row in counts)}"
        )
    return seconds


def measure(engines, events, keys, batch_events):
    return {
        "weir-batch": engines.weir(
            run_weir, RuntimeExecutionMode.BATCH, events, keys, batch_events
        ),
        "weir-streaming": engines.weir(
            run_weir, RuntimeExecutionMode.STREAMING, events, keys, batch_events
        ),
        "native": engines.native(run_native, events, keys),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=2_000_000)
    parser.add_argument("--keys", type=int, default=100_000)
    parser.add_argument(
        "--batch-events",
        type=int,
        default=500_000,
        help="records per micro-batch of the STREAMING run",
    )
    parser.add_argument(
        "--warmup-events",
        type=int,
        default=None,
        help="events of the warm-up run (default: --events): each engine's "
        "JVM warms up on its own jobs only, and native Spark's batch "
        "job kept speeding up for several runs after a small warm-up",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="runs of each side, taking turns; medians are reported",
    )
    add_record_argument(parser)
    args = parser.parse_args(argv)
    engines = Engines()
    try:
        warmup = args.events if args.warmup_events is None else args.warmup_events
        measure(engines, warmup, min(args.keys, warmup), args.batch_events)
        runs = [
            measure(engines, args.events, args.keys, args.batch_events) for _ in range(args.repeat)
        ]
    finally:
        engines.close()
    seconds = {side: statistics.median(run[side] for run in runs) for side in runs[0]}
    report = Report("batch_mode", "bench/batch_mode.py")
    report.line(
        f"\n{args.events:,} events, {args.keys:,} keys, 2 cores, median of "
        f"{args.repeat} runs; {AS_SHIPPED}\n"
    )
    report.line(
        markdown_table(
            ["side", "seconds", "events/s", "runs (s)"],
            [
                [
                    side,
                    f"{value:.2f}",
                    f"{args.events / value:,.0f}",
                    ", ".join(f"{run[side]:.2f}" for run in runs),
                ]
                for side, value in seconds.items()
            ],
        )
    )
    report.line(
        f"\nweir STREAMING / BATCH time: "
        f"{seconds['weir-streaming'] / seconds['weir-batch']:.2f}x; weir BATCH / "
        f"native time: {seconds['weir-batch'] / seconds['native']:.2f}x"
    )
    if args.record:
        report.record()


if __name__ == "__main__":
    main()
