"""Savepoints on Spark: taking one of N keys of ValueState and restoring it at another
parallelism, each against one micro-batch that touches every key group.

One process, one SparkSession, one run. The job: an unbounded DataGeneratorSource whose
micro-batch b reads records b*N .. (b+1)*N-1, record i being key i % N (every key, hence
every key group, once per batch) -> key_by -> a KeyedProcessFunction counting per key in a
ValueState (uid "counts"), emitting (key, count) for ~1,000 sampled keys (a driver sink).

  micro-batch   median triggerExecution of the steady batches (batch 1 on)
  trigger       trigger_savepoint while the job runs (its next batch competes for cores)
  stop          stop_with_savepoint: the wait for the query to rest and stop, then the write
  restore       a new job from the stop's savepoint at --restore-parallelism: its first
                batch (every key group's state through transformWithState's initialState,
                plus one record per key), and execute_async -> that batch's progress
  write parts   the parts of write_savepoint timed alone on the stopped checkpoint: the
                statestore read (+ toArrow), decoding the pages, the Parquet write

The restore is verified: every sampled key counts one more than the savepoint's rounds.
Timings are printed, never asserted; the target is each at most 2x the micro-batch.

  .venv/bin/python bench/savepoint.py --keys 20000                        # smoke run
  .venv/bin/python bench/savepoint.py                                     # 1,000,000 keys
  .venv/bin/python bench/savepoint.py --parallelism 2 --restore-parallelism 4
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # PYTHONPATH wins
sys.path.append(os.path.dirname(os.path.abspath(__file__)))

from keyed_state import KeyOf, weir_location  # noqa: E402

from weir.common import Configuration, WatermarkStrategy  # noqa: E402
from weir.datastream import KeyedProcessFunction, StreamExecutionEnvironment  # noqa: E402
from weir.datastream.connectors import DataGeneratorSource  # noqa: E402
from weir.datastream.state import ValueStateDescriptor  # noqa: E402
from weir.runtime.state.savepoint import SavepointWriter, load_savepoint  # noqa: E402
from weir.runtime.wire import decode_pages  # noqa: E402
from weir.spark import savepoints  # noqa: E402
from weir.spark.restore import last_committed_batch  # noqa: E402

POLL_S = 0.02


def make_session(parallelism):
    """weir's embedded session (Spark's own output to a log file), on local[2]."""
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from weir.spark.session import get_session

    env = StreamExecutionEnvironment.get_execution_environment().set_parallelism(parallelism)
    env.set_spark_config("spark.master", "local[2]")
    env.set_spark_config("spark.app.name", "weir-bench-savepoint")
    env.set_spark_config("spark.driver.memory", "4g")
    return get_session(env)


class SampledCount(KeyedProcessFunction):
    """Counts per key in a ValueState; emits (key, count) for keys divisible by `stride`."""

    def __init__(self, stride):
        self.stride = stride

    def open(self, runtime_context):
        self.count = runtime_context.get_state(ValueStateDescriptor("count"))

    def process_element(self, value, ctx):
        count = (self.count.value() or 0) + 1
        self.count.update(count)
        if value % self.stride == 0:
            yield value, count


def identity(value):
    return value


def start_job(spark, keys, parallelism, checkpoint, results, savepoint=None):
    configuration = Configuration()
    if savepoint is not None:
        configuration.set_string("execution.savepoint.path", savepoint)
    env = StreamExecutionEnvironment.get_execution_environment(configuration)
    env.set_spark_session(spark).set_parallelism(parallelism)
    env.get_checkpoint_config().set_checkpoint_storage_dir(checkpoint)
    source = DataGeneratorSource(KeyOf(keys), num_splits=parallelism, max_records_per_batch=keys)
    stream = env.from_source(source, WatermarkStrategy.no_watermarks(), "events").uid("events")
    stream.key_by(identity).process(SampledCount(max(1, keys // 1000))).uid("counts").add_sink(
        lambda value, ctx: results.append(value)
    )
    return env.execute_async("bench-savepoint")


def await_batches(client, count):
    """Waits until micro-batch `count` - 1 has committed; the progress of those with input
    (every batch reads records: the source always has more)."""
    while (client.query.lastProgress or {"batchId": -1})["batchId"] < count - 1:
        if not client.query.isActive:
            raise RuntimeError(f"the query ended: {client.query.exception()}")
        time.sleep(POLL_S)
    return [p for p in client.query.recentProgress if p["numInputRows"] > 0]


def trigger_ms(progress):
    return progress["durationMs"]["triggerExecution"]


def timed(function, *args):
    started = time.perf_counter()
    result = function(*args)
    return (time.perf_counter() - started) * 1000, result


def stop_with_savepoint(client, directory):
    """(total ms, ms until the query stopped, savepoint path)."""
    stopped = {}

    def watch():
        while client.query.isActive:
            time.sleep(POLL_S)
        stopped["at"] = time.perf_counter()

    watcher = threading.Thread(target=watch, daemon=True)
    started = time.perf_counter()
    watcher.start()
    path = client.stop_with_savepoint(False, directory).result()
    total = (time.perf_counter() - started) * 1000
    watcher.join()
    return total, (stopped["at"] - started) * 1000, path


def write_parts(spark, client, directory, repeats=3):
    """The parts of write_savepoint on the stopped job's checkpoint, each timed alone (median
    of `repeats`, ms): the statestore read into Arrow, decoding its pages, the Parquet write,
    and keyed_pages (the read and the decode together, as write_savepoint calls it)."""
    checkpoint, batch = client.checkpoint_dir, last_committed_batch(client.checkpoint_dir)
    times = {}

    def part(name, function, *args):
        runs = [timed(function, *args) for _ in range(repeats)]
        times[name] = statistics.median(ms for ms, _ in runs)
        return runs[-1][1]

    tables = part("statestore read + toArrow", read_pages, spark, checkpoint, batch)
    part(
        "decode pages",
        lambda: [
            decode_pages(blob) for table in tables for blob in table.column("pages").to_pylist()
        ],
    )
    pages = part("keyed_pages", savepoints.keyed_pages, spark, checkpoint, batch)
    runs = iter(range(repeats))
    part("Parquet write", lambda: write_keyed(os.path.join(directory, str(next(runs))), pages))
    return times


def write_keyed(path, pages):
    writer = SavepointWriter(path)
    for uid, rows in sorted(pages.items()):
        writer.write_keyed(uid, rows)


def read_pages(spark, checkpoint, batch):
    """The statestore read keyed_pages does, as Arrow tables (one per operator)."""
    operators = [
        row.operatorId for row in spark.read.format("state-metadata").load(checkpoint).collect()
    ]
    return [
        spark.read.format("statestore")
        .option("operatorId", operator)
        .option("stateVarName", savepoints.PAGES)
        .option("batchId", batch)
        .load(checkpoint)
        .select("user_map_value.pages")
        .toArrow()
        for operator in operators
    ]


def restore(spark, path, keys, parallelism, checkpoint):
    """{"async": execute_async ms, "wall": execute_async -> first progress ms, "first" and
    "second": the first two batches' durationMs}, and the sink's (key, count) pairs."""
    results = []
    started = time.perf_counter()
    client = start_job(spark, keys, parallelism, checkpoint, results, savepoint=path)
    async_ms = (time.perf_counter() - started) * 1000
    first = await_batches(client, 1)[0]
    wall_ms = (time.perf_counter() - started) * 1000
    second = await_batches(client, 2)[1]
    client.cancel()
    client.wait()
    return {
        "async": async_ms,
        "wall": wall_ms,
        "first": dict(first["durationMs"]),
        "second": dict(second["durationMs"]),
    }, results


def phases(duration_ms):
    """A batch's durationMs but its total as 'phase ms', largest first (10 ms and more)."""
    parts = sorted(
        ((ms, name) for name, ms in duration_ms.items() if name != "triggerExecution" and ms >= 10),
        reverse=True,
    )
    return ", ".join(f"{name} {ms}" for ms, name in parts)


def verify(results, rounds, keys):
    """Every sampled key counts rounds + 1 after the restored job's first batch."""
    stride = max(1, keys // 1000)
    sampled = set(range(0, keys, stride))
    first = {key for key, count in results if count == rounds + 1}
    wrong = sorted({(key, count) for key, count in results if count <= rounds})
    if first != sampled or wrong:
        raise AssertionError(
            f"restored counts: {len(first)} of {len(sampled)} sampled keys "
            f"at {rounds + 1}; counts at or below {rounds}: {wrong[:5]}"
        )
    return len(sampled)


def size_of(directory):
    return sum(
        os.path.getsize(os.path.join(root, name))
        for root, _, names in os.walk(directory)
        for name in names
    )


def ratio(ms, batch_ms):
    """'ms, ratio to the micro-batch, whether within the 2x target'."""
    verdict = "within 2x" if ms <= 2 * batch_ms else "over 2x"
    return f"{ms:9.0f} ms  {ms / batch_ms:5.2f}x  {verdict}"


def run(spark, args, workdir):
    """Runs the job, its savepoints and the restore; the figures, verified."""
    keys, batches = args.keys, args.batches
    client = start_job(spark, keys, args.parallelism, os.path.join(workdir, "ckpt-1"), [])
    progress = await_batches(client, batches)
    print(f"micro-batches (ms): {' '.join(str(trigger_ms(p)) for p in progress)}", flush=True)
    figures = {"batch": statistics.median(trigger_ms(p) for p in progress[1:batches])}
    figures["trigger"], _ = timed(
        lambda: client.trigger_savepoint(os.path.join(workdir, "sp-t")).result()
    )
    figures["stop"], figures["stop wait"], path = stop_with_savepoint(
        client, os.path.join(workdir, "sp-s")
    )
    figures["parts"] = write_parts(spark, client, os.path.join(workdir, "sp-again"))
    client.wait()
    saved = load_savepoint(path)
    position = saved.sources["events"]["pos"]
    assert position % keys == 0, f"savepoint at position {position}, not a multiple of {keys}"
    figures["restore"], results = restore(
        spark, path, keys, args.restore_parallelism, os.path.join(workdir, "ckpt-2")
    )
    figures["sampled"] = verify(results, position // keys, keys)
    figures["rounds"] = position // keys
    figures["bytes"] = size_of(path)
    figures["key groups"] = max(f["key_groups"] for f in saved.manifest["files"].values())
    return figures


def report(args, figures):
    batch, restored = figures["batch"], figures["restore"]
    first, rounds = restored["first"], figures["rounds"]
    print(
        f"\n{args.keys:,} keys ({figures['key groups']} key groups), parallelism "
        f"{args.parallelism} -> {args.restore_parallelism}, local[2], RocksDB, "
        f"weir from {weir_location()}"
    )
    print(f"micro-batch (median of {args.batches - 1} steady)  {batch:9.0f} ms")
    print(f"trigger_savepoint (job running)    {ratio(figures['trigger'], batch)}")
    print(f"stop_with_savepoint                {ratio(figures['stop'], batch)}")
    print(f"  of which the stop's wait         {figures['stop wait']:9.0f} ms")
    print(
        f"  of which the savepoint's write   {ratio(figures['stop'] - figures['stop wait'], batch)}"
    )
    print(f"restore: first batch               {ratio(first['triggerExecution'], batch)}")
    print(f"  its phases (ms): {phases(first)}")
    print(f"restore: execute_async -> 1st batch {ratio(restored['wall'], batch)}")
    print(f"  of which execute_async itself    {restored['async']:9.0f} ms")
    print(
        f"restored second batch (steady)     {restored['second']['triggerExecution']:9.0f} ms"
        f"   ({phases(restored['second'])})"
    )
    print(
        f"savepoint size                     {figures['bytes']:,} bytes "
        f"({figures['bytes'] / args.keys:.1f} per key)"
    )
    print(
        "write_savepoint's parts (stopped job, median of 3): "
        + ", ".join(f"{name} {ms:.0f} ms" for name, ms in figures["parts"].items())
    )
    print(
        f"verified: {figures['sampled']:,} sampled keys count {rounds + 1} after the "
        f"restored job's first batch (savepoint after {rounds} rounds of every key)"
    )


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--keys", type=int, default=1_000_000)
    parser.add_argument("--parallelism", type=int, default=2)
    parser.add_argument("--restore-parallelism", type=int, default=4)
    parser.add_argument(
        "--batches",
        type=int,
        default=4,
        help="micro-batches before the savepoints (the first is cold)",
    )
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    if args.batches < 2:
        raise SystemExit("--batches must be at least 2 (the first batch is cold)")
    workdir = tempfile.mkdtemp(prefix="bench-savepoint-")
    wall = time.perf_counter()
    spark = make_session(args.parallelism)
    try:
        report(args, run(spark, args, workdir))
        print(f"\ntotal wall time: {time.perf_counter() - wall:.1f} s")
    finally:
        spark.stop()
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
