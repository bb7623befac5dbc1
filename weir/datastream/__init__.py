"""PyFlink's DataStream API on Spark (`pyflink.datastream` -> `weir.datastream`)."""

from weir.datastream.data_stream import DataStream, DataStreamSink, KeyedStream  # noqa: F401
from weir.datastream.functions import (  # noqa: F401
    AggregateFunction, FilterFunction, FlatMapFunction, KeyedProcessFunction, KeySelector,
    MapFunction, ProcessFunction, ReduceFunction, RuntimeContext, SinkFunction, TimeDomain)
from weir.datastream.stream_execution_environment import (  # noqa: F401
    CheckpointConfig, CheckpointingMode, RuntimeExecutionMode, StreamExecutionEnvironment)
from weir.runtime.output_tag import OutputTag  # noqa: F401
