"""A CEP job for the recovery and savepoint tests: per key, a low reading followed by
one or two high ones within 3 s, the matches into an exactly-once file sink.

Usage: checkpointed_cep.py OUTPUT_DIR CHECKPOINT_DIR EVENTS PER_BATCH RATE [PARALLELISM]
"""

import sys

from tests.e2e.jobs.checkpointed_counts import checkpointed_environment
from weir.cep import CEP, Duration, Pattern, PatternProcessFunction
from weir.common import WatermarkStrategy
from weir.datastream import StreamExecutionEnvironment
from weir.datastream.connectors import DataGeneratorSource, FileSink


def reading(index):
    """(key, event time ms, amount): 5 keys, 100 ms apart, amounts 0..9."""
    return index % 5, index * 100, index * 7 % 10


class LowThenHigh(PatternProcessFunction):
    def process_match(self, match, ctx):
        low, high = match["low"][0], match["high"]
        yield {"key": low[0], "low": low[1], "high": [h[1] for h in high], "ts": ctx.timestamp()}


def low_then_high():
    return (
        Pattern.begin("low")
        .where(lambda r: r[2] < 3)
        .followed_by("high")
        .where(lambda r: r[2] > 6)
        .times(1, 2)
        .within(Duration.of_millis(3000))
    )


def cep_job(env, sink, events, per_batch, rate):
    source = DataGeneratorSource(
        reading, count=events, records_per_second=rate, max_records_per_batch=per_batch
    )
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_millis(0)
    ).with_timestamp_assigner(lambda r, ts: r[1])
    readings = env.from_source(source, strategy, "readings").uid("readings")
    matches = (
        CEP.pattern(readings.key_by(lambda r: r[0]), low_then_high())
        .process(LowThenHigh())
        .uid("low-then-high")
    )
    return sink(matches)


def expected_matches(events):
    """The matches of an uninterrupted run (the in-process executor, the same job)."""
    env = StreamExecutionEnvironment.get_execution_environment().set_executor("local")
    env.set_parallelism(2)
    return list(cep_job(env, lambda matches: matches.execute_and_collect(), events, events, 10**9))


def main(output_dir, checkpoint_dir, events, per_batch, rate, parallelism=2):
    env = checkpointed_environment(checkpoint_dir, parallelism)
    cep_job(
        env,
        lambda matches: matches.sink_to(FileSink.for_json_lines(output_dir).build()),
        events,
        per_batch,
        rate,
    )
    env.execute("checkpointed cep")


if __name__ == "__main__":
    main(
        sys.argv[1],
        sys.argv[2],
        int(sys.argv[3]),
        int(sys.argv[4]),
        float(sys.argv[5]),
        *map(int, sys.argv[6:]),
    )
