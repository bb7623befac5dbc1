"""The contexts a window's trigger, evictor and window function see."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NoReturn, Sequence, overload

from weir.runtime.timers import EVENT_TIME, PROCESSING_TIME

if TYPE_CHECKING:
    from weir.runtime.context import RuntimeContext
    from weir.runtime.output_tag import OutputTag
    from weir.runtime.state.descriptors import (
        AggregatingStateDescriptor,
        ListStateDescriptor,
        MapStateDescriptor,
        ReducingStateDescriptor,
        StateDescriptor,
        ValueStateDescriptor,
    )
    from weir.runtime.state.states import (
        AggregatingState,
        KeyedState,
        ListState,
        MapState,
        ReducingState,
        ValueState,
    )
    from weir.runtime.window.namespaces import NamespacedStateStore
    from weir.runtime.window.operator import WindowOperator
    from weir.runtime.window.windows import Window


class WindowTriggerContext:
    """Trigger.TriggerContext / OnMergeContext for the current key and window.

    Timers and partitioned state are scoped to `window`; merged_windows is set during
    on_merge so merge_partitioned_state can fold their state into `window`.
    """

    def __init__(self, operator: WindowOperator) -> None:
        self._operator = operator
        self.window: Window = None  # type: ignore[assignment]  # (set before each call)
        self.merged_windows: Sequence[Window] = ()

    def get_current_processing_time(self) -> int:
        return self._operator.clock.processing_time

    def get_current_watermark(self) -> int:
        return self._operator.clock.watermark

    def get_metric_group(self) -> NoReturn:
        raise NotImplementedError("weir has no metric groups yet")

    def register_event_time_timer(self, time: int) -> None:
        self._operator.register_timer(EVENT_TIME, int(time), self.window)

    def register_processing_time_timer(self, time: int) -> None:
        self._operator.register_timer(PROCESSING_TIME, int(time), self.window)

    def delete_event_time_timer(self, time: int) -> None:
        self._operator.delete_timer(EVENT_TIME, int(time), self.window)

    def delete_processing_time_timer(self, time: int) -> None:
        self._operator.delete_timer(PROCESSING_TIME, int(time), self.window)

    # (each kind of descriptor gets its kind of state: create_state's STATE_CLASSES)
    @overload
    def get_partitioned_state(self, state_descriptor: ValueStateDescriptor) -> ValueState[Any]: ...

    @overload
    def get_partitioned_state(self, state_descriptor: ListStateDescriptor) -> ListState[Any]: ...

    @overload
    def get_partitioned_state(self, state_descriptor: MapStateDescriptor) -> MapState[Any, Any]: ...

    @overload
    def get_partitioned_state(
        self, state_descriptor: ReducingStateDescriptor
    ) -> ReducingState[Any]: ...

    @overload
    def get_partitioned_state(
        self, state_descriptor: AggregatingStateDescriptor
    ) -> AggregatingState[Any, Any]: ...

    @overload
    def get_partitioned_state(self, state_descriptor: StateDescriptor) -> KeyedState: ...

    def get_partitioned_state(self, state_descriptor: StateDescriptor) -> KeyedState:
        store = self._operator.trigger_state
        store.view.namespace = self.window
        return store.state(state_descriptor)

    def merge_partitioned_state(self, state_descriptor: StateDescriptor) -> None:
        self._operator.trigger_state.merge(state_descriptor, self.window, self.merged_windows)


class ProcessWindowContext:
    """ProcessWindowFunction.Context: the window, the clocks, window and global state."""

    def __init__(self, operator: WindowOperator) -> None:
        self._operator = operator
        self._window: Any = None  # the window being processed (the operator sets it)

    def window(self) -> Any:
        return self._window

    def current_processing_time(self) -> int:
        return self._operator.clock.processing_time

    def current_watermark(self) -> int:
        return self._operator.clock.watermark

    def window_state(self) -> NamespacedStateStore:
        store = self._operator.window_state
        store.view.namespace = self._window
        return store

    def global_state(self) -> RuntimeContext:
        return self._operator.runtime_context

    def output(self, output_tag: OutputTag, value: Any) -> None:
        self._operator.collect(output_tag.tag_id, value, self._window.max_timestamp())
