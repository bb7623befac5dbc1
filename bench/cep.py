"""CEP: weir's CEP operator beside the same logic hand-written as a KeyedProcessFunction
on weir, in one run (issue: at least 0.5x the hand-written operator).

Both jobs read N events (key = i % K, event time i ms, kind a, b or c by a hash of i)
from a DataGeneratorSource in B micro-batches and find, per key, an `a` followed by a
`b` followed by a `c` within W ms (relaxed contiguity: Pattern.begin("a")
.followed_by("b").followed_by("c").within(W)). The hand-written function keeps a key's
partial sequences in a ValueState and extends or ends them as each event arrives (the
input comes in event-time order, so it need not buffer); the CEP operator buffers events
until the watermark passes them and runs Flink's NFA. Both must give the same matches
(checked). A key's events are K ms apart, so most partial matches time out: the second
table samples the CEP operator's state entries through the harness as events go by (it
stays flat where partial matches are dropped as they time out).

  .venv/bin/python bench/cep.py --events 20000 --keys 200     # smoke run
  .venv/bin/python bench/cep.py                               # 1,000,000 events, 10,000 keys
"""

import argparse
import os
import statistics
import sys
import time

sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from weir.cep import CEP, Duration, Pattern, PatternProcessFunction  # noqa: E402
from weir.cep.operator import CepOperator  # noqa: E402
from weir.common import Types, WatermarkStrategy  # noqa: E402
from weir.datastream import KeyedProcessFunction, StreamExecutionEnvironment  # noqa: E402
from weir.datastream.connectors import DataGeneratorSource  # noqa: E402
from weir.datastream.state import ValueStateDescriptor  # noqa: E402
from engines import Engine, WEIR_CONF  # noqa: E402


class EventOf:
    """gen_fn: event i is (key, event time ms, kind)."""

    def __init__(self, keys):
        self.keys = keys

    def __call__(self, index):
        return index % self.keys, index, "abc"[hash((index, 7919)) % 3]


def event_key(event):
    return event[0]


def event_time(event, record_timestamp):
    return event[1]


def pattern(window_ms):
    return (
        Pattern.begin("a")
        .where(lambda e: e[2] == "a")
        .followed_by("b")
        .where(lambda e: e[2] == "b")
        .followed_by("c")
        .where(lambda e: e[2] == "c")
        .within(Duration.of_millis(window_ms))
    )


class Matched(PatternProcessFunction):
    def process_match(self, match, ctx):
        yield match["a"][0][0], match["a"][0][1], match["c"][0][1]


class HandWritten(KeyedProcessFunction):
    """The same search by hand: (start, stage) of a key's partial sequences."""

    def __init__(self, window_ms):
        self.window_ms = window_ms

    def open(self, runtime_context):
        self.partial = runtime_context.get_state(
            ValueStateDescriptor("partial", Types.PICKLED_BYTE_ARRAY())
        )

    def process_element(self, event, ctx):
        key, ts, kind = event
        kept = []
        for start, stage in self.partial.value() or ():
            if ts - start >= self.window_ms:
                continue
            if stage == 1 and kind == "b":
                kept.append((start, 2))
            elif stage == 2 and kind == "c":
                yield key, start, ts
            else:
                kept.append((start, stage))
        if kind == "a":
            kept.append((ts, 1))
        if kept:
            self.partial.update(kept)
        else:
            self.partial.clear()


def run_job(spark, side, events, keys, batches, window_ms):
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_spark_session(spark).set_parallelism(2)
    source = DataGeneratorSource(
        EventOf(keys), count=events, num_splits=2, max_records_per_batch=-(-events // batches)
    )
    strategy = WatermarkStrategy.for_monotonous_timestamps().with_timestamp_assigner(event_time)
    keyed = env.from_source(source, strategy, "events").key_by(event_key)
    matches = (
        CEP.pattern(keyed, pattern(window_ms)).process(Matched())
        if side == "cep"
        else keyed.process(HandWritten(window_ms))
    )
    results = []
    matches.add_sink(lambda value, ctx: results.append(value))
    started = time.perf_counter()
    env.execute_async(f"bench-cep-{side}").wait()
    return time.perf_counter() - started, sorted(results)


def state_samples(events, keys, window_ms, samples=8):
    """(events fed, state entries) of the CEP operator through the harness, the
    watermark one event behind."""
    from weir.testing.harness import KeyedOperatorHarness

    harness = KeyedOperatorHarness(CepOperator(pattern(window_ms), Matched()), event_key)
    make, found = EventOf(keys), []
    every = max(1, events // samples)
    for index in range(events):
        event = make(index)
        harness.process_element(event, event[1])
        harness.process_watermark(event[1] - 1)
        if (index + 1) % every == 0:
            harness.extract_outputs()
            found.append((index + 1, harness.num_keyed_state_entries()))
    return found


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--keys", type=int, default=10_000)
    parser.add_argument("--batches", type=int, default=4)
    parser.add_argument(
        "--window-ms",
        type=int,
        default=None,
        help="the pattern's window (default: 2.5 times the time between a key's events)",
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--state-events",
        type=int,
        default=200_000,
        help="events fed through the harness for the state samples",
    )
    args = parser.parse_args(argv)
    window = args.window_ms or args.keys * 5 // 2
    engine = Engine("weir", WEIR_CONF, weir_home=True)
    try:
        engine(run_job, "cep", 2000, 20, 1, window)  # (warm-up: the JVM, the workers)
        engine(run_job, "hand", 2000, 20, 1, window)
        times = {"cep": [], "hand": []}
        found = {}
        for _ in range(args.repeat):
            for side in ("cep", "hand"):
                seconds, results = engine(
                    run_job, side, args.events, args.keys, args.batches, window
                )
                times[side].append(seconds)
                found[side] = results
    finally:
        engine.close()
    if found["cep"] != found["hand"]:
        raise AssertionError(
            f"the jobs disagree: {len(found['cep'])} CEP matches, {len(found['hand'])} hand-written"
        )
    cep, hand = statistics.median(times["cep"]), statistics.median(times["hand"])
    print(
        f"\n{args.events:,} events, {args.keys:,} keys, {args.batches} micro-batches, "
        f"window {window} ms, median of {args.repeat}; {len(found['cep']):,} matches, "
        "the same on both\n"
    )
    print("| job | ev/s | seconds | CEP/hand-written |")
    print("|---|---|---|---|")
    print(f"| hand-written KeyedProcessFunction | {args.events / hand:,.0f} | {hand:.2f} | |")
    print(f"| weir.cep | {args.events / cep:,.0f} | {cep:.2f} | {hand / cep:.3f} |")
    samples = state_samples(args.state_events, args.keys // 10 or 1, window // 10 or 1)
    print(
        f"\nCEP state entries through the harness ({args.state_events:,} events, "
        f"{args.keys // 10:,} keys, window {window // 10} ms):\n"
    )
    print("| events fed | state entries |")
    print("|---|---|")
    for fed, entries in samples:
        print(f"| {fed:,} | {entries:,} |")


if __name__ == "__main__":
    main()
