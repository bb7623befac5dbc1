"""Pieces several end-to-end test modules use: a checkpointed environment on the shared
Spark session, a keyed running count, and reading finished JSON-lines part files."""

import json
import os

from weir.common import Types
from weir.datastream import KeyedProcessFunction, StreamExecutionEnvironment
from weir.datastream.state import ValueStateDescriptor


def checkpointed_env(spark, checkpoint, interval_ms: int = 200):
    """An environment on `spark` (parallelism 2) checkpointing to `checkpoint`."""
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_spark_session(spark).set_parallelism(2)
    env.enable_checkpointing(interval_ms)
    env.get_checkpoint_config().set_checkpoint_storage_dir(str(checkpoint))
    return env


class RunningCount(KeyedProcessFunction):
    """(key, index, count so far) per record, and (key, -1, final count) at the end."""

    def open(self, runtime_context):
        self.count = runtime_context.get_state(ValueStateDescriptor("count", Types.INT()))

    def process_element(self, value, ctx):
        count = (self.count.value() or 0) + 1
        self.count.update(count)
        if count == 1:
            ctx.timer_service().register_event_time_timer(10**12)
        yield value[0], value[1], count

    def on_timer(self, timestamp, ctx):
        yield ctx.get_current_key(), -1, self.count.value()


def read_part_files(directory: str) -> list:
    """The records of the finished JSON-lines part files in `directory`, in name order
    (in-progress files are hidden, so not read)."""
    records = []
    for name in sorted(os.listdir(directory)):
        if name.startswith("part-"):
            with open(os.path.join(directory, name)) as handle:
                records += [json.loads(line) for line in handle]
    return records
