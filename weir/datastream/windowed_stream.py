"""WindowedStream and AllWindowedStream: PyFlink's windowing API, building window nodes."""

from weir.plan import graph as g
from weir.runtime.aggregations import rolling_reducer
from weir.runtime.output_tag import OutputTag
from weir.runtime.window import contents as c
from weir.runtime.window.assigners import WindowAssigner
from weir.runtime.window.evictors import Evictor
from weir.runtime.window.spec import WindowSpec
from weir.runtime.window.triggers import Trigger
from weir.runtime.window.windows import to_millis


def all_key(value):
    """The one key of a non-keyed window (window_all): every element goes to one task."""
    return 0


def _window_function(function, keyed: bool):
    if function is None:
        return c.PassThrough()
    if callable(getattr(function, "process", None)):
        return c.ProcessWindow(function) if keyed else c.ProcessAllWindow(function)
    if callable(getattr(function, "apply", None)) or callable(function):
        return c.ApplyWindow(function) if keyed else c.ApplyAllWindow(function)
    raise TypeError(
        "window_function must be a ProcessWindowFunction or a WindowFunction, got "
        f"{type(function).__name__}"
    )


class WindowedStream:
    """A keyed stream cut into windows; reduce/aggregate/apply/process end it."""

    _keyed = True

    def __init__(self, keyed_stream, window_assigner):
        if not isinstance(window_assigner, WindowAssigner):
            raise TypeError(
                f"window() expects a WindowAssigner, got {type(window_assigner).__name__}"
            )
        self._stream = keyed_stream
        self._assigner = window_assigner
        self._trigger = None
        self._evictor = None
        self._allowed_lateness = 0
        self._late_tag = None

    # -- configuration ----------------------------------------------------------------
    def get_execution_environment(self):
        return self._stream.get_execution_environment()

    def get_input_type(self):
        return self._stream.get_type()

    def _merging(self) -> bool:
        return hasattr(self._assigner, "merge_windows")

    def trigger(self, trigger):
        if not isinstance(trigger, Trigger):
            raise TypeError(f"trigger() expects a Trigger, got {type(trigger).__name__}")
        if self._merging() and not trigger.can_merge():
            raise ValueError(
                f"a merging window assigner ({self._assigner!r}) cannot be used "
                f"with a trigger that does not support merging ({trigger!r})"
            )
        self._trigger = trigger
        return self

    def evictor(self, evictor):
        if not isinstance(evictor, Evictor):
            raise TypeError(f"evictor() expects an Evictor, got {type(evictor).__name__}")
        if self._merging():
            raise ValueError("cannot use a merging window assigner with an evictor")
        self._evictor = evictor
        return self

    def allowed_lateness(self, time_ms):
        lateness = to_millis(time_ms, "allowed_lateness")
        if lateness < 0:
            raise ValueError(f"allowed lateness must not be negative, got {lateness} ms")
        self._allowed_lateness = lateness
        return self

    def side_output_late_data(self, output_tag):
        if not isinstance(output_tag, OutputTag):
            raise TypeError("side_output_late_data() expects an OutputTag")
        self._late_tag = output_tag
        return self

    # -- window functions -------------------------------------------------------------
    def _build(self, contents, window_function, output_type, name):
        stream = self._stream
        trigger = self._trigger or self._assigner.get_default_trigger(stream._env)
        spec = WindowSpec(
            self._assigner,
            trigger,
            contents,
            window_function,
            self._evictor,
            self._allowed_lateness,
            self._late_tag.tag_id if self._late_tag else None,
        )
        node = self._window_node(
            f"Window({self._assigner!r}, {trigger!r}, {name})", spec, output_type
        )
        from weir.datastream.data_stream import DataStream

        return DataStream(stream._env, node.id)

    def _window_node(self, name, spec, output_type):
        stream = self._stream
        return stream._env._graph.add(
            g.KEYED,
            name,
            (stream._node_id,),
            output_type,
            key_selector=stream._key_selector,
            function=spec,
        )

    def reduce(self, reduce_function, window_function=None, output_type=None):
        reduce = getattr(reduce_function, "reduce", reduce_function)
        if not callable(reduce):
            raise TypeError("reduce() expects a ReduceFunction or a callable(a, b)")
        if window_function is None and output_type is None:
            output_type = self._stream._node.output_type
        return self._build(
            c.ReduceContents(reduce_function),
            _window_function(window_function, self._keyed),
            output_type,
            "Reduce",
        )

    def aggregate(
        self, aggregate_function, window_function=None, accumulator_type=None, output_type=None
    ):
        for method in ("create_accumulator", "add", "get_result"):
            if not callable(getattr(aggregate_function, method, None)):
                raise TypeError(f"aggregate() expects an AggregateFunction (missing {method})")
        return self._build(
            c.AggregateContents(aggregate_function),
            _window_function(window_function, self._keyed),
            output_type,
            "Aggregate",
        )

    def apply(self, window_function, output_type=None):
        method = getattr(window_function, "apply", window_function)
        if not callable(method):
            raise TypeError("apply() expects a WindowFunction")
        wrapped = (
            c.ApplyWindow(window_function) if self._keyed else c.ApplyAllWindow(window_function)
        )
        return self._build(c.ListContents(), wrapped, output_type, "Apply")

    def process(self, process_window_function, output_type=None):
        if not callable(getattr(process_window_function, "process", None)):
            raise TypeError("process() expects a ProcessWindowFunction")
        wrapped = (c.ProcessWindow if self._keyed else c.ProcessAllWindow)(process_window_function)
        return self._build(c.ListContents(), wrapped, output_type, "Process")

    # -- built-in aggregations (Flink's Java WindowedStream) ---------------------------
    def _aggregation(self, kind, field):
        return self.reduce(rolling_reducer(kind, field))

    def sum(self, position_to_sum=0):
        return self._aggregation("sum", position_to_sum)

    def min(self, position_to_min=0):
        return self._aggregation("min", position_to_min)

    def max(self, position_to_max=0):
        return self._aggregation("max", position_to_max)

    def min_by(self, position_to_min_by=0):
        return self._aggregation("min_by", position_to_min_by)

    def max_by(self, position_to_max_by=0):
        return self._aggregation("max_by", position_to_max_by)


class AllWindowedStream(WindowedStream):
    """window_all(): one window operator over the whole stream (parallelism 1, as Flink)."""

    _keyed = False

    def __init__(self, data_stream, window_assigner):
        super().__init__(data_stream.key_by(all_key), window_assigner)
