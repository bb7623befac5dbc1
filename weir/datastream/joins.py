"""Window joins and co-groups of two streams (Flink's Java API in snake_case; PyFlink's
Python API has neither):

    a.join(b).where(key_a).equal_to(key_b).window(assigner).apply(JoinFunction)
    a.co_group(b).where(key_a).equal_to(key_b).window(assigner).apply(CoGroupFunction)

with every window assigner, trigger, evictor and allowed lateness a WindowedStream takes.
As in Flink, each input's records are tagged with their input and both go to one window
operator: a window's join or co-group runs when it fires, over the elements of both inputs.
"""

from weir.plan import graph as g
from weir.runtime import co_group
from weir.datastream.windowed_stream import WindowedStream
from weir.runtime.adapters import resolve


def _window_function(kind: str, function):
    from weir.datastream.functions import FlatJoinFunction
    if kind == "co_group":
        resolve(function, "co_group")
        return co_group.CoGroupWindow(function)
    resolve(function, "join")
    return (co_group.FlatJoinWindow if isinstance(function, FlatJoinFunction)
            else co_group.JoinWindow)(function)


class _Streams:
    """a.join(b) or a.co_group(b): `where` names the first input's key."""

    def __init__(self, first, second, kind: str):
        from weir.datastream.data_stream import DataStream
        if not isinstance(second, DataStream):
            raise TypeError(f"{kind}() expects a DataStream, got {type(second).__name__}")
        if first.get_execution_environment() is not second.get_execution_environment():
            raise ValueError(f"{kind}() needs two streams of the same environment")
        self._first, self._second, self._kind = first, second, kind

    def where(self, key_selector, key_type=None) -> "_Where":
        resolve(key_selector, "get_key")
        return _Where(self, key_selector)


class JoinedStreams(_Streams):
    def __init__(self, first, second):
        super().__init__(first, second, "join")


class CoGroupedStreams(_Streams):
    def __init__(self, first, second):
        super().__init__(first, second, "co_group")


class _Where:
    def __init__(self, streams: _Streams, key_selector):
        self._streams = streams
        self._key_selector = key_selector

    def equal_to(self, key_selector, key_type=None) -> "_EqualTo":
        resolve(key_selector, "get_key")
        return _EqualTo(self._streams, (self._key_selector, key_selector))


class _EqualTo:
    def __init__(self, streams: _Streams, key_selectors):
        self._streams = streams
        self._key_selectors = key_selectors

    def window(self, window_assigner) -> "WithWindow":
        return WithWindow(self._streams, self._key_selectors, window_assigner)


class WithWindow(WindowedStream):
    """A window join or co-group: trigger(), evictor(), allowed_lateness(), then
    apply(function, output_type)."""

    def __init__(self, streams: _Streams, key_selectors, window_assigner):
        first = streams._first.map(co_group.TagInput(co_group.FIRST)).name(
            f"{streams._kind}: tag first")
        second = streams._second.map(co_group.TagInput(co_group.SECOND)).name(
            f"{streams._kind}: tag second")
        super().__init__(first.key_by(co_group.TaggedKey(key_selectors[0])),
                         window_assigner)
        self._inputs = (first._node_id, second._node_id)
        self._tagged_keys = tuple(co_group.TaggedKey(k).get_key for k in key_selectors)
        self._kind = streams._kind

    def _window_node(self, name, spec, output_type):
        return self._stream._env._graph.add(
            g.KEYED, name.replace("Apply", self._kind), self._inputs, output_type,
            key_selectors=self._tagged_keys, function=spec)

    def side_output_late_data(self, output_tag):
        raise NotImplementedError(f"{self._kind}(): late data has no side output "
                                  "(as in Flink's window joins)")

    def apply(self, function, output_type=None):
        return super().apply(_window_function(self._kind, function), output_type)

    def _unsupported(self, *args, **kwargs):
        raise TypeError(f"a window {self._kind} ends with apply(function)")

    reduce = aggregate = process = sum = min = max = min_by = max_by = _unsupported
