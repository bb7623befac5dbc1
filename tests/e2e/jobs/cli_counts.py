"""A job for the CLI tests: running counts per key, from a rate-limited generator, into an
exactly-once file sink. Its parallelism is the one `weir run -p` / `weir modify -p` gives.

Usage: weir run [-d] [-p N] [-s SAVEPOINT] cli_counts.py OUTPUT_DIR EVENTS RATE
"""

import sys

from tests.e2e.jobs.checkpointed_counts import RunningCount, event
from weir.common import Duration, WatermarkStrategy
from weir.datastream import StreamExecutionEnvironment
from weir.datastream.connectors import DataGeneratorSource, FileSink


def main(output_dir, events, rate):
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_spark_config("spark.master", "local[2]")
    env.enable_checkpointing(200)
    source = DataGeneratorSource(
        event, count=events, records_per_second=rate, max_records_per_batch=max(1, int(rate))
    )
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_millis(0)
    ).with_timestamp_assigner(lambda e, ts: e[1])
    counts = (
        env.from_source(source, strategy, "events")
        .uid("events")
        .key_by(lambda e: e[0])
        .process(RunningCount())
        .uid("running-count")
    )
    counts.sink_to(FileSink.for_json_lines(output_dir).build())
    env.execute("cli counts")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]))
