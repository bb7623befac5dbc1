"""CountWithTimeoutFunction (the Flink docs' process-function example) over a stream of Rows.

Source: https://github.com/cc3213252/pyflink-learn
  file src/datastream_api/process_func.py (commit 9bf97d290a120353fac06583e9ee20cf08f88d61).
  Exercises: Rows with SQL_TIMESTAMP fields, a TimestampAssigner class computing epoch millis
  from a datetime, for_monotonous_timestamps, KeyedProcessFunction with a PICKLED_BYTE_ARRAY
  ValueState holding a mutable Row (value.f1, current[1] += 1), event-time timers, on_timer
  yielding only for the latest timer.

Adapted for weir's test corpus (the user's functions and classes are verbatim):
- the Table API 'datagen' source (StreamTableEnvironment, CREATE TABLE ... WITH ('connector' =
  'datagen'), to_append_stream) is replaced by env.from_collection of deterministic Rows of
  the same type, Types.ROW([Types.SQL_TIMESTAMP(), Types.STRING(), Types.STRING()]);
- env.set_parallelism(1) is added (the program sets no parallelism);
- pyflink is replaced by weir in imports (the unused pyflink.table import is dropped).
"""
# encoding: utf-8
# Date: 2022/8/31 13:50
# https://nightlies.apache.org/flink/flink-docs-release-1.15/zh/docs/dev/datastream/operators/process_function/

__author__ = 'yudan.chen'


import datetime

from weir.common import Row, WatermarkStrategy
from weir.common.typeinfo import Types
from weir.common.watermark_strategy import TimestampAssigner
from weir.datastream import StreamExecutionEnvironment
from weir.datastream.functions import KeyedProcessFunction, RuntimeContext
from weir.datastream.state import ValueStateDescriptor


class CountWithTimeoutFunction(KeyedProcessFunction):

    def __init__(self):
        self.state = None

    def open(self, runtime_context: RuntimeContext):
        self.state = runtime_context.get_state(ValueStateDescriptor(
            "my_state", Types.PICKLED_BYTE_ARRAY()))

    def process_element(self, value, ctx: 'KeyedProcessFunction.Context'):
        # retrieve the current count
        current = self.state.value()
        if current is None:
            current = Row(value.f1, 0, 0)

        # update the state's count
        current[1] += 1

        # set the state's timestamp to the record's assigned event time timestamp
        current[2] = ctx.timestamp()

        # write the state back
        self.state.update(current)

        # schedule the next timer 60 seconds from the current event time
        ctx.timer_service().register_event_time_timer(current[2] + 60000)

    def on_timer(self, timestamp: int, ctx: 'KeyedProcessFunction.OnTimerContext'):
        # get the state for the key that scheduled the timer
        result = self.state.value()

        # check if this is an outdated timer or the latest timer
        if timestamp == result[2] + 60000:
            # emit the state on timeout
            yield result[0], result[1]


class MyTimestampAssigner(TimestampAssigner):

    def __init__(self):
        self.epoch = datetime.datetime.utcfromtimestamp(0)

    def extract_timestamp(self, value, record_timestamp) -> int:
        return int((value[0] - self.epoch).total_seconds() * 1000)


if __name__ == '__main__':
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)

    stream = env.from_collection(
        [
            Row(datetime.datetime(2022, 8, 31, 10, 0, 0), 'alice', 'x'),
            Row(datetime.datetime(2022, 8, 31, 10, 0, 10), 'bob', 'y'),
            Row(datetime.datetime(2022, 8, 31, 10, 0, 30), 'alice', 'z'),
            Row(datetime.datetime(2022, 8, 31, 10, 0, 45), 'carol', 'x'),
            Row(datetime.datetime(2022, 8, 31, 10, 1, 20), 'alice', 'y'),
            Row(datetime.datetime(2022, 8, 31, 10, 1, 40), 'bob', 'z'),
            Row(datetime.datetime(2022, 8, 31, 10, 3, 0), 'carol', 'x'),
            Row(datetime.datetime(2022, 8, 31, 10, 3, 30), 'carol', 'y'),
            Row(datetime.datetime(2022, 8, 31, 10, 6, 0), 'dave', 'z'),
        ],
        type_info=Types.ROW([Types.SQL_TIMESTAMP(), Types.STRING(), Types.STRING()]))
    watermarked_stream = stream.assign_timestamps_and_watermarks(
        WatermarkStrategy.for_monotonous_timestamps()
                         .with_timestamp_assigner(MyTimestampAssigner()))

    # apply the process function onto a keyed stream
    result = watermarked_stream.key_by(lambda value: value[1]) \
                               .process(CountWithTimeoutFunction()) \
                               .print()
    env.execute()