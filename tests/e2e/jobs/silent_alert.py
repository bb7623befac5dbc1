"""A job for the recovery test: two records, then silence; an alert ten seconds after
the last (a processing-time timer), into an exactly-once file sink.

Usage: silent_alert.py OUTPUT_DIR CHECKPOINT_DIR [ignored arguments]
"""

import sys

from weir.common import WatermarkStrategy
from weir.datastream import KeyedProcessFunction, StreamExecutionEnvironment
from weir.datastream.connectors import FileSink
from weir.runtime.sources import SourceReader


class TwoThenSilence(SourceReader):
    """An unbounded source with two records, then nothing."""

    bounded = False

    def available(self, start_pos):
        return 2

    def read(self, lo, hi):
        for index in range(lo, hi):
            yield ("a", index), None


class InactivityAlert(KeyedProcessFunction):
    """`delay_ms` after a key's last element (the second), an alert."""

    def __init__(self, delay_ms=10_000):
        self.delay_ms = delay_ms

    def process_element(self, value, ctx):
        if value[1] == 1:
            timers = ctx.timer_service()
            timers.register_processing_time_timer(timers.current_processing_time() + self.delay_ms)
        yield {"element": value[1]}

    def on_timer(self, timestamp, ctx):
        yield {"alert": ctx.get_current_key()}


def main(output_dir, checkpoint_dir):
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(2).set_spark_config("spark.master", "local[2]")
    env.set_spark_config("spark.sql.shuffle.partitions", "2")
    env.enable_checkpointing(200)
    env.get_checkpoint_config().set_checkpoint_storage_dir(checkpoint_dir)
    env.from_source(TwoThenSilence(), WatermarkStrategy.no_watermarks(), "quiet").key_by(
        lambda v: v[0]
    ).process(InactivityAlert()).uid("alerts").sink_to(FileSink.for_json_lines(output_dir).build())
    env.execute("silent alert")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
