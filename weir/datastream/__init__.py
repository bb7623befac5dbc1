"""PyFlink's DataStream API on Spark (`pyflink.datastream` -> `weir.datastream`)."""

from weir.datastream.data_stream import DataStream, DataStreamSink, KeyedStream  # noqa: F401
from weir.datastream.connected_streams import (  # noqa: F401
    BroadcastConnectedStream,
    BroadcastStream,
    ConnectedStreams,
)
from weir.datastream.functions import (  # noqa: F401
    AggregateFunction,
    AllWindowFunction,
    AsyncFunction,
    AsyncRetryPredicate,
    AsyncRetryStrategy,
    BaseBroadcastProcessFunction,
    BroadcastProcessFunction,
    CheckpointedFunction,
    CoFlatMapFunction,
    CoGroupFunction,
    CoMapFunction,
    CoProcessFunction,
    FilterFunction,
    FlatJoinFunction,
    FlatMapFunction,
    JoinFunction,
    KeyedBroadcastProcessFunction,
    KeyedCoProcessFunction,
    KeyedProcessFunction,
    KeySelector,
    MapFunction,
    ProcessAllWindowFunction,
    ProcessFunction,
    ProcessJoinFunction,
    ProcessWindowFunction,
    ReduceFunction,
    RuntimeContext,
    SinkFunction,
    TimeDomain,
    TimerService,
    WindowFunction,
)
from weir.datastream.stream_execution_environment import (  # noqa: F401
    CheckpointConfig,
    CheckpointingMode,
    RuntimeExecutionMode,
    StreamExecutionEnvironment,
)
from weir.runtime.output_tag import OutputTag  # noqa: F401
from weir.datastream.window import (  # noqa: F401
    CountWindow,
    GlobalWindow,
    MergingWindowAssigner,
    TimeWindow,
    Trigger,
    TriggerResult,
    Window,
    WindowAssigner,
)
from weir.datastream.windowed_stream import AllWindowedStream, WindowedStream  # noqa: F401
from weir.datastream.async_data_stream import AsyncDataStream  # noqa: F401
from weir.datastream import async_retry_predicates, async_retry_strategies  # noqa: F401
from weir.common.gaps import module_gaps  # noqa: E402

__getattr__ = module_gaps(
    __name__,
    "pyflink.datastream",
    [
        "CheckpointStorage",
        "CustomCheckpointStorage",
        "CustomStateBackend",
        "EmbeddedRocksDBStateBackend",
        "ExternalizedCheckpointRetention",
        "FileSystemCheckpointStorage",
        "HashMapStateBackend",
        "JobManagerCheckpointStorage",
        "MemorySize",
        "Partitioner",
        "PredefinedOptions",
        "SlotSharingGroup",
        "SourceFunction",
        "StateBackend",
    ],
)
