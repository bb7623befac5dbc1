"""Joins of two streams (Flink's Java API in snake_case; PyFlink's Python API has none):

    a.join(b).where(key_a).equal_to(key_b).window(assigner).apply(JoinFunction)
    a.co_group(b).where(key_a).equal_to(key_b).window(assigner).apply(CoGroupFunction)
    keyed_a.interval_join(keyed_b).between(lower, upper).process(ProcessJoinFunction)

Window joins and co-groups take every window assigner, trigger, evictor and allowed
lateness a WindowedStream takes. As in Flink, each input's records are tagged with their
input and both go to one window operator: a window's join or co-group runs when it fires,
over the elements of both inputs. An interval join is one keyed operator of two inputs
(weir.runtime.interval_join).
"""

from typing import List, Optional

from weir.plan import graph as g
from weir.runtime import co_group
from weir.runtime.interval_join import IntervalJoinSpec
from weir.runtime.output_tag import OutputTag
from weir.runtime.window.windows import to_millis
from weir.datastream.windowed_stream import WindowedStream
from weir.runtime.adapters import resolve


def _window_function(kind: str, function):
    from weir.datastream.functions import FlatJoinFunction

    if kind == "co_group":
        resolve(function, "co_group")
        return co_group.CoGroupWindow(function)
    resolve(function, "join")
    return (
        co_group.FlatJoinWindow if isinstance(function, FlatJoinFunction) else co_group.JoinWindow
    )(function)


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
            f"{streams._kind}: tag first"
        )
        second = streams._second.map(co_group.TagInput(co_group.SECOND)).name(
            f"{streams._kind}: tag second"
        )
        super().__init__(first.key_by(co_group.TaggedKey(key_selectors[0])), window_assigner)
        self._inputs = (first._node_id, second._node_id)
        self._tagged_keys = tuple(co_group.TaggedKey(k).get_key for k in key_selectors)
        self._kind = streams._kind

    def _window_node(self, name, spec, output_type):
        return self._stream._env._graph.add(
            g.KEYED,
            name.replace("Apply", self._kind),
            self._inputs,
            output_type,
            key_selectors=self._tagged_keys,
            function=spec,
        )

    def side_output_late_data(self, output_tag):
        raise NotImplementedError(
            f"{self._kind}(): late data has no side output (as in Flink's window joins)"
        )

    def apply(self, function, output_type=None):
        return super().apply(_window_function(self._kind, function), output_type)

    def _unsupported(self, *args, **kwargs):
        raise TypeError(f"a window {self._kind} ends with apply(function)")

    reduce = aggregate = process = sum = min = max = min_by = max_by = _unsupported


class IntervalJoin:
    """keyed_a.interval_join(keyed_b): between(lower, upper) sets the interval."""

    def __init__(self, first, second):
        from weir.datastream.data_stream import KeyedStream

        for stream in (first, second):
            if not isinstance(stream, KeyedStream):
                raise TypeError(
                    "interval_join() joins two keyed streams (key_by both), got "
                    f"{type(stream).__name__}"
                )
        if first.get_execution_environment() is not second.get_execution_environment():
            raise ValueError("interval_join() needs two streams of the same environment")
        self._first, self._second = first, second

    def between(self, lower_bound, upper_bound) -> "IntervalJoined":
        """A first-input record at t joins second-input records at [t + lower, t + upper]
        (Time, Duration or milliseconds; negative bounds reach back in time)."""
        lower = to_millis(lower_bound, "lower bound")
        upper = to_millis(upper_bound, "upper bound")
        if lower > upper:
            raise ValueError(
                f"interval join: the lower bound ({lower} ms) must not be above "
                f"the upper bound ({upper} ms)"
            )
        return IntervalJoined(self._first, self._second, lower, upper)


class IntervalJoined:
    """An interval join with its bounds: process(ProcessJoinFunction) ends it."""

    def __init__(self, first, second, lower: int, upper: int):
        self._first, self._second = first, second
        self._lower, self._upper = lower, upper
        self._inclusive = [True, True]
        self._late_tags: List[Optional[str]] = [None, None]

    def lower_bound_exclusive(self) -> "IntervalJoined":
        self._inclusive[0] = False
        return self

    def upper_bound_exclusive(self) -> "IntervalJoined":
        self._inclusive[1] = False
        return self

    def _late_output(self, side: int, output_tag) -> "IntervalJoined":
        if not isinstance(output_tag, OutputTag):
            raise TypeError("a late-data side output needs an OutputTag")
        self._late_tags[side] = output_tag.tag_id
        return self

    def side_output_left_late_data(self, output_tag) -> "IntervalJoined":
        """First-input records behind the watermark go to `output_tag`, not dropped."""
        return self._late_output(0, output_tag)

    def side_output_right_late_data(self, output_tag) -> "IntervalJoined":
        return self._late_output(1, output_tag)

    def process(self, process_join_function, output_type=None):
        """process_element(left, right, ctx) returns (or yields) each pair's outputs;
        ctx has get_left_timestamp(), get_right_timestamp(), get_timestamp(), output()."""
        from weir.datastream.data_stream import DataStream

        resolve(process_join_function, "process_element")
        lower_inclusive, upper_inclusive = self._inclusive
        spec = IntervalJoinSpec(
            self._lower,
            self._upper,
            process_join_function,
            lower_inclusive,
            upper_inclusive,
            self._late_tags,
        )
        env = self._first.get_execution_environment()
        node = env._graph.add(
            g.KEYED,
            "IntervalJoin",
            (self._first._node_id, self._second._node_id),
            output_type,
            key_selectors=(self._first._key_selector, self._second._key_selector),
            function=spec,
        )
        return DataStream(env, node.id)
