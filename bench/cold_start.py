"""A fresh process's first micro-batch: the README's job on weir beside a comparable native
Spark streaming query, each side in fresh processes, as it ships.

  weir    examples/temperature_jump_alert.py's job over 2,000 sensor readings (a
          generated source -> key_by(sensor) -> a KeyedProcessFunction with two ValueStates
          and an event-time timer per reading), collected on the driver
  native  the same 2,000 readings from one Parquet file -> groupBy(sensor) -> count and
          max(temperature) in update mode -> foreachBatch collecting them, availableNow;
          Spark's JVM defaults (C1 and C2), no class archive: Spark as it ships

For each side, --repeat fresh processes taking turns; each reports (medians printed):
  process    from spawning the process to its session being ready (interpreter, imports,
             JVM and SparkContext): fixed per process
  first      from submitting the query to the end of its first micro-batch (Spark's
             triggerExecution of batch 0, with queryPlanning and addBatch apart)
  job        from submitting to the end of the query (weir's reported job time)
  again      the same query a second time in the same process, submit to end: what a
             query costs once the process is warm
  wall       the whole process, spawn to exit
weir runs with its archive of Spark's classes (`weir warm-up` records it first when it is
missing) and from pyspark's home without its zips, as every weir job does.

  .venv/bin/python bench/cold_start.py [--repeat 3]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.append(ROOT)  # PYTHONPATH wins
sys.path.insert(0, os.path.join(ROOT, "examples"))  # (its sensors module, not bench's)
sys.path.append(os.path.join(ROOT, "bench"))

from report import Report, add_record_argument, markdown_table  # noqa: E402

READINGS = 2000
FIGURES = ("process", "first", "planning", "add_batch", "job", "again", "wall")


def _first_batch(progress: list) -> dict:
    first = next(p for p in progress if p["batchId"] == 0)["durationMs"]
    return {
        "first": first["triggerExecution"] / 1000,
        "planning": first["queryPlanning"] / 1000,
        "add_batch": first["addBatch"] / 1000,
    }


def weir_side(spawned: float) -> dict:
    import temperature_jump_alert as example
    from sensors import sensor_source
    from weir.datastream import StreamExecutionEnvironment
    from weir.spark.session import get_session

    figures = {}
    for run in ("first", "again"):
        env = StreamExecutionEnvironment.get_execution_environment()
        if run == "first":
            get_session(env)
            figures["process"] = time.time() - spawned
        alerts = []
        example.build(env, sensor_source(READINGS)).add_sink(
            lambda v, c, alerts=alerts: alerts.append(v)
        )
        started = time.time()
        client = env.execute_async("cold start")
        client.wait()
        if run == "first":
            figures.update(_first_batch(client.query.recentProgress), job=time.time() - started)
        else:
            figures["again"] = time.time() - started
        assert len(alerts) == 63, len(alerts)
    return figures


def native_side(spawned: float) -> dict:
    import pyarrow as pa
    import pyarrow.parquet as pq
    from pyspark.sql import SparkSession, functions as F
    from sensors import sensor_reading

    readings = [sensor_reading(i) for i in range(READINGS)]
    directory = tempfile.mkdtemp(prefix="bench-cold-")
    pq.write_table(
        pa.table(
            {
                "id": [r.id for r in readings],
                "timestamp": [r.timestamp for r in readings],
                "temperature": [r.temperature for r in readings],
            }
        ),
        os.path.join(directory, "part-0.parquet"),
    )
    spark = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.driver.memory", "2g")
        .config(
            "spark.sql.streaming.stateStore.providerClass",
            "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
        )
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    figures = {"process": time.time() - spawned}
    for run in ("first", "again"):
        rows = []
        started = time.time()
        query = (
            spark.readStream.schema("id string, timestamp long, temperature double")
            .parquet(directory)
            .groupBy("id")
            .agg(F.count("*").alias("n"), F.max("temperature").alias("hottest"))
            .writeStream.outputMode("update")
            .foreachBatch(lambda frame, _, rows=rows: rows.extend(frame.collect()))
            .option("checkpointLocation", tempfile.mkdtemp(prefix="bench-cold-cp-"))
            .trigger(availableNow=True)
            .start()
        )
        query.awaitTermination()
        if run == "first":
            figures.update(_first_batch(query.recentProgress), job=time.time() - started)
        else:
            figures["again"] = time.time() - started
        assert len(rows) == 10, len(rows)
    return figures


def _spawn(side: str) -> dict:
    spawned = time.time()
    done = subprocess.run(
        [sys.executable, __file__, "--side", side, "--spawned", repr(spawned)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{side} side failed:\n{done.stderr[-3000:]}")
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    figures["wall"] = time.time() - spawned
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--side", choices=("weir", "native"), help=argparse.SUPPRESS)
    parser.add_argument("--spawned", type=float, help=argparse.SUPPRESS)
    add_record_argument(parser)
    args = parser.parse_args()
    if args.side:
        side = weir_side if args.side == "weir" else native_side
        print(json.dumps(side(args.spawned)))
        return
    subprocess.run([sys.executable, "-m", "weir", "warm-up"], check=True, cwd=ROOT)
    runs = {"native": [], "weir": []}
    for _ in range(args.repeat):
        for side in ("native", "weir"):
            runs[side].append(_spawn(side))
            print(
                f"  {side:6s} " + " ".join(f"{k} {runs[side][-1][k]:.2f}" for k in FIGURES),
                flush=True,
            )
    report = Report("cold_start", "bench/cold_start.py")
    report.line(
        f"\nthe README's job ({READINGS:,} readings) in a fresh process, local[2]; "
        f"median of {args.repeat} processes per side, taking turns; seconds\n"
    )
    medians = {
        side: {k: statistics.median(r[k] for r in runs[side]) for k in FIGURES} for side in runs
    }
    rows = [[side] + [f"{medians[side][k]:.2f}" for k in FIGURES] for side in runs]
    rows.append(
        ["weir/native"] + [f"{medians['weir'][k] / medians['native'][k]:.2f}" for k in FIGURES]
    )
    report.line(
        markdown_table(
            [
                "side",
                "process",
                "first batch",
                "its planning",
                "its addBatch",
                "job",
                "again",
                "wall",
            ],
            rows,
        )
    )
    if args.record:
        report.record()


if __name__ == "__main__":
    main()
