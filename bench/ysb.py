"""YSB-shaped windowed count: weir (PyFlink-style job) against native Spark SQL.

One run; each side in its own process with its own SparkSession (bench/keyed_state.py's:
local[2], shuffle partitions 2, RocksDB state store), as it ships (bench/engines.py).
For each campaign count, the same generated ad events (examples/ad_campaign_counts.py:
seeded numpy, Parquet files read one per micro-batch) go through the Yahoo Streaming
Benchmark's job on both engines:

  keep event_type == "view" -> ad_id -> campaign_id through a lookup table -> count per
  campaign in 10 s tumbling event-time windows, watermark 2 s behind the largest event time

  native  readStream.parquet (maxFilesPerTrigger) -> filter -> broadcast join with a static
          (cached) lookup DataFrame -> withWatermark("event_ts", "2 seconds") ->
          groupBy(window(event_ts, "10 seconds"), campaign_id).count(), append mode,
          availableNow, results collected through foreachBatch (toArrow)
  weir    ad_campaign_counts.build: FileSource.for_parquet -> bounded out-of-orderness 2 s ->
          filter -> map (lookup in a numpy table) -> key_by -> TumblingEventTimeWindows
          -> aggregate(Count(), ProcessWindowFunction adding the window bounds), collected by
          a sink on the driver

  weir SQL (--sql) the same job in Flink SQL on weir (YSB_SQL): a `filesystem` table in
          the `parquet` format (`source.max-files-per-batch` as above) with a computed
          TO_TIMESTAMP_LTZ(event_time, 3) and a 2 s watermark, a view of the views with
          the campaign looked up by a Python function (`campaign_of`), and a TUMBLE
          window aggregation COUNT(*) per campaign, collected with execute().collect()

The lookup table has 10 ads per campaign (YSB's ratio) for 100 campaigns and 1 ad per
campaign for 1,000,000 campaigns (10 would make a 10M-entry table, 40 MB shipped in every
weir task and an 80+ MB broadcast per native batch, measuring the table rather than the job).

Checks (exit status 1 on any mismatch): the expected count of EVERY (campaign, window) is
computed directly with numpy from the generated data. weir (and weir SQL) must match it exactly (it
closes every window at the end of input, Flink's +infinity watermark). Spark's append mode
never closes the windows still open under its final watermark (max event time - 2 s), so
every window Spark emitted must have the expected count, and the windows it did not emit
must be exactly those whose end is after its final watermark; those are the windows only
weir emitted.

Times run from query start to its end (data generation and file writing excluded), after a
small warm-up run of both sides. Each engine runs --repeat times (default 3, taking turns)
and the table uses the median time: on this machine one run of either engine varies by up
to ~25%. Events/s count every event read (views are ~1/3 of them).

  .venv/bin/python bench/ysb.py --events 20000 --campaigns 100        # smoke run
  .venv/bin/python bench/ysb.py                                       # full size
"""

import argparse
import datetime
import os
import shutil
import statistics
import sys
import tempfile
import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(ROOT)  # PYTHONPATH wins
sys.path.append(os.path.join(ROOT, "examples"))

from ad_campaign_counts import (  # noqa: E402
    WINDOW_MS,
    build,
    event_source,
    generate_events,
    write_event_files,
)
from engines import AS_SHIPPED, Engines  # noqa: E402
from keyed_state import batch_summary, weir_location  # noqa: E402
from report import Report, add_record_argument, markdown_table  # noqa: E402

from weir.datastream import StreamExecutionEnvironment  # noqa: E402

EVENT_SCHEMA = (
    "user_id long, page_id long, ad_id long, ad_type string, event_type string, "
    "event_time long, ip string"
)


# -- reference --------------------------------------------------------------------------------
def expected_counts(events: pa.Table, campaign_of_ad: np.ndarray) -> dict:
    """{(campaign_id, window_start): views} of every window, straight from the data."""
    views = pc.equal(events.column("event_type"), "view").to_numpy(zero_copy_only=False)
    ad_id = events.column("ad_id").to_numpy()[views]
    event_time = events.column("event_time").to_numpy()[views]
    campaign = campaign_of_ad[ad_id].astype(np.int64)
    start = event_time - event_time % WINDOW_MS
    first = int(start.min())
    slots = int(start.max() - first) // WINDOW_MS + 1
    combined, counts = np.unique(
        campaign * slots + (start - first) // WINDOW_MS, return_counts=True
    )
    return {
        (int(c // slots), first + int(c % slots) * WINDOW_MS): int(n)
        for c, n in zip(combined, counts)
    }


def as_windows(rows, label, problems) -> dict:
    """{(campaign_id, window_start): count} of (campaign, start, end, count) rows."""
    out = {}
    for campaign_id, start, end, count in rows:
        if end - start != WINDOW_MS:
            problems.append(f"{label}: window [{start}, {end}) is not {WINDOW_MS} ms long")
        if (campaign_id, start) in out:
            problems.append(f"{label}: campaign {campaign_id} window {start} emitted twice")
        out[(campaign_id, start)] = count
    return out


def wrong_counts(got: dict, expected: dict) -> list:
    return [(k, n, expected.get(k)) for k, n in got.items() if expected.get(k) != n]


def check(native_rows, native_watermark, weir_rows, expected, sql_rows=None) -> tuple:
    """(problems, summary): both engines (and weir's SQL job, `sql_rows`) against the
    reference, as the docstring says."""
    problems = []
    native = as_windows(native_rows, "native", problems)
    weir = as_windows(weir_rows, "weir", problems)
    exact = [("weir", weir)] + (
        [] if sql_rows is None else [("weir SQL", as_windows(sql_rows, "weir SQL", problems))]
    )
    for label, got in [("native", native)] + exact:
        wrong = wrong_counts(got, expected)
        if wrong:
            problems.append(
                f"{label}: {len(wrong)} windows with a wrong or unexpected count, "
                f"e.g. (campaign, start), got, expected: {wrong[:3]}"
            )
    for label, got in exact:
        missing = expected.keys() - got.keys()
        if missing:
            problems.append(
                f"{label}: {len(missing)} windows never emitted, e.g. {sorted(missing)[:3]}"
            )
    open_at_end = {k for k in expected if k[1] + WINDOW_MS > native_watermark}
    not_emitted = expected.keys() - native.keys()
    if not_emitted != open_at_end:
        problems.append(
            f"native: did not emit {len(not_emitted)} windows, but "
            f"{len(open_at_end)} were still open under its final watermark "
            f"{native_watermark}; difference e.g. "
            f"{sorted(not_emitted ^ open_at_end)[:3]}"
        )
    only_weir = weir.keys() - native.keys()
    if only_weir != open_at_end:
        problems.append(
            f"weir emitted {len(only_weir)} windows native did not; "
            f"{len(open_at_end)} were open under native's final watermark"
        )
    summary = {
        "windows_expected": len(expected),
        "windows_native": len(native),
        "windows_weir": len(weir),
        "native_open": len(open_at_end),
        "time_windows": (
            len({s for _, s in expected}),
            len({s for _, s in native}),
            len({s for _, s in weir}),
        ),
    }
    return problems, summary


# -- native -----------------------------------------------------------------------------------
def write_lookup(campaign_of_ad, directory) -> str:
    """The static ad_id -> campaign_id table, as a Parquet file for the native side."""
    path = os.path.join(directory, "lookup.parquet")
    pq.write_table(
        pa.table(
            {
                "ad_id": np.arange(len(campaign_of_ad), dtype=np.int64),
                "campaign_id": campaign_of_ad.astype(np.int64),
            }
        ),
        path,
    )
    return path


_LOOKUPS = {}  # the native side's cached lookup DataFrames, by path


def cache_lookup(spark, path) -> None:
    """Caches the lookup DataFrame before any query is timed."""
    frame = _LOOKUPS[path] = spark.read.parquet(path).cache()
    frame.count()


def uncache_lookup(spark, path) -> None:
    _LOOKUPS.pop(path).unpersist()


def run_to_end(frame, columns, output_mode="append"):
    """Runs streaming `frame` on the availableNow trigger, collecting its rows through
    foreachBatch (toArrow); returns (seconds from start() to the end, progress, rows as
    tuples of `columns`)."""
    checkpoint = tempfile.mkdtemp(prefix="bench-native-ckpt-")
    tables = []
    try:
        started = time.perf_counter()
        query = (
            frame.writeStream.outputMode(output_mode)
            .foreachBatch(lambda batch, batch_id: tables.append(batch.toArrow()))
            .option("checkpointLocation", checkpoint)
            .trigger(availableNow=True)
            .start()
        )
        query.awaitTermination()
        seconds = time.perf_counter() - started
        progress = query.recentProgress
    finally:
        shutil.rmtree(checkpoint, ignore_errors=True)
    rows = [row for table in tables for row in zip(*(table.column(c).to_pylist() for c in columns))]
    return seconds, progress, rows


def run_native(spark, events_dir, lookup_path, files_per_batch):
    """Returns (seconds, progress, rows, final watermark in ms)."""
    from pyspark.sql import functions as F

    lookup = _LOOKUPS[lookup_path]
    views = (
        spark.readStream.schema(EVENT_SCHEMA)
        .option("maxFilesPerTrigger", files_per_batch)
        .parquet(events_dir)
        .filter(F.col("event_type") == "view")
        .select("ad_id", "event_time")
    )
    counts = (
        views.join(F.broadcast(lookup), "ad_id")
        .withColumn("event_ts", F.timestamp_millis("event_time"))
        .withWatermark("event_ts", "2 seconds")
        .groupBy(F.window("event_ts", "10 seconds"), "campaign_id")
        .count()
        .select(
            "campaign_id",
            F.unix_millis(F.col("window.start")).alias("window_start"),
            F.unix_millis(F.col("window.end")).alias("window_end"),
            "count",
        )
    )
    seconds, progress, rows = run_to_end(
        counts, ("campaign_id", "window_start", "window_end", "count")
    )
    return seconds, progress, rows, final_watermark(progress)


def final_watermark(progress) -> int:
    """The largest watermark (epoch ms) in a query's progress."""
    marks = [p["eventTime"]["watermark"] for p in progress if "watermark" in p.get("eventTime", {})]
    return max(
        int(datetime.datetime.fromisoformat(m.replace("Z", "+00:00")).timestamp() * 1000)
        for m in marks
    )


# -- weir -------------------------------------------------------------------------------------
def run_weir(spark, events_dir, campaign_of_ad, files_per_batch):
    """Returns (seconds, progress, rows)."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_spark_session(spark).set_parallelism(2)
    rows = []
    build(env, event_source(events_dir, files_per_batch), campaign_of_ad).add_sink(
        lambda value, ctx: rows.append(value)
    )
    started = time.perf_counter()
    client = env.execute_async("bench-ysb")
    client.wait()
    seconds = time.perf_counter() - started
    progress = client.query.recentProgress if client.query is not None else []
    return seconds, progress, rows


YSB_SQL = """
SELECT campaign_id, window_start, window_end, COUNT(*) AS views
FROM TABLE(TUMBLE(TABLE views, DESCRIPTOR(event_ts), INTERVAL '10' SECOND))
GROUP BY campaign_id, window_start, window_end"""


def run_weir_sql(spark, events_dir, campaign_of_ad, files_per_batch):
    """The same job in Flink SQL (a Python function looks the campaign up, as a PyFlink
    user would write YSB's lookup); returns (seconds, progress (none), rows)."""
    from weir.table import DataTypes, StreamTableEnvironment
    from weir.table.udf import udf

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_spark_session(spark).set_parallelism(2)
    t_env = StreamTableEnvironment.create(env)
    t_env.execute_sql(f"""
        CREATE TABLE events (user_id BIGINT, page_id BIGINT, ad_id BIGINT, ad_type STRING,
          event_type STRING, event_time BIGINT, ip STRING,
          event_ts AS TO_TIMESTAMP_LTZ(event_time, 3),
          WATERMARK FOR event_ts AS event_ts - INTERVAL '2' SECOND)
        WITH ('connector' = 'filesystem', 'path' = '{events_dir}', 'format' = 'parquet',
              'source.max-files-per-batch' = '{files_per_batch}')""")
    campaigns = campaign_of_ad.tolist()
    t_env.create_temporary_function(
        "campaign_of", udf(lambda ad_id: campaigns[ad_id], result_type=DataTypes.BIGINT())
    )
    t_env.execute_sql(
        "CREATE TEMPORARY VIEW views AS SELECT campaign_of(ad_id) AS "
        "campaign_id, event_ts FROM events WHERE event_type = 'view'"
    )
    started = time.perf_counter()
    with t_env.execute_sql(YSB_SQL).collect() as results:
        rows = [(r[0], millis_of(r[1]), millis_of(r[2]), r[3]) for r in results]
    return time.perf_counter() - started, [], rows


def millis_of(stamp) -> int:
    """Epoch ms of a window bound (a TIMESTAMP's wall clock as UTC)."""
    return int(stamp.replace(tzinfo=datetime.timezone.utc).timestamp() * 1000)


# -- driver -----------------------------------------------------------------------------------
def run_case(engines, events, campaigns, args, workdir, verbose):
    """Both engines on one generated data set; returns the row of the table."""
    generated = time.perf_counter()
    data, campaign_of_ad = generate_events(events, campaigns, span_s=args.span)
    expected = expected_counts(data, campaign_of_ad)
    events_dir = write_event_files(
        data, os.path.join(workdir, f"events-{events}-{campaigns}"), args.files
    )
    lookup = write_lookup(campaign_of_ad, workdir)
    engines.native(cache_lookup, lookup)
    del data
    if verbose:
        print(
            f"  data: {events:,} events, {campaigns:,} campaigns, {len(campaign_of_ad):,} ads, "
            f"{args.files} files, generated in {time.perf_counter() - generated:.1f} s",
            flush=True,
        )
    times = {"native": [], "weir": [], "sql": []}
    problems = []
    for _ in range(args.repeat):  # the engines take turns, so both see the same machine
        native_s, native_progress, native_rows, watermark = engines.native(
            run_native, events_dir, lookup, args.files_per_batch
        )
        weir_s, weir_progress, weir_rows = engines.weir(
            run_weir, events_dir, campaign_of_ad, args.files_per_batch
        )
        sql_rows = None
        if args.sql:
            sql_s, _, sql_rows = engines.weir(
                run_weir_sql, events_dir, campaign_of_ad, args.files_per_batch
            )
            times["sql"].append(sql_s)
        run_problems, summary = check(native_rows, watermark, weir_rows, expected, sql_rows)
        problems += [p for p in run_problems if p not in problems]
        times["native"].append(native_s)
        times["weir"].append(weir_s)
        if verbose:
            for side, seconds, progress in (
                ("native", native_s, native_progress),
                ("weir", weir_s, weir_progress),
            ):
                text, batch_ms = batch_summary(progress)
                print(
                    f"  {side:6s} C={campaigns:>9,}  {seconds:8.2f} s  "
                    f"{events / seconds:>10,.0f} ev/s  batches(rows@ms): {text}  "
                    f"(sum {batch_ms} ms)",
                    flush=True,
                )
    engines.native(uncache_lookup, lookup)
    native_s, weir_s = statistics.median(times["native"]), statistics.median(times["weir"])
    if verbose:
        print(
            f"  median of {args.repeat}: native {native_s:.2f} s, weir {weir_s:.2f} s", flush=True
        )
        tw = summary["time_windows"]
        print(
            f"  check: expected {summary['windows_expected']:,} (campaign, window) counts "
            f"over {tw[0]} 10 s windows; native emitted {summary['windows_native']:,} (over "
            f"{tw[1]} windows; {summary['native_open']:,} still open under its final "
            f"watermark {watermark}), weir emitted {summary['windows_weir']:,} (over {tw[2]} "
            f"windows): "
            f"{'OK' if not problems else 'MISMATCH'}",
            flush=True,
        )
        for problem in problems:
            print(f"  MISMATCH {problem}", flush=True)
    shutil.rmtree(events_dir, ignore_errors=True)
    sql = events / statistics.median(times["sql"]) if times["sql"] else None
    return {
        "campaigns": campaigns,
        "events": events,
        "native": events / native_s,
        "weir": events / weir_s,
        "native_s": native_s,
        "weir_s": weir_s,
        "sql": sql,
        "problems": problems,
        **summary,
    }


def table(rows) -> str:
    sql = rows and rows[0]["sql"] is not None
    header = (
        ["campaigns", "events", "native ev/s", "weir ev/s", "weir/native"]
        + (["weir SQL ev/s", "weir SQL/native"] if sql else [])
        + ["windows native", "windows weir", "windows expected", "check"]
    )
    return markdown_table(
        header,
        [
            [
                f"{r['campaigns']:,}",
                f"{r['events']:,}",
                f"{r['native']:,.0f}",
                f"{r['weir']:,.0f}",
                f"{r['weir'] / r['native']:.3f}",
            ]
            + ([f"{r['sql']:,.0f}", f"{r['sql'] / r['native']:.3f}"] if sql else [])
            + [
                f"{r['windows_native']:,}",
                f"{r['windows_weir']:,}",
                f"{r['windows_expected']:,}",
                "OK" if not r["problems"] else "FAIL",
            ]
            for r in rows
        ],
    )


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--events",
        type=int,
        default=1_000_000,
        help="events per campaign count; the default takes ~2.5 min for both "
        "campaign counts and 3 repeats on 2 cores",
    )
    parser.add_argument(
        "--campaigns", default="100,1000000", help="comma-separated campaign counts"
    )
    parser.add_argument(
        "--span", type=float, default=400.0, help="seconds of event time the events cover"
    )
    parser.add_argument("--files", type=int, default=4, help="Parquet files of events")
    parser.add_argument(
        "--files-per-batch", type=int, default=1, help="files per micro-batch, on both engines"
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="runs of each engine per campaign count (taking turns); the "
        "table shows the median time",
    )
    parser.add_argument("--warmup-events", type=int, default=20_000)
    parser.add_argument(
        "--sql",
        action="store_true",
        help="also run the job as weir's Flink SQL (bench.ysb.YSB_SQL)",
    )
    parser.add_argument("--quiet", action="store_true", help="only print the table")
    add_record_argument(parser)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    campaigns_list = [int(c) for c in args.campaigns.split(",")]
    workdir = tempfile.mkdtemp(prefix="bench-ysb-")
    wall = time.perf_counter()
    engines = Engines()
    failed = False
    try:
        started = time.perf_counter()
        warmup = run_case(
            engines,
            args.warmup_events,
            100,
            argparse.Namespace(**{**vars(args), "repeat": 1}),
            workdir,
            False,
        )
        failed |= bool(warmup["problems"])
        mismatch = "; ".join(warmup["problems"])
        print(
            f"session + warm-up ({args.warmup_events:,} events): "
            f"{time.perf_counter() - wall:.1f} s (warm-up {time.perf_counter() - started:.1f} s"
            f"{', MISMATCH: ' + mismatch if mismatch else ''})",
            flush=True,
        )
        rows = []
        for campaigns in campaigns_list:
            row = run_case(engines, args.events, campaigns, args, workdir, not args.quiet)
            failed |= bool(row["problems"])
            rows.append(row)
        report = Report("ysb", "bench/ysb.py")
        report.line(
            f"\n{args.events:,} events over {args.span:.0f} s of event time, "
            f"{args.files} files, {args.files_per_batch} per micro-batch, median of "
            f"{args.repeat}, local[2], shuffle partitions 2, RocksDB state store; "
            f"{AS_SHIPPED}\n"
        )
        report.line(table(rows))
        report.line(
            "\nwindows = (campaign, 10 s window) counts emitted; native leaves the "
            "windows still open under its final watermark unemitted"
        )
        print(f"weir from {weir_location()}")
        if args.record and not failed:
            report.record()
        print(f"total wall time: {time.perf_counter() - wall:.1f} s")
    finally:
        engines.close()
        shutil.rmtree(workdir, ignore_errors=True)
    if failed:
        print("RESULT CHECK FAILED", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
