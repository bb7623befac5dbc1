"""ConnectedStreams: two streams into one operator of two inputs, as PyFlink's.

On two keyed streams (`connect(...).key_by(k1, k2)`, or two KeyedStreams connected) the
operator is keyed: both inputs share each key's state and timers, and it runs in the
key-group runtime like any keyed operator, each record with its input label. Otherwise it
is stateless and runs fused behind the producers of its inputs.
"""

from weir.plan import graph as g
from weir.runtime import adapters, broadcast
from weir.runtime.chain import TWO_INPUT_METHODS
from weir.runtime.non_keyed import ToOwnSubtask

_FUNCTIONS = {
    "map": "CoMapFunction",
    "flat_map": "CoFlatMapFunction",
    "process": "CoProcessFunction or KeyedCoProcessFunction",
}
_KEYED_ADAPTERS = {
    "map": adapters.KeyedCoMap,
    "flat_map": adapters.KeyedCoFlatMap,
    "process": adapters.KeyedCoProcess,
}
_NAMES = {"map": "Co-Map", "flat_map": "Co-Flat Map", "process": "Co-Process"}


def _check_function(function, kind: str) -> None:
    methods = TWO_INPUT_METHODS[kind]
    missing = [m for m in methods if not callable(getattr(function, m, None))]
    if missing:
        raise TypeError(
            f"ConnectedStreams.{kind}() expects a {_FUNCTIONS[kind]} (with "
            f"{' and '.join(methods)}), got {type(function).__name__} "
            f"without {', '.join(missing)}"
        )


class ConnectedStreams:
    """Two streams of (possibly) different types, processed together."""

    def __init__(self, stream1, stream2):
        from weir.datastream.data_stream import DataStream

        if isinstance(stream2, BroadcastStream):
            raise TypeError("a BroadcastStream connects through DataStream.connect()")
        if not isinstance(stream2, DataStream):
            raise TypeError(f"connect() expects a DataStream, got {type(stream2).__name__}")
        if stream1.get_execution_environment() is not stream2.get_execution_environment():
            raise ValueError("connect() needs two streams of the same environment")
        self.stream1 = stream1
        self.stream2 = stream2

    def key_by(self, key_selector1, key_selector2, key_type=None) -> "ConnectedStreams":
        """Keys each input with its own selector: the keys of both must be comparable."""
        return ConnectedStreams(
            self.stream1.key_by(key_selector1, key_type),
            self.stream2.key_by(key_selector2, key_type),
        )

    def _is_keyed_stream(self) -> bool:
        from weir.datastream.data_stream import KeyedStream

        return isinstance(self.stream1, KeyedStream) and isinstance(self.stream2, KeyedStream)

    def map(self, func, output_type=None):
        """map1(value) for the first input's records, map2(value) for the second's."""
        return self._two_input("map", func, output_type)

    def flat_map(self, func, output_type=None):
        """flat_map1(value) / flat_map2(value), each returning any number of outputs."""
        return self._two_input("flat_map", func, output_type)

    def process(self, func, output_type=None):
        """A CoProcessFunction, or on keyed streams a KeyedCoProcessFunction (state and
        timers of the current key, shared by both inputs)."""
        from weir.datastream.functions import KeyedCoProcessFunction

        if isinstance(func, KeyedCoProcessFunction) and not self._is_keyed_stream():
            raise TypeError(
                "a KeyedCoProcessFunction needs keyed inputs: "
                "connect(...).key_by(key_selector1, key_selector2) first"
            )
        return self._two_input("process", func, output_type)

    def _two_input(self, kind: str, func, output_type):
        from weir.datastream.data_stream import DataStream, _refuse_operator_state

        _check_function(func, kind)
        _refuse_operator_state(func, kind)
        env = self.stream1.get_execution_environment()
        inputs = (self.stream1._node_id, self.stream2._node_id)
        if self._is_keyed_stream():
            selectors = (self.stream1._key_selector, self.stream2._key_selector)
            node = env._graph.add(
                g.KEYED,
                "Keyed " + _NAMES[kind],
                inputs,
                output_type,
                key_selectors=selectors,
                function=_KEYED_ADAPTERS[kind](func),
            )
        else:
            node = env._graph.add(
                g.TWO_INPUT, _NAMES[kind], inputs, output_type, step=kind, function=func
            )
        return DataStream(env, node.id)


class BroadcastStream:
    """stream.broadcast(descriptor, ...): a stream whose every element reaches every
    parallel instance of the operator it is connected to, with broadcast state."""

    def __init__(self, stream, descriptors):
        from weir.runtime.state.descriptors import MapStateDescriptor

        if not descriptors:
            raise NotImplementedError(
                "broadcast() without state descriptors (broadcast partitioning) is not "
                "supported yet; pass the MapStateDescriptor(s) of the broadcast state"
            )
        for descriptor in descriptors:
            if not isinstance(descriptor, MapStateDescriptor):
                raise TypeError(
                    f"broadcast() expects MapStateDescriptors, got {type(descriptor).__name__}"
                )
        self.stream = stream
        self.descriptors = tuple(descriptors)


class BroadcastConnectedStream:
    """stream.connect(broadcast_stream): process(BroadcastProcessFunction) or, on a keyed
    stream, process(KeyedBroadcastProcessFunction)."""

    def __init__(self, stream, broadcast_stream: BroadcastStream):
        if (
            stream.get_execution_environment()
            is not broadcast_stream.stream.get_execution_environment()
        ):
            raise ValueError("connect() needs two streams of the same environment")
        self.stream = stream
        self.broadcast_stream = broadcast_stream

    def process(self, func, output_type=None):
        from weir.datastream.data_stream import DataStream, KeyedStream
        from weir.datastream.functions import KeyedBroadcastProcessFunction

        keyed = isinstance(self.stream, KeyedStream)
        for method in ("process_element", "process_broadcast_element"):
            if not callable(getattr(func, method, None)):
                raise TypeError(
                    "BroadcastConnectedStream.process() expects a "
                    f"{'Keyed' if keyed else ''}BroadcastProcessFunction (with "
                    f"process_element and process_broadcast_element), got "
                    f"{type(func).__name__} without {method}"
                )
        if isinstance(func, KeyedBroadcastProcessFunction) and not keyed:
            raise TypeError(
                "a KeyedBroadcastProcessFunction needs a keyed stream: "
                "key_by(...).connect(broadcast_stream)"
            )
        env = self.stream.get_execution_environment()
        selectors = (
            self.stream._key_selector if keyed else ToOwnSubtask(),
            broadcast.AllKeyGroups(),
        )
        node = env._graph.add(
            g.KEYED,
            "Keyed Broadcast Process" if keyed else "Broadcast Process",
            (self.stream._node_id, self.broadcast_stream.stream._node_id),
            output_type,
            key_selectors=selectors,
            function=broadcast.BroadcastSpec(func, self.broadcast_stream.descriptors),
        )
        return DataStream(env, node.id)
