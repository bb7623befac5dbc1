"""Adapters that turn every keyed operation into a KeyedProcessFunction-shaped object.

User functions may be function objects (MapFunction, ...) or plain callables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from weir.runtime.aggregations import rolling_reducer
from weir.runtime.state.descriptors import ValueStateDescriptor
from weir.runtime.wire import MAX_WATERMARK

if TYPE_CHECKING:
    from weir.runtime.aggregations import Field
    from weir.runtime.context import ProcessContext, RuntimeContext


def resolve(function: Any, method_name: str) -> Callable[..., Any]:
    """The callable to invoke: `function.<method_name>` or the plain callable itself."""
    method = getattr(function, method_name, None)
    if method is not None and callable(method):
        return method  # type: ignore[no-any-return]  # (callable: checked)
    if callable(function):
        return function  # type: ignore[no-any-return]  # (callable: checked)
    raise TypeError(
        f"expected a callable or an object with a '{method_name}' method, "
        f"got {type(function).__name__}"
    )


class _Wrapper:
    """Passes open() and close() on to the wrapped user function."""

    def __init__(self, function: Any) -> None:
        self.user_function = function

    def open(self, runtime_context: RuntimeContext) -> None:
        if hasattr(self.user_function, "open"):
            self.user_function.open(runtime_context)

    def close(self) -> None:
        if hasattr(self.user_function, "close"):
            self.user_function.close()


class _KeyedAdapter(_Wrapper):
    method_name = ""

    def __init__(self, function: Any) -> None:
        super().__init__(function)
        self.call = resolve(function, self.method_name)


class KeyedMap(_KeyedAdapter):
    method_name = "map"

    def process_element(self, value: Any, ctx: ProcessContext) -> tuple[Any]:
        return (self.call(value),)


class KeyedFlatMap(_KeyedAdapter):
    method_name = "flat_map"

    def process_element(self, value: Any, ctx: ProcessContext) -> Iterable[Any]:
        return self.call(value)  # type: ignore[no-any-return]  # (user code)


class KeyedFilter(_KeyedAdapter):
    method_name = "filter"

    def process_element(self, value: Any, ctx: ProcessContext) -> tuple[Any, ...]:
        return (value,) if self.call(value) else ()


class KeyedReduce(_KeyedAdapter):
    """Rolling reduce: emits the running reduction of each key, as Flink's reduce."""

    method_name = "reduce"

    def __init__(self, function: Any) -> None:
        super().__init__(function)
        self.state: Any = None  # its ValueState, from open()

    def open(self, runtime_context: RuntimeContext) -> None:
        super().open(runtime_context)
        self.state = runtime_context.get_state(ValueStateDescriptor("_weir_reduce"))

    def process_element(self, value: Any, ctx: ProcessContext) -> tuple[Any]:
        current = self.state.value()
        result = value if current is None else self.call(current, value)
        self.state.update(result)
        return (result,)


class FinalReduce(_Wrapper):
    """A rolling reduce in BATCH mode: only each key's final reduction, emitted at the end
    of the input (as Flink's batch execution of reduce, sum, min, max, min_by, max_by)."""

    def __init__(self, reduce: KeyedReduce) -> None:
        super().__init__(reduce.user_function)
        self.reduce = reduce

    def open(self, runtime_context: RuntimeContext) -> None:
        self.reduce.open(runtime_context)

    def process_element(self, value: Any, ctx: ProcessContext) -> None:
        if self.reduce.state.value() is None:
            ctx.timer_service().register_event_time_timer(MAX_WATERMARK)
        self.reduce.process_element(value, ctx)

    def on_timer(self, timestamp: int, ctx: ProcessContext) -> Iterator[Any]:
        yield self.reduce.state.value()


def rolling_aggregation(kind: str, field: Field) -> KeyedReduce:
    return KeyedReduce(rolling_reducer(kind, field))


class KeyedProcess(_Wrapper):
    """A KeyedProcessFunction given as a function object, used as it is."""

    def __init__(self, function: Any) -> None:
        super().__init__(function)
        self.process_element = function.process_element
        if hasattr(function, "on_timer"):
            self.on_timer = function.on_timer
        if hasattr(function, "finish_bundle"):  # (weir's hook: see keyed_process.py)
            self.finish_bundle = function.finish_bundle


class KeyedCoProcess(_Wrapper):
    """A function of two inputs (process_element1, process_element2, on_timer), as is."""

    def __init__(self, function: Any) -> None:
        super().__init__(function)
        self.process_element1 = function.process_element1
        self.process_element2 = function.process_element2
        if hasattr(function, "on_timer"):
            self.on_timer = function.on_timer


class _OneInput:
    """One input's method of a two-input function, called as process_element(value, ctx)."""

    def __init__(self, call: Callable[[Any], Any]) -> None:
        self.call = call


class _MapInput(_OneInput):
    def process_element(self, value: Any, ctx: ProcessContext) -> tuple[Any]:
        return (self.call(value),)


class _FlatMapInput(_OneInput):
    def process_element(self, value: Any, ctx: ProcessContext) -> Iterable[Any]:
        return self.call(value)  # type: ignore[no-any-return]  # (user code)


class KeyedCoMap(_Wrapper):
    """A CoMapFunction on keyed connected streams: map1 / map2 per input."""

    def __init__(self, function: Any) -> None:
        super().__init__(function)
        self.process_element1 = _MapInput(function.map1).process_element
        self.process_element2 = _MapInput(function.map2).process_element


class KeyedCoFlatMap(_Wrapper):
    """A CoFlatMapFunction on keyed connected streams: flat_map1 / flat_map2 per input."""

    def __init__(self, function: Any) -> None:
        super().__init__(function)
        self.process_element1 = _FlatMapInput(function.flat_map1).process_element
        self.process_element2 = _FlatMapInput(function.flat_map2).process_element
