"""Soak: an unbounded job with a steady key set runs for a long time; its state size and
its processes' memory must stay flat (not in CI: it runs for --minutes).

The job: a paced generator of (key, timestamp) over --keys keys -> key_by -> a running
count in ValueState, and 1 s tumbling event-time windows counting per key -> a sink that
keeps only counts. Every --every seconds it prints the micro-batches so far, the input
rate, Spark's state rows and state memory (its progress), the checkpoint directory's size
and the resident memory of this process and every process it started (the JVM, Spark's
Python workers), then a verdict comparing the last third of the run with the second.

  .venv/bin/python bench/soak.py --minutes 2 --every 15      # a short look
  .venv/bin/python bench/soak.py                              # 30 minutes
"""

import argparse
import os
import sys
import tempfile
import time

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # PYTHONPATH wins

from weir.common import Duration, Time, WatermarkStrategy  # noqa: E402
from weir.datastream import KeyedProcessFunction, StreamExecutionEnvironment  # noqa: E402
from weir.datastream.connectors import DataGeneratorSource  # noqa: E402
from weir.datastream.functions import SinkFunction  # noqa: E402
from weir.datastream.state import ValueStateDescriptor  # noqa: E402
from weir.datastream.window import TumblingEventTimeWindows  # noqa: E402


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--every", type=float, default=60, help="seconds between samples")
    parser.add_argument("--keys", type=int, default=10_000)
    parser.add_argument("--rate", type=int, default=5_000, help="events per second")
    return parser.parse_args()


class Count(KeyedProcessFunction):
    def open(self, runtime_context):
        self.count = runtime_context.get_state(ValueStateDescriptor("count"))

    def process_element(self, value, ctx):
        self.count.update((self.count.value() or 0) + 1)
        return ()


class Discard(SinkFunction):
    def invoke(self, value, context):
        pass


def start(args, checkpoint: str):
    keys, rate = args.keys, args.rate
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2).set_spark_config("spark.master", "local[2]")
    env.enable_checkpointing(1000)
    env.get_checkpoint_config().set_checkpoint_storage_dir(checkpoint)
    source = DataGeneratorSource(
        lambda i: (i % keys, i * 1000 // rate),
        records_per_second=rate,
        max_records_per_batch=rate * 2,
    )
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_millis(0)
    ).with_timestamp_assigner(lambda e, ts: e[1])
    events = env.from_source(source, strategy, "events").uid("events")
    events.key_by(lambda e: e[0]).process(Count()).uid("counts").add_sink(Discard())
    (
        events.key_by(lambda e: e[0])
        .window(TumblingEventTimeWindows.of(Time.seconds(1)))
        .reduce(lambda a, b: (a[0], a[1]))
        .uid("windows")
        .add_sink(Discard())
    )
    return env.execute_async("soak")


def resident_mb(root: int) -> float:
    """Resident memory of `root` and every process below it, in MB."""
    children = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", encoding="ascii") as handle:
                    parent = int(handle.read().rsplit(")", 1)[1].split()[1])
                children.setdefault(parent, []).append(int(name))
            except (OSError, ValueError, IndexError):
                continue
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        stack.extend(children.get(pid, ()))
        try:
            with open(f"/proc/{pid}/status", encoding="ascii") as handle:
                total += next(int(line.split()[1]) for line in handle if line.startswith("VmRSS:"))
        except (OSError, StopIteration):
            continue
    return total / 1024


def directory_mb(path: str) -> float:
    return (
        sum(
            os.path.getsize(os.path.join(root, name))
            for root, _, names in os.walk(path)
            for name in names
        )
        / 2**20
    )


def sample(client, checkpoint: str, started: float) -> dict:
    progress = client.query.lastProgress or {}
    operators = progress.get("stateOperators") or []
    return {
        "minute": (time.time() - started) / 60,
        "batches": client.batches,
        "rate": progress.get("processedRowsPerSecond") or 0.0,
        "state_rows": sum(o.get("numRowsTotal", 0) for o in operators),
        "state_mb": sum(o.get("memoryUsedBytes", 0) for o in operators) / 2**20,
        "checkpoint_mb": directory_mb(checkpoint),
        "rss_mb": resident_mb(os.getpid()),
    }


def verdict(samples: list) -> str:
    third = max(1, len(samples) // 3)
    middle, last = samples[third : 2 * third], samples[-third:]
    if not middle:
        return "too short for a verdict"
    lines = []
    for name in ("state_rows", "state_mb", "checkpoint_mb", "rss_mb"):
        before = sum(s[name] for s in middle) / len(middle)
        after = sum(s[name] for s in last) / len(last)
        growth = (after - before) / before if before else 0.0
        lines.append(f"{name}: {before:,.1f} -> {after:,.1f} ({growth:+.1%})")
    return "; ".join(lines)


def main():
    args = parse_args()
    checkpoint = tempfile.mkdtemp(prefix="weir-soak-")
    client = start(args, checkpoint)
    started, samples = time.time(), []
    print(
        f"soak: {args.keys:,} keys, {args.rate:,} events/s, {args.minutes:g} min, "
        f"checkpoint {checkpoint}",
        flush=True,
    )
    print(
        "| minute | micro-batches | rows/s | state rows | state MB | checkpoint MB | "
        "resident MB |\n|---|---|---|---|---|---|---|",
        flush=True,
    )
    while time.time() - started < args.minutes * 60:
        time.sleep(args.every)
        if client.query is None or not client.query.isActive:
            raise SystemExit(f"the job stopped: {client.query.exception()}")
        s = sample(client, checkpoint, started)
        samples.append(s)
        print(
            f"| {s['minute']:.1f} | {s['batches']} | {s['rate']:,.0f} | "
            f"{s['state_rows']:,} | {s['state_mb']:.1f} | {s['checkpoint_mb']:.1f} | "
            f"{s['rss_mb']:,.0f} |",
            flush=True,
        )
    client.cancel()
    print("second third -> last third:", verdict(samples), flush=True)


if __name__ == "__main__":
    main()
