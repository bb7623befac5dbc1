"""The contexts a window's trigger, evictor and window function see."""

from typing import Any

from weir.runtime.timers import EVENT_TIME, PROCESSING_TIME


class WindowTriggerContext:
    """Trigger.TriggerContext / OnMergeContext for the current key and window.

    Timers and partitioned state are scoped to `window`; merged_windows is set during
    on_merge so merge_partitioned_state can fold their state into `window`.
    """

    def __init__(self, operator):
        self._operator = operator
        self.window = None
        self.merged_windows = ()

    def get_current_processing_time(self) -> int:
        return self._operator.clock.processing_time

    def get_current_watermark(self) -> int:
        return self._operator.clock.watermark

    def get_metric_group(self):
        raise NotImplementedError("weir has no metric groups yet")

    def register_event_time_timer(self, time: int) -> None:
        self._operator.register_timer(EVENT_TIME, int(time), self.window)

    def register_processing_time_timer(self, time: int) -> None:
        self._operator.register_timer(PROCESSING_TIME, int(time), self.window)

    def delete_event_time_timer(self, time: int) -> None:
        self._operator.delete_timer(EVENT_TIME, int(time), self.window)

    def delete_processing_time_timer(self, time: int) -> None:
        self._operator.delete_timer(PROCESSING_TIME, int(time), self.window)

    def get_partitioned_state(self, state_descriptor):
        store = self._operator.trigger_state
        store.view.namespace = self.window
        return store.state(state_descriptor)

    def merge_partitioned_state(self, state_descriptor) -> None:
        self._operator.trigger_state.merge(state_descriptor, self.window, self.merged_windows)


class ProcessWindowContext:
    """ProcessWindowFunction.Context: the window, the clocks, window and global state."""

    def __init__(self, operator):
        self._operator = operator
        self._window: Any = None  # the window being processed (the operator sets it)

    def window(self):
        return self._window

    def current_processing_time(self) -> int:
        return self._operator.clock.processing_time

    def current_watermark(self) -> int:
        return self._operator.clock.watermark

    def window_state(self):
        store = self._operator.window_state
        store.view.namespace = self._window
        return store

    def global_state(self):
        return self._operator.runtime_context

    def output(self, output_tag, value) -> None:
        self._operator.collect(output_tag.tag_id, value, self._window.max_timestamp())
