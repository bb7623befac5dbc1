"""PyFlink's DataStream API on Spark (`pyflink.datastream` -> `weir.datastream`)."""

from weir.datastream.data_stream import DataStream, DataStreamSink, KeyedStream  # noqa: F401
from weir.datastream.functions import (  # noqa: F401
    AggregateFunction, FilterFunction, FlatMapFunction, KeyedProcessFunction, KeySelector,
    AllWindowFunction, MapFunction, ProcessAllWindowFunction, ProcessFunction,
    ProcessWindowFunction, ReduceFunction, RuntimeContext, SinkFunction, TimeDomain,
    WindowFunction)
from weir.datastream.stream_execution_environment import (  # noqa: F401
    CheckpointConfig, CheckpointingMode, RuntimeExecutionMode, StreamExecutionEnvironment)
from weir.runtime.output_tag import OutputTag  # noqa: F401
from weir.datastream.window import (  # noqa: F401
    CountWindow, GlobalWindow, MergingWindowAssigner, TimeWindow, Trigger, TriggerResult,
    Window, WindowAssigner)
from weir.datastream.windowed_stream import AllWindowedStream, WindowedStream  # noqa: F401
