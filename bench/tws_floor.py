"""Spark's own per-batch floor for a keyed Python operator, next to a native aggregation.

weir's keyed operators run in Spark's transformWithState (TWS, rows). This measures what
Spark charges per micro-batch for that, with no weir code involved, on tiny batches where
fixed costs dominate: the same files (KEYS keys, ROWS rows per file, one file per batch)
through
  native      withWatermark + groupBy(window(10 s), k).count()  (JVM only)
  tws-0calls  groupBy(k).transformWithState(a processor making no state calls), Spark's
              row-based form, as weir's keyed operators use it
  tws-2calls  ... reading and updating one ValueState per group and batch
  tws-4calls  ... and also replacing its event-time timer (list, delete, register)
  pandas-state groupBy(k).applyInPandasWithState doing what tws-4calls does (its state and
              event-time timeout travel with the group's rows: no calls back to the JVM)
and prints the median steady batch time (batches after the first, before the last) of each.

Run: `.venv/bin/python bench/tws_floor.py [keys] [rows per file]` (default 68 500).
"""

import os
import shutil
import statistics
import sys
import tempfile

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from keyed_state import make_session  # noqa: E402

FILES = 6
KINDS = ("native", "tws-0calls", "tws-2calls", "tws-4calls", "pandas-state")


def write_files(directory, keys, rows):
    os.makedirs(directory)
    for f in range(FILES):
        micros = (1_700_000_000_000 + f * 10_000 + np.arange(rows) * 10_000 // rows) * 1000
        path = os.path.join(directory, f"part-{f}.parquet")
        pq.write_table(
            pa.table(
                {
                    "k": (np.arange(rows) % keys).astype(np.int64),
                    "ts": pa.array(micros, pa.timestamp("us", tz="UTC")),
                }
            ),
            path,
        )
        os.utime(path, ns=(1_000_000_000 * (f + 1),) * 2)


def processor(calls):
    from pyspark.sql.streaming.stateful_processor import StatefulProcessor
    from pyspark.sql.types import LongType, StructField, StructType

    class Calls(StatefulProcessor):
        def init(self, handle):
            self.handle = handle
            self.state = handle.getValueState("s", StructType([StructField("n", LongType())]))

        def handleInputRows(self, key, rows, timerValues):
            count = sum(1 for _ in rows)
            if calls >= 2:
                old = self.state.get()
                self.state.update(((old[0] if old else 0) + count,))
            if calls >= 4:
                for timer in self.handle.listTimers():
                    self.handle.deleteTimer(timer)
                self.handle.registerTimer(timerValues.getCurrentWatermarkInMs() + 10_000)
            return iter([])

        def handleExpiredTimer(self, key, timerValues, expiredTimerInfo):
            return iter([])

        def close(self):
            pass

    return Calls()


def with_pandas_state(frame):
    import pandas as pd
    from pyspark.sql.streaming.state import GroupStateTimeout

    def count(key, frames, state):
        if state.hasTimedOut:
            state.remove()
            return
        total = sum(len(f) for f in frames)
        old = state.get if state.exists else (0,)
        state.update((old[0] + total,))
        state.setTimeoutTimestamp(state.getCurrentWatermarkMs() + 10_000)
        yield pd.DataFrame({"k": [key[0]]}).iloc[:0]

    return frame.groupBy("k").applyInPandasWithState(
        count, "k long", "n long", "append", GroupStateTimeout.EventTimeTimeout
    )


def steady_batch_ms(spark, source, kind):
    from pyspark.sql import functions as F
    from pyspark.sql.types import LongType, StructField, StructType, TimestampType

    schema = StructType([StructField("k", LongType()), StructField("ts", TimestampType())])
    frame = (
        spark.readStream.schema(schema)
        .option("maxFilesPerTrigger", 1)
        .parquet(source)
        .withWatermark("ts", "2 seconds")
    )
    if kind == "native":
        out = frame.groupBy(F.window("ts", "10 seconds"), "k").count()
    elif kind == "pandas-state":
        out = with_pandas_state(frame)
    else:
        out = frame.groupBy("k").transformWithState(
            statefulProcessor=processor(int(kind.split("-")[1][0])),
            outputStructType="k long",
            outputMode="Append",
            timeMode="EventTime",
        )
    checkpoint = tempfile.mkdtemp(prefix="tws-floor-")
    try:
        query = (
            out.writeStream.outputMode("append")
            .foreachBatch(lambda batch, batch_id: batch.count())
            .option("checkpointLocation", checkpoint)
            .trigger(availableNow=True)
            .start()
        )
        query.awaitTermination()
        times = [p["durationMs"]["triggerExecution"] for p in query.recentProgress]
    finally:
        shutil.rmtree(checkpoint, ignore_errors=True)
    return statistics.median(times[1:-1])


def main(keys=68, rows=500, repeat=3):
    spark = make_session()
    work = tempfile.mkdtemp(prefix="tws-floor-data-")
    try:
        source = os.path.join(work, "in")
        write_files(source, keys, rows)
        for kind in KINDS:  # warm-up
            steady_batch_ms(spark, source, kind)
        results = {kind: [] for kind in KINDS}
        for _ in range(repeat):  # the kinds take turns
            for kind in KINDS:
                results[kind].append(steady_batch_ms(spark, source, kind))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    native = statistics.median(results["native"])
    print(f"{keys} keys, {rows} rows per batch, local[2], shuffle partitions 2, RocksDB")
    print("| query | steady batch ms (median of runs) | vs native |\n|---|---|---|")
    for kind, times in results.items():
        median = statistics.median(times)
        print(
            f"| {kind} | {median:.0f} ({', '.join(f'{t:.0f}' for t in times)}) | "
            f"{median / native:.2f}x |"
        )


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
