"""Keyed state in a MapFunction over a NumberSequenceSource.

Source: https://github.com/cc3213252/pyflink-learn
  file src/datastream_api/add_by_state.py (commit 9bf97d290a120353fac06583e9ee20cf08f88d61).
  Exercises: from_source(NumberSequenceSource) with for_monotonous_timestamps, a lambda
  producing Rows with output_type Types.ROW, key_by, a MapFunction using a PICKLED_BYTE_ARRAY
  ValueState after key_by, output_type Types.TUPLE.

Adapted for weir's test corpus (the user's functions are verbatim):
- the FileSink (and its Encoder / OutputFileConfig imports) is replaced by ds.print();
- env.set_parallelism(1) is added (the program sets no parallelism);
- pyflink is replaced by weir in imports.
"""
# encoding: utf-8
# Date: 2022/7/12 17:14

__author__ = 'yudan.chen'

from weir.common import WatermarkStrategy, Row
from weir.common.typeinfo import Types
from weir.datastream import StreamExecutionEnvironment
from weir.datastream.connectors import NumberSequenceSource
from weir.datastream.functions import RuntimeContext, MapFunction
from weir.datastream.state import ValueStateDescriptor


class MyMapFunction(MapFunction):

    def open(self, runtime_context: RuntimeContext):
        state_desc = ValueStateDescriptor('cnt', Types.PICKLED_BYTE_ARRAY())
        self.cnt_state = runtime_context.get_state(state_desc)

    def map(self, value):
        cnt = self.cnt_state.value()
        if cnt is None or cnt < 2:
            self.cnt_state.update(1 if cnt is None else cnt + 1)
            return value[0], value[1] + 1
        else:
            return value[0], value[1]


def state_access_demo():
    # 1. create a StreamExecutionEnvironment
    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(1)

    # 2. create source DataStream
    seq_num_source = NumberSequenceSource(1, 10000)
    ds = env.from_source(
        source=seq_num_source,
        watermark_strategy=WatermarkStrategy.for_monotonous_timestamps(),
        source_name='seq_num_source',
        type_info=Types.LONG())

    # 3. define the execution logic
    ds = ds.map(lambda a: Row(a % 4, 1), output_type=Types.ROW([Types.LONG(), Types.LONG()])) \
           .key_by(lambda a: a[0]) \
           .map(MyMapFunction(), output_type=Types.TUPLE([Types.LONG(), Types.LONG()]))

    # 4. create sink and emit result to sink
    ds.print()

    # 5. execute the job
    env.execute('state_access_demo')


if __name__ == '__main__':
    state_access_demo()