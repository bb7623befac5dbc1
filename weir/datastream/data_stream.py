"""DataStream and KeyedStream: PyFlink's stream API, building a JobGraph."""

import copy
import importlib
from typing import TYPE_CHECKING, Optional

from weir.common.gaps import PyFlinkGaps, module_gaps
from weir.plan import graph as g
from weir.runtime import adapters
from weir.runtime.non_keyed import InstanceSpec, ToEverySubtask, ToOwnSubtask
from weir.runtime.state.operator_state import is_checkpointed
from weir.runtime.output_tag import OutputTag
from weir.runtime.connectors.file_sink import FileSinkSpec
from weir.runtime.connectors.spark_interop import SparkSink
from weir.runtime.sinks import CollectSink, PrintSink, SinkFunctionSink

if TYPE_CHECKING:  # (imported where they are made: they import this module)
    from weir.datastream.joins import CoGroupedStreams, IntervalJoin, JoinedStreams


def _check_callable(function, method, operation):
    if not (callable(function) or callable(getattr(function, method, None))):
        raise TypeError(
            f"{operation}() expects a callable or an object with a '{method}' "
            f"method, got {type(function).__name__}"
        )


def _refuse_operator_state(function, operation):
    if is_checkpointed(function):
        raise NotImplementedError(
            f"{operation}(): operator state (a CheckpointedFunction) in a keyed or two-input "
            "operator is not supported yet; keep its state in keyed state, or use operator "
            "state on a non-keyed map, flat_map, filter or process"
        )


class DataStream(PyFlinkGaps):
    _pyflink_class = "DataStream"
    _pyflink_gaps = frozenset(
        [
            "cache",
            "force_non_parallel",
            "get_execution_config",
            "partition_custom",
            "project",
            "set_max_parallelism",
        ]
    )

    def __init__(self, env, node_id: int, partitioning=None):
        self._env = env
        self._node_id = node_id
        self._partitioning = partitioning  # broadcast(): ToEverySubtask
        self._named_id = node_id  # the node uid() names: from_source's names its source

    def get_execution_environment(self):
        return self._env

    # -- naming --------------------------------------------------------------------
    @property
    def _node(self):
        return self._env._graph.node(self._node_id)

    def uid(self, uid: str) -> "DataStream":
        self._env._graph.update(self._named_id, uid=uid)
        return self

    def name(self, name: str) -> "DataStream":
        self._env._graph.update(self._node_id, name=name)
        return self

    def get_name(self) -> str:
        return self._node.name

    def set_parallelism(self, parallelism: int) -> "DataStream":
        self._env._graph.update(self._node_id, parallelism=parallelism)
        return self

    def get_type(self):
        return self._node.output_type

    # -- scheduling hints: Spark schedules weir's tasks, so these change nothing ------
    def _hint(self, *args) -> "DataStream":
        return self

    disable_chaining = start_new_chain = slot_sharing_group = _hint
    set_buffer_timeout = set_description = set_uid_hash = _hint

    # -- physical partitioning: a stateless operator runs where its input's records
    # are (fused behind their producer), so these keep every record as it is ----------
    def _repartitioned(self) -> "DataStream":
        return DataStream(self._env, self._node_id)

    forward = rebalance = rescale = shuffle = _repartitioned

    # -- stateless -----------------------------------------------------------------
    def _stateless(self, step, function, output_type, name):
        if self._partitioning is not None or is_checkpointed(function):
            return self._instances(step, function, output_type, name)
        node = self._env._graph.add(
            g.STATELESS, name, (self._node_id,), output_type, step=step, function=function
        )
        return DataStream(self._env, node.id)

    def _instances(self, step, function, output_type, name):
        """A non-keyed operator with parallel instances of its own: its function keeps
        operator state, or its input is broadcast-partitioned."""
        node = self._env._graph.add(
            g.KEYED,
            name,
            (self._node_id,),
            output_type,
            key_selector=self._partitioning or ToOwnSubtask(),
            function=InstanceSpec(step, function),
            uid_prefix="non_keyed",
        )
        return DataStream(self._env, node.id)

    def map(self, func, output_type=None) -> "DataStream":
        _check_callable(func, "map", "map")
        return self._stateless("map", func, output_type, "Map")

    def flat_map(self, func, output_type=None) -> "DataStream":
        _check_callable(func, "flat_map", "flat_map")
        return self._stateless("flat_map", func, output_type, "FlatMap")

    def filter(self, func) -> "DataStream":
        _check_callable(func, "filter", "filter")
        return self._stateless("filter", func, self._node.output_type, "Filter")

    def process(self, func, output_type=None) -> "DataStream":
        _check_callable(func, "process_element", "process")
        return self._stateless("process", func, output_type, "Process")

    def assign_timestamps_and_watermarks(self, watermark_strategy) -> "DataStream":
        stream = self
        if watermark_strategy.timestamp_assigner is not None:
            stream = self._stateless(
                "timestamps", watermark_strategy, self._node.output_type, "Timestamps"
            )
        node = self._env._graph.add(
            g.WATERMARK,
            "Watermarks",
            (stream._node_id,),
            self._node.output_type,
            strategy=watermark_strategy,
        )
        return DataStream(self._env, node.id)

    # -- partitioning and combining ------------------------------------------------
    def key_by(self, key_selector, key_type=None) -> "KeyedStream":
        _check_callable(key_selector, "get_key", "key_by")
        return KeyedStream(self._env, self._node_id, key_selector, key_type)

    def union(self, *streams) -> "DataStream":
        inputs = (self._node_id,) + tuple(s._node_id for s in streams)
        for stream in streams:
            if stream._env is not self._env:
                raise ValueError("union() needs streams of the same environment")
        node = self._env._graph.add(g.UNION, "Union", inputs, self._node.output_type)
        return DataStream(self._env, node.id)

    def connect(self, other):
        """Two streams into one operator of two inputs: a ConnectedStreams (CoMapFunction,
        CoFlatMapFunction, CoProcessFunction; KeyedCoProcessFunction once both are keyed),
        or with a BroadcastStream a BroadcastConnectedStream."""
        from weir.datastream.connected_streams import (
            BroadcastConnectedStream,
            BroadcastStream,
            ConnectedStreams,
        )

        if isinstance(other, BroadcastStream):
            return BroadcastConnectedStream(self, other)
        return ConnectedStreams(self, other)

    def broadcast(self, *broadcast_state_descriptors):
        """A BroadcastStream with the given broadcast states (MapStateDescriptors): connect
        it to a stream and process with a (Keyed)BroadcastProcessFunction. Without
        descriptors, broadcast partitioning: every parallel instance of the next operator
        gets every record."""
        from weir.datastream.connected_streams import BroadcastStream

        if not broadcast_state_descriptors:
            return DataStream(self._env, self._node_id, ToEverySubtask())
        return BroadcastStream(self, broadcast_state_descriptors)

    def join(self, other) -> "JoinedStreams":
        """A window join: join(other).where(key).equal_to(other_key).window(assigner)
        .apply(JoinFunction) (Flink's Java API)."""
        from weir.datastream.joins import JoinedStreams

        return JoinedStreams(self, other)

    def co_group(self, other) -> "CoGroupedStreams":
        """A window co-group: as join(), with apply(CoGroupFunction)."""
        from weir.datastream.joins import CoGroupedStreams

        return CoGroupedStreams(self, other)

    def window_all(self, window_assigner):
        from weir.datastream.windowed_stream import AllWindowedStream

        return AllWindowedStream(self, window_assigner)

    def count_window_all(self, size: int, slide: int = 0):
        from weir.datastream.windowed_stream import AllWindowedStream

        return AllWindowedStream(self, _count_assigner(size, slide))

    def get_side_output(self, output_tag: OutputTag) -> "DataStream":
        if not isinstance(output_tag, OutputTag):
            raise TypeError("get_side_output() expects an OutputTag")
        node = self._env._graph.add(
            g.SIDE_OUTPUT,
            f"SideOutput({output_tag.tag_id})",
            (self._node_id,),
            output_tag.type_info,
            tag_id=output_tag.tag_id,
        )
        return DataStream(self._env, node.id)

    # -- sinks ---------------------------------------------------------------------
    def _sink(self, sink, name) -> "DataStreamSink":
        stream = self if self._partitioning is None else self.map(_identity)
        node = self._env._graph.add(g.SINK, name, (stream._node_id,), sink=sink)
        return DataStreamSink(self._env, node.id)

    def print(self, sink_identifier: Optional[str] = None) -> "DataStreamSink":
        return self._sink(PrintSink(sink_identifier, type_info=self._node.output_type), "Print")

    def sink_to(self, sink) -> "DataStreamSink":
        sink = sink.sink_spec() if hasattr(sink, "sink_spec") else sink  # e.g. KafkaSink
        if isinstance(sink, (FileSinkSpec, SparkSink)) and sink.record_type is None:
            sink = copy.copy(sink)
            sink.record_type = self._node.output_type
        return self._sink(sink, "Sink")

    def add_sink(self, sink_func) -> "DataStreamSink":
        if hasattr(sink_func, "sink_spec"):  # a connector's sink, e.g. PyFlink's JdbcSink
            return self.sink_to(sink_func)
        _check_callable(sink_func, "invoke", "add_sink")
        return self._sink(SinkFunctionSink(sink_func), "Sink")

    def to_spark(self):
        """A Spark streaming DataFrame of this stream's records (weir's addition), with
        columns from its declared type (Types.ROW_NAMED, Types.ROW, Types.TUPLE; else one
        column `value`): start it with the DataFrame's writeStream. The job up to here
        becomes that query; its other sinks still run with env.execute()."""
        return importlib.import_module("weir.spark.frame_sinks").to_spark(self)

    def execute_and_collect(
        self, job_execution_name: Optional[str] = None, limit: Optional[int] = None
    ):
        sink = CollectSink()
        self._sink(sink, "Collect")
        self._env.execute(job_execution_name or "collect")
        results = sink.results
        return CloseableIterator(results[:limit] if limit is not None else results)


class CloseableIterator:
    """The results of a collecting job (PyFlink's): an iterator that is also a context
    manager (`with stream.execute_and_collect() as results:`); `close` ends it."""

    def __init__(self, results):
        self._results = iter(results)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._results)

    def next(self):
        return next(self)

    def close(self) -> None:
        self._results = iter(())

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


def _identity(value):
    return value


class DataStreamSink(DataStream):
    """What sinks return: can be named and given a uid, as in PyFlink."""

    _pyflink_class = "DataStreamSink"


class KeyedStream(DataStream):
    _pyflink_class = "KeyedStream"

    def __init__(self, env, node_id, key_selector, key_type=None):
        super().__init__(env, node_id)
        self._key_selector = adapters.resolve(key_selector, "get_key")
        self._key_type = key_type

    def _keyed(self, function, output_type, name, user_function=None) -> DataStream:
        _refuse_operator_state(user_function, name)
        node = self._env._graph.add(
            g.KEYED,
            name,
            (self._node_id,),
            output_type,
            key_selector=self._key_selector,
            function=function,
        )
        return DataStream(self._env, node.id)

    def process(self, func, output_type=None) -> DataStream:
        if not callable(getattr(func, "process_element", None)):
            raise TypeError("KeyedStream.process() expects a KeyedProcessFunction")
        return self._keyed(adapters.KeyedProcess(func), output_type, "KeyedProcess", func)

    def map(self, func, output_type=None) -> DataStream:
        _check_callable(func, "map", "map")
        return self._keyed(adapters.KeyedMap(func), output_type, "Map", func)

    def flat_map(self, func, output_type=None) -> DataStream:
        _check_callable(func, "flat_map", "flat_map")
        return self._keyed(adapters.KeyedFlatMap(func), output_type, "FlatMap", func)

    def filter(self, func) -> DataStream:
        _check_callable(func, "filter", "filter")
        return self._keyed(adapters.KeyedFilter(func), self._node.output_type, "Filter", func)

    def reduce(self, func) -> DataStream:
        _check_callable(func, "reduce", "reduce")
        return self._keyed(adapters.KeyedReduce(func), self._node.output_type, "Reduce", func)

    def _rolling(self, kind, field):
        return self._keyed(
            adapters.rolling_aggregation(kind, field), self._node.output_type, kind.capitalize()
        )

    def sum(self, position_to_sum=0) -> DataStream:
        return self._rolling("sum", position_to_sum)

    def min(self, position_to_min=0) -> DataStream:
        return self._rolling("min", position_to_min)

    def max(self, position_to_max=0) -> DataStream:
        return self._rolling("max", position_to_max)

    def min_by(self, position_to_min_by=0) -> DataStream:
        return self._rolling("min_by", position_to_min_by)

    def max_by(self, position_to_max_by=0) -> DataStream:
        return self._rolling("max_by", position_to_max_by)

    def interval_join(self, other) -> "IntervalJoin":
        """An interval join of two keyed streams: interval_join(other).between(lower,
        upper).process(ProcessJoinFunction) (Flink's Java API)."""
        from weir.datastream.joins import IntervalJoin

        return IntervalJoin(self, other)

    # -- windows -------------------------------------------------------------------
    def window(self, window_assigner):
        from weir.datastream.windowed_stream import WindowedStream

        return WindowedStream(self, window_assigner)

    def count_window(self, size: int, slide: int = 0):
        from weir.datastream.windowed_stream import WindowedStream

        return WindowedStream(self, _count_assigner(size, slide))


def _count_assigner(size, slide):
    from weir.runtime.window import assigners

    if slide == 0:
        return assigners.CountTumblingWindowAssigner(size)
    return assigners.CountSlidingWindowAssigner(size, slide)


_gaps = module_gaps(__name__, "pyflink.datastream.data_stream", [])


def __getattr__(name):  # PyFlink's module paths of classes defined beside their code
    if name == "WindowedStream":
        from weir.datastream.windowed_stream import WindowedStream

        return WindowedStream
    if name in ("ConnectedStreams", "BroadcastStream", "BroadcastConnectedStream"):
        from weir.datastream import connected_streams

        return getattr(connected_streams, name)
    return _gaps(name)
