"""Event-to-result latency of a keyed job, weir against native Spark, in steady state and
while catching up, with the micro-batches that make it; and what a richer pipeline costs
per micro-batch.

Each side in its own process with its own SparkSession (bench/keyed_state.py's: local[2],
shuffle partitions 2, RocksDB state store), as it ships (bench/engines.py).

Latency, per rate (events/s), each side running unbounded for --seconds:
  weir    a rate-limited source (record i is due at t0 + i/rate, and carries that time),
          read in as many splits as the engine's parallelism (2), as native's rate source
          reads in as many partitions -> key_by(i % keys) -> KeyedProcessFunction
          counting in a ValueState -> a sink on the driver
  native  Spark's rate source (its `timestamp` is the row's due time) -> key = value % keys
          -> groupBy(key).agg(count, max(timestamp)) in update mode -> foreachBatch
Two latencies, measured the same way on both sides:
  newest  per key and micro-batch, the time its result is seen minus the due time of the
          newest record in it (how fresh each key's result is: native's one row per key)
  record  per record, the time its result is seen minus its own due time; weir's are
          exact (one result per record); native's rows give a key's count and newest due
          time, and the rate source's due times are evenly spaced (record v is due at
          its start + v/rate), so the key's records in a batch were due newest - j*keys/rate
          for j below the batch's count. Spark's rate source offers whole seconds: a
          record waits until its second has passed.
A run catches up (its first results come late: the query starts, the first micro-batch
warms up) and then holds steady. Its steady state is measured from when it caught up: the
first result from which the newest-record latency stays at most twice the median of the
run's second half for 5 s; its catch-up time is how long that took from the start. Printed
per side: catch-up, both latencies' p50/p90/p99 and the newest-record p99/p90, and the
steady micro-batches (Spark's triggerExecution): their p50, p99 and largest, how many took
over twice the median, and where the slowest one's time went (its durations, and its input
against the median).

Micro-batch cost: the same bounded input (--cost-events in 4 micro-batches) through
  single    key_by -> process -> sink
  pipeline  key_by -> process (with a side output to a second sink) -> key_by -> process
            -> sink
reporting the median micro-batch duration of each and their ratio.

  .venv/bin/python bench/latency.py                       # 1,000 / 20,000 / 100,000 ev/s
  .venv/bin/python bench/latency.py --rates 1000 --seconds 20   # a quick run
"""

import argparse
import bisect
import datetime
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(ROOT)  # PYTHONPATH wins
sys.path.append(os.path.join(ROOT, "bench"))

from engines import AS_SHIPPED, Engines  # noqa: E402
from report import Report, add_record_argument, markdown_row, markdown_table  # noqa: E402

from weir.common import Types, WatermarkStrategy  # noqa: E402
from weir.datastream import KeyedProcessFunction, StreamExecutionEnvironment  # noqa: E402
from weir.datastream import OutputTag  # noqa: E402
from weir.datastream.connectors import DataGeneratorSource  # noqa: E402
from weir.datastream.state import ValueStateDescriptor  # noqa: E402
from weir.runtime.sources import SourceReader  # noqa: E402

SIDE = OutputTag("side")


class ScheduledReader(SourceReader):
    """Record i is due at t0 + i / rate (wall clock, shared by every process here) and is
    (key, due time in ms)."""

    bounded = False

    def __init__(self, rate, keys, t0):
        self.rate, self.keys, self.t0 = rate, keys, t0

    def split_count(self, start_pos, end_pos):
        return self.target_splits  # (the engine's parallelism)

    def available(self, start_pos):
        return max(start_pos, int((time.time() - self.t0) * self.rate))

    def read(self, lo, hi):
        rate, keys, t0_ms = self.rate, self.keys, self.t0 * 1000
        for i in range(lo, hi):
            yield (i % keys, int(t0_ms + i * 1000 / rate)), None


class Count(KeyedProcessFunction):
    def open(self, runtime_context):
        self.count = runtime_context.get_state(ValueStateDescriptor("count", Types.LONG()))

    def process_element(self, value, ctx):
        count = (self.count.value() or 0) + 1
        self.count.update(count)
        yield value[0], count, value[1]


class CountWithSide(Count):
    def process_element(self, value, ctx):
        for result in super().process_element(value, ctx):
            yield result
            if result[1] % 10 == 0:
                yield SIDE, result


PROGRESS_KEPT = "spark.sql.streaming.numRecentProgressUpdates"  # (Spark keeps 100)
SUSTAIN_S = 5  # a run has caught up once its latency stays low this long


def percentiles(values, qs=(0.5, 0.9, 0.99)):
    ordered = sorted(values)
    return [ordered[min(len(ordered) - 1, int(len(ordered) * q))] for q in qs]


def _batches(progress, stop_at: float) -> list:
    """(start s, triggerExecution ms, durations, input rows) of each micro-batch with
    input that ended before the run was stopped at `stop_at` (one the stopping overlaps
    is slowed by it)."""
    batches = [
        (
            _epoch_s(p["timestamp"]),
            p["durationMs"]["triggerExecution"],
            p["durationMs"],
            p["numInputRows"],
        )
        for p in progress
        if p["numInputRows"]
    ]
    return [b for b in batches if b[0] + b[1] / 1000 <= stop_at]


def _epoch_s(timestamp: str) -> float:
    return datetime.datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp()


def caught_up(results, floor: float):
    """When a run caught up: the first result from which every result of the next
    SUSTAIN_S seconds is at most twice `floor` (a first quick result may come while
    older records are still being worked off)."""
    late = [seen for seen, latency in results if latency > 2 * floor]
    end, next_late = results[-1][0], 0
    for seen, _ in results:
        if seen + SUSTAIN_S > end:
            return None
        while next_late < len(late) and late[next_late] < seen:
            next_late += 1
        if next_late == len(late) or late[next_late] >= seen + SUSTAIN_S:
            return seen
    return None


def steady_figures(results, records, batches, start) -> dict:
    """`results` (time seen, newest-record latency ms) and `records` (time seen, latency
    ms of each record) of a run started at `start`, and its micro-batches: catch-up and
    steady latency and micro-batch figures (see the module's doc). Results seen after the
    last of `batches` are left out (a batch the run was stopped in)."""
    if batches:
        end = batches[-1][0] + batches[-1][1] / 1000
        results = [r for r in results if r[0] <= end]
        records = [r for r in records if r[0] <= end]
    if len(results) < 10:
        return {}
    floor = statistics.median(latency for _, latency in results[len(results) // 2 :])
    since = caught_up(results, floor)
    if since is None:
        return {}
    steady = [latency for seen, latency in results if seen >= since]
    runs = [b for b in batches if b[0] >= since]
    figures = {
        "catch_up_s": since - start,
        "latency": percentiles(steady),
        "records": percentiles([latency for seen, latency in records if seen >= since]),
    }
    if runs:
        durations = [b[1] for b in runs]
        median = statistics.median(durations)
        slowest = max(runs, key=lambda b: b[1])
        rows = statistics.median(b[3] for b in runs)
        figures.update(
            batches=len(runs),
            batch=percentiles(durations, (0.5, 0.99)) + [slowest[1]],
            over_twice=sum(d > 2 * median for d in durations),
            slowest={k: v for k, v in slowest[2].items() if v},
            slowest_rows=slowest[3] / rows,
            slowest_at_s=slowest[0] - start,
        )
    return figures


def newest_per_key(seen_results, batches):
    """(time seen, newest-record latency ms) per key and micro-batch, of `seen_results`
    (time seen, key, due ms) each seen during one of `batches` (start s, duration ms, ...)."""
    starts = [b[0] for b in batches]
    newest: dict = {}
    for seen, key, due in seen_results:
        slot = (bisect.bisect_right(starts, seen), key)
        if slot not in newest or due >= newest[slot][1]:
            newest[slot] = (seen, due)
    return sorted((seen, seen * 1000 - due) for seen, due in newest.values())


def weir_latency(spark, rate, keys, seconds):
    spark.conf.set(PROGRESS_KEPT, "100000")
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_spark_session(spark).set_parallelism(2)
    seen_results = []

    def sink(value, ctx):
        seen_results.append((time.time(), value[0], value[2]))

    reader = ScheduledReader(rate, keys, time.time())
    env.from_source(reader, WatermarkStrategy.no_watermarks(), "events").key_by(
        lambda v: v[0]
    ).process(Count()).add_sink(sink)
    start = time.time()
    client = env.execute_async("bench-latency")
    time.sleep(seconds)
    stop_at = time.time()
    client.cancel()  # (then its progress: building it while the query runs slows a batch)
    progress = client.query.recentProgress
    seen, batches = list(seen_results), _batches(progress, stop_at)
    records = [(at, at * 1000 - due) for at, _, due in seen]
    return steady_figures(newest_per_key(seen, batches), records, batches, start)


def native_latency(spark, rate, keys, seconds):
    from pyspark.sql import functions as F

    spark.conf.set(PROGRESS_KEPT, "100000")
    rows = []  # (time seen, key, count, newest due ms), expanded after the run

    def write(frame, batch_id):  # every batch is read: its state must be committed
        table = frame.select("key", "count", F.unix_millis("newest")).toArrow()
        now = time.time()
        rows.extend((now, *row) for row in zip(*(c.to_pylist() for c in table.columns)))

    counts = (
        spark.readStream.format("rate")
        .option("rowsPerSecond", rate)
        .load()
        .withColumn("key", F.col("value") % keys)
        .groupBy("key")
        .agg(F.count("*").alias("count"), F.max("timestamp").alias("newest"))
    )
    start = time.time()
    query = counts.writeStream.outputMode("update").foreachBatch(write).start()
    time.sleep(seconds)
    stop_at = time.time()
    query.stop()
    progress = query.recentProgress
    results, records = native_latencies(list(rows), keys * 1000 / rate)
    return steady_figures(results, records, _batches(progress, stop_at), start)


def native_latencies(rows, spacing_ms):
    """Native's (time seen, newest-record latency) per row and (time seen, latency) per
    record, of its rows (time seen, key, count so far, newest due ms): a key's records
    are due `spacing_ms` apart (the rate source's), going back from the newest, as many
    as its count grew."""
    results, records, totals = [], [], {}
    for seen, key, count, newest in rows:
        results.append((seen, seen * 1000 - newest))
        new = count - totals.get(key, 0)
        totals[key] = count
        records.extend((seen, seen * 1000 - newest + j * spacing_ms) for j in range(new))
    return results, records


def batch_cost(spark, events, keys, shape):
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_spark_session(spark).set_parallelism(2)
    source = DataGeneratorSource(
        lambda i: (i % keys, i), count=events, num_splits=2, max_records_per_batch=-(-events // 4)
    )
    stream = env.from_source(source, WatermarkStrategy.no_watermarks(), "events")
    sink = []
    if shape == "single":
        stream.key_by(lambda v: v[0]).process(Count()).add_sink(lambda v, c: sink.append(v))
    else:
        first = stream.key_by(lambda v: v[0]).process(CountWithSide())
        first.get_side_output(SIDE).add_sink(lambda v, c: sink.append(v))
        first.key_by(lambda v: v[1] % keys).process(Count()).add_sink(lambda v, c: sink.append(v))
    client = env.execute_async(f"bench-cost-{shape}")
    client.wait()
    durations = [
        p["durationMs"]["triggerExecution"]
        for p in client.query.recentProgress
        if p["numInputRows"]
    ]
    return statistics.median(durations)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rates", default="1000,20000,100000")
    parser.add_argument("--keys", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--cost-events", type=int, default=200_000)
    add_record_argument(parser)
    args = parser.parse_args()
    engines = Engines()
    try:
        report = measure(engines, args)
    finally:
        engines.close()
    if args.record:
        report.record()


HEADER = [
    "events/s",
    "side",
    "catch-up s",
    "newest p50 ms",
    "newest p90 ms",
    "newest p99 ms",
    "p99/p90",
    "record p50 ms",
    "record p90 ms",
    "record p99 ms",
    "batches",
    "batch p50 ms",
    "batch p99 ms",
    "largest ms",
    "over 2x median",
]


def _cells(figures: dict) -> list:
    if not figures:
        return ["-"] * (len(HEADER) - 2)
    p50, p90, p99 = figures["latency"]
    cells = [
        f"{figures['catch_up_s']:.1f}",
        f"{p50:,.0f}",
        f"{p90:,.0f}",
        f"{p99:,.0f}",
        f"{p99 / p90:.2f}",
        *(f"{ms:,.0f}" for ms in figures["records"]),
    ]
    if "batches" not in figures:
        return cells + ["-"] * 5
    return (
        cells
        + [str(figures["batches"])]
        + [f"{d:,.0f}" for d in figures["batch"]]
        + [str(figures["over_twice"])]
    )


def _slowest(rate: int, side: str, figures: dict) -> str:
    spent = ", ".join(
        f"{k} {v:,}" for k, v in sorted(figures["slowest"].items(), key=lambda kv: -kv[1])
    )
    return (
        f"- {rate:,} ev/s, {side}: the slowest steady micro-batch ({spent} ms), "
        f"{figures['slowest_at_s']:.0f} s into the run, had {figures['slowest_rows']:.2f}x "
        "the median batch's input"
    )


def _ratios(rate: int, weir: dict, native: dict) -> str:
    return (
        f"- {rate:,} ev/s, weir/native p99: newest record "
        f"{weir['latency'][2] / native['latency'][2]:.2f}x, every record "
        f"{weir['records'][2] / native['records'][2]:.2f}x (native's records wait for "
        "their second to pass: the rate source offers whole seconds)"
    )


def measure(engines, args) -> Report:
    report = Report("latency", "bench/latency.py")
    report.line(
        f"latency: {args.keys} keys, {args.seconds:.0f} s per run, steady from when "
        f"the run caught up; local[2], shuffle partitions 2, RocksDB state store; "
        f"{AS_SHIPPED}\n"
    )
    report.line(markdown_table(HEADER, []))
    slowest, ratios = [], []
    for rate in [int(r) for r in args.rates.split(",")]:
        sides = {}
        for side, engine, run in (
            ("native", engines.native, native_latency),
            ("weir", engines.weir, weir_latency),
        ):
            figures = sides[side] = engine(run, rate, args.keys, args.seconds)
            report.line(markdown_row([f"{rate:,}", side, *_cells(figures)]))
            if figures.get("slowest"):
                slowest.append(_slowest(rate, side, figures))
        if sides["native"] and sides["weir"]:
            ratios.append(_ratios(rate, sides["weir"], sides["native"]))
    report.line("\n" + "\n".join(ratios + slowest))
    single = engines.weir(batch_cost, args.cost_events, args.keys, "single")
    pipeline = engines.weir(batch_cost, args.cost_events, args.keys, "pipeline")
    report.line(
        f"\nmicro-batch cost, {args.cost_events:,} events in 4 batches (median "
        f"batch): single keyed operator {single:,.0f} ms, key_by->process->key_by->"
        f"process with a side output to a second sink {pipeline:,.0f} ms, ratio "
        f"{pipeline / single:.2f}"
    )
    return report


if __name__ == "__main__":
    main()
