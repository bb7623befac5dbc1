"""A job for the recovery test: running counts per key into an exactly-once file sink.

Usage: checkpointed_counts.py OUTPUT_DIR CHECKPOINT_DIR EVENTS PER_BATCH RATE [PARALLELISM]
"""

import sys

from weir.common import Duration, WatermarkStrategy
from weir.datastream import KeyedProcessFunction, StreamExecutionEnvironment
from weir.datastream.connectors import DataGeneratorSource, FileSink
from weir.datastream.state import ValueStateDescriptor


def event(index):
    return (f"k{index % 7}", index * 10)


class RunningCount(KeyedProcessFunction):
    def open(self, runtime_context):
        self.count = runtime_context.get_state(ValueStateDescriptor("count"))

    def process_element(self, value, ctx):
        count = (self.count.value() or 0) + 1
        self.count.update(count)
        if count == 1:
            ctx.timer_service().register_event_time_timer(10**12)
        yield {"key": value[0], "ts": value[1], "count": count}

    def on_timer(self, timestamp, ctx):
        yield {"key": ctx.get_current_key(), "ts": timestamp, "final": self.count.value()}


def checkpointed_environment(checkpoint_dir, parallelism):
    """The environment of the recovery tests' jobs: local[2], checkpoints every 200 ms
    into `checkpoint_dir`."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(parallelism).set_spark_config("spark.master", "local[2]")
    env.set_spark_config("spark.sql.shuffle.partitions", "2")
    env.enable_checkpointing(200)
    env.get_checkpoint_config().set_checkpoint_storage_dir(checkpoint_dir)
    return env


def main(output_dir, checkpoint_dir, events, per_batch, rate, parallelism=2):
    env = checkpointed_environment(checkpoint_dir, parallelism)
    source = DataGeneratorSource(
        event, count=events, records_per_second=rate, max_records_per_batch=per_batch
    )
    strategy = WatermarkStrategy.for_bounded_out_of_orderness(
        Duration.of_millis(0)
    ).with_timestamp_assigner(lambda e, ts: e[1])
    counts = (
        env.from_source(source, strategy, "events")
        .key_by(lambda e: e[0])
        .process(RunningCount())
        .uid("running-count")
    )
    counts.sink_to(FileSink.for_json_lines(output_dir).build())
    env.execute("checkpointed counts")


if __name__ == "__main__":
    main(
        sys.argv[1],
        sys.argv[2],
        int(sys.argv[3]),
        int(sys.argv[4]),
        float(sys.argv[5]),
        *map(int, sys.argv[6:]),
    )
